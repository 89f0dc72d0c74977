// Command unread measures the memory of `cdpprovider serve` while a host
// subscribed to uicontext://current never reads, on a page that changes
// every 20 ms (a ticker): Chrome sends the page's accessibility events
// all the while, and the provider must not keep them without bound
// (warm.MaxEvents). It prints the serving process's resident set size
// every -every, and the first, the last and the peak at the end.
//
//	go run ./bench/unread -bin /tmp/cdpprovider -for 10m
//
// bench/unread.sh builds the binary and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/bench"
	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// ticker is a page of 400 sections (about 3,600 accessibility nodes: a
// document big enough to be walked, so that its events are kept for its
// tree) whose first heading, a caption of a thousand characters, changes
// every 20 ms.
func ticker() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Ticker</title><main>`)
	for i := range 400 {
		fmt.Fprintf(&b, `<section><h2>Part %d</h2><p>Text <a href="#%d">link %d</a></p><button>Button %d</button></section>`, i, i, i, i)
	}
	b.WriteString(`</main><script>let n = 0; setInterval(() => { document.querySelector('h2').textContent = 'Tick ' + (n++) + ' ' + 'caption '.repeat(125) }, 20)</script>`)
	return b.String()
}

func main() {
	bin := flag.String("bin", "", "the cdpprovider binary (required)")
	chrome := flag.String("chrome", "", "the browser; empty: found as the provider finds it")
	span := flag.Duration("for", 10*time.Minute, "how long the host stays subscribed without reading")
	every := flag.Duration("every", 30*time.Second, "how often the resident set size is sampled")
	flag.Parse()
	if *bin == "" {
		log.Fatal("unread: -bin is required")
	}
	ctx := context.Background()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatalf("unread: listen: %v", err)
	}
	page := ticker()
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, page) }))
	br, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: *chrome, URLs: []string{"http://" + ln.Addr().String() + "/"}})
	if err != nil {
		log.Fatalf("unread: %v", err)
	}
	defer br.Close()

	cmd := exec.Command(*bin, "serve", "--connect", br.DebugURL())
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpprovider-unread", Version: "0"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		log.Fatalf("unread: start %s serve: %v", *bin, err)
	}
	defer session.Close()
	// One read, as a host's first, so that the page is read and walked;
	// then the subscription, and no read again.
	if _, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "uicontext://current"}); err != nil {
		log.Fatalf("unread: read: %v", err)
	}
	if err := session.Subscribe(ctx, &mcp.SubscribeParams{URI: "uicontext://current"}); err != nil {
		log.Fatalf("unread: subscribe: %v", err)
	}
	pid := cmd.Process.Pid
	fmt.Printf("# %s serve (pid %d), subscribed, never reading, for %v; RSS every %v\n", *bin, pid, *span, *every)
	fmt.Println("elapsed\trss_mb\thwm_mb")
	var first, last, peak float64
	start := time.Now()
	tick := time.NewTicker(*every)
	defer tick.Stop()
	end := time.After(*span)
	sample := func() {
		hwm, rss, ok := bench.Memory(pid)
		if !ok {
			log.Fatalf("unread: no /proc/%d/status: the provider is gone", pid)
		}
		if first == 0 {
			first = rss
		}
		last, peak = rss, max(peak, rss)
		fmt.Printf("%v\t%.1f\t%.1f\n", time.Since(start).Round(time.Second), rss, hwm)
	}
	sample()
	for {
		select {
		case <-tick.C:
			sample()
			continue
		case <-end:
			sample()
		}
		break
	}
	fmt.Printf("# RSS first %.1f MB, last %.1f MB, peak %.1f MB\n", first, last, peak)
}
