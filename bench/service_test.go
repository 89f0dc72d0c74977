package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/internal/browserless"
	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// serviceSessions is how many sessions BenchmarkServiceReads runs at
// once: this machine's size (2 cores), as a host runs an agent per
// session.
const serviceSessions = 4

// BenchmarkServiceReads runs serviceSessions agents at once, each on a
// browser of its own with the 1k page in a tab it opened, and a
// `cdpprovider serve` per browser reading it over MCP: each round, every
// agent changes its page (the first heading) and its provider reads it at
// once, all sessions together, and the read must show the change. It
// reports the reads per second of all the providers together (a round's
// edits included) and the median and 90th percentile of one read, for the
// browsers of a browser service (the pinned Browserless on loopback, one
// session per agent, each provider given --session) and beside them for
// as many browsers on this machine (each with its debugging port), so
// that the service's cost (its proxy, its list) shows.
func BenchmarkServiceReads(b *testing.B) {
	setup(b)
	bin := binary(b)
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	pg := Pages[0] // the 1k page
	url := env.server.URL + "/" + pg.File
	b.Run("service", func(b *testing.B) {
		if err := browserless.Installed(root); err != nil {
			if os.Getenv("CI") == "true" {
				b.Fatalf("%v (CI=true: failing instead of skipping)", err)
			}
			b.Skip(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		path, err := browsers.FindChrome("")
		if err != nil {
			b.Fatal(err)
		}
		s, err := browserless.Start(ctx, root, path, browserless.Options{Concurrent: 2 * serviceSessions})
		if err != nil {
			b.Fatal(err)
		}
		defer func() {
			if err := s.Stop(); err != nil {
				b.Error(err)
			}
		}()
		var pairs []*agentAndProvider
		defer func() { closePairs(b, pairs) }()
		for range serviceSessions {
			a := startBenchAgent(b, s.WS(), url, remote.NoModifyURL)
			pairs = append(pairs, a)
			var id string
			for id == "" {
				// Browserless answers its list with 500 now and then while
				// a browser starts or closes: asked again.
				id, err = s.SessionOf(ctx, url+"#"+a.mark)
				if ctx.Err() != nil {
					b.Fatalf("find the agent's session: %v (last: %v)", ctx.Err(), err)
				}
				if id == "" {
					time.Sleep(50 * time.Millisecond) // until the service lists it
				}
			}
			a.served = serveArgs(b, bin, nil, "--connect", s.URL+"?token="+s.Token, "--session", id)
		}
		roundsOf(b, pairs)
	})
	b.Run("local", func(b *testing.B) {
		var pairs []*agentAndProvider
		defer func() { closePairs(b, pairs) }()
		for range serviceSessions {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			br, err := browsers.Launch(ctx, browsers.LaunchOptions{Logger: quiet})
			cancel()
			if err != nil {
				b.Fatal(err)
			}
			pairs = append(pairs, &agentAndProvider{local: br, leave: func() {}})
			a := startBenchAgent(b, br.DebugURL(), url)
			pairs = pairs[:len(pairs)-1]
			a.local = br
			pairs = append(pairs, a)
			a.served = serveArgs(b, bin, nil, "--connect", br.DebugURL())
		}
		roundsOf(b, pairs)
	})
}

// agentAndProvider is one agent's browser, the tab it drives, and the
// provider reading that browser.
type agentAndProvider struct {
	tab    context.Context
	leave  context.CancelFunc
	mark   string // the fragment of its page's URL, which names it
	served *served
	local  *browsers.Launched // the browser, when on this machine
	reads  samples
}

// startBenchAgent connects an agent to the browser at addr (a service's
// bare address starts one) and opens url#agentN in a tab of its own.
func startBenchAgent(b *testing.B, addr, url string, opts ...remote.Option) *agentAndProvider {
	b.Helper()
	alloc, leave := remote.NewAllocator(context.Background(), addr, opts...)
	tab, _ := chromedp.NewContext(alloc)
	a := &agentAndProvider{tab: tab, leave: leave, mark: fmt.Sprintf("agent%d", time.Now().UnixNano())}
	// The first Do binds the connection to tab's life: no timeout here.
	if err := chromedp.Do(tab, chromedp.Navigate(url+"#"+a.mark)); err != nil {
		leave()
		b.Fatalf("an agent opens %s at %s: %v", url, addr, err)
	}
	time.Sleep(loadSettle)
	return a
}

// roundsOf runs the benchmark's rounds: in each, every agent changes its
// page and its provider reads it, all at once; it reports the reads per
// second and one read's median and 90th percentile over every provider.
func roundsOf(b *testing.B, pairs []*agentAndProvider) {
	b.Helper()
	round := 0
	// A first read each, untimed: the providers connect and read cold.
	editAndServe(b, pairs, "warm up")
	start := time.Now()
	for b.Loop() {
		round++
		editAndServe(b, pairs, fmt.Sprintf("round %d", round))
	}
	elapsed := time.Since(start)
	var all samples
	for _, p := range pairs {
		all = append(all, p.reads...)
	}
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "reads/s")
	b.ReportMetric(ms(all.median()), "median-ms")
	b.ReportMetric(ms(all.percentile(90)), "p90-ms")
}

// editAndServe has every agent set its first heading to text and
// name, and its provider read it, all at once; a read that does not show
// its agent's edit fails the benchmark.
func editAndServe(b *testing.B, pairs []*agentAndProvider, text string) {
	var wg sync.WaitGroup
	errs := make([]error, len(pairs))
	for i, p := range pairs {
		wg.Go(func() {
			want := fmt.Sprintf("%s of %s", text, p.mark)
			ctx, cancel := context.WithTimeout(p.tab, opTimeout)
			defer cancel()
			expr := fmt.Sprintf(`document.getElementById("h-0").firstChild.data = %q`, want)
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](expr)); err != nil {
				errs[i] = fmt.Errorf("edit the heading: %w", err)
				return
			}
			t0 := time.Now()
			cur, err := p.served.current(ctx)
			d := time.Since(t0)
			if err != nil {
				errs[i] = fmt.Errorf("read: %w\nstderr:\n%s", err, p.served.stderr.String())
				return
			}
			if elemtest.First(cur.Root, func(e *mapping.Element) bool { return e.Title == want }) == nil {
				errs[i] = fmt.Errorf("the read does not show its agent's heading %q: another session's page, or a stale answer", want)
				return
			}
			if text != "warm up" {
				p.reads.add(d)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// percentile is the duration below which pct percent of the samples
// are (the nearest rank); zero for no samples.
func (s samples) percentile(pct int) time.Duration {
	if len(s) == 0 {
		return 0
	}
	x := slices.Clone(s)
	slices.Sort(x)
	return x[(len(x)*pct+99)/100-1]
}

// closePairs stops the providers, the agents and the local browsers.
func closePairs(b *testing.B, pairs []*agentAndProvider) {
	for _, p := range pairs {
		if p.served != nil {
			p.served.close(b)
		}
		p.leave()
		if p.local != nil {
			if err := p.local.Close(); err != nil {
				b.Error(err)
			}
		}
	}
}

// serveArgs starts `cdpprovider serve ARGS...` and its MCP session on
// its stdin and stdout, with the client options opts.
func serveArgs(b *testing.B, bin string, opts *mcp.ClientOptions, args ...string) *served {
	b.Helper()
	s := &served{cmd: exec.Command(bin, append([]string{"serve", "--log-level", "debug"}, args...)...)}
	s.cmd.Stderr = &s.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpprovider-bench", Version: "0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: s.cmd}, nil)
	if err != nil {
		b.Fatalf("initialize %s over stdio: %v\nstderr:\n%s", bin, err, s.stderr.String())
	}
	s.session = session
	return s
}
