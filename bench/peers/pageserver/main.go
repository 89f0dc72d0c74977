// Command pageserver serves the bench's generated pages (bench.Handler:
// /p100.html, /p1k.html, /p10k.html, /p50k.html and the 1k page's
// /frame.html) on a loopback address, for bench/peers/run.sh; with -dir,
// the files under a directory instead (bench/peers/light.sh: the extracted
// documentation packages). With -offline as well, every answer carries a
// Content-Security-Policy that keeps the page to its own origin and turns
// its scripts off (the saved real-world pages of bench/peers/model.sh). It
// prints the base URL as the first line of its output and serves until it
// is killed.
//
//	pageserver [-addr 127.0.0.1:0] [-dir DIR [-offline]]
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/cdpprovider/cdpprovider/bench"
)

// offlinePolicy is the Content-Security-Policy of -offline. A saved page
// names its site's scripts, styles, images, frames and ads by their
// addresses on the web: the browser must ask none of them (this machine
// sends nothing past loopback, and an answer that depended on the network
// would differ between runs), nor follow a <base> to the site. Scripts are
// off, its own inline ones too: without the site's libraries they fail
// half-way, and a saved page's timers, redirects and consent walls would
// change it between the snapshot and the reads. What is measured is the
// page as its server sent it, styled by what it carries inline.
const offlinePolicy = "default-src 'self' data:; script-src 'none'; style-src 'self' 'unsafe-inline' data:; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'"

// offline serves h's answers with offlinePolicy.
func offline(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", offlinePolicy)
		h.ServeHTTP(w, r)
	})
}

// handler is what the flags ask to serve.
func handler(dir string, isOffline bool) (http.Handler, error) {
	if dir == "" {
		if isOffline {
			return nil, fmt.Errorf("-offline needs -dir: the generated pages are offline already")
		}
		return bench.Handler(), nil
	}
	// os.Root keeps every file, symbolic links included, inside dir: a
	// link to a system file (a package's jquery.js, say) is not found,
	// as it is not on a machine without that file.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("-dir: %w", err)
	}
	h := http.FileServer(http.FS(root.FS()))
	if isOffline {
		h = offline(h)
	}
	return h, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback `address` to listen on; port 0 picks a free one")
	dir := flag.String("dir", "", "serve the files under this `directory` (symbolic links that lead out of it are not followed) instead of the generated pages")
	isOffline := flag.Bool("offline", false, "with -dir: a Content-Security-Policy on every answer keeps the page to its own origin, scripts off (saved pages)")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		log.Fatalf("pageserver: -addr %s: %v", *addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		log.Fatalf("pageserver: -addr %s: serves on a loopback address only (127.0.0.1 or ::1)", *addr)
	}
	h, err := handler(*dir, *isOffline)
	if err != nil {
		log.Fatalf("pageserver: %v", err)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("pageserver: %v", err)
	}
	fmt.Fprintf(os.Stdout, "http://%s/\n", l.Addr())
	log.Fatal(http.Serve(l, h))
}
