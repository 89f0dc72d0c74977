package cdp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// BenchmarkLocate locates one element of a generated page of about 10,000
// DOM nodes, again and again, with a real headless Chromium, and reports
// the median and 90th percentile of the calls: an element of the page
// inside a scrolled container, and one in a cross-site (out-of-process)
// iframe, which is one more frame to ask; and, to read them against, one
// bare round trip to the page's isolated world. Run with
//
//	go test -run '^$' -bench Locate ./cdp/
//
// It needs a Chromium ($CHROME or one on PATH): without one it skips, or
// with CI=true fails, as every browser test does (testChrome).
func BenchmarkLocate(b *testing.B) {
	chrome := testChrome(b)
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/frame.html" {
			io.WriteString(w, `<!doctype html><title>Frame</title><div style="height:300px;overflow:auto"><p style="height:500px">x</p><button>Framed button</button></div>`)
			return
		}
		io.WriteString(w, benchPage(strings.Replace(r.Host, "127.0.0.1", "localhost", 1)))
	}))
	defer pages.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	br, err := browsers.Launch(ctx, browsers.LaunchOptions{Path: chrome, URLs: []string{pages.URL + "/"}, Args: []string{"--site-per-process"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer br.Close()
	p, err := NewProvider(Options{Connect: br.DebugURL(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	var cur *mapping.Current
	for range 100 { // until the iframe has loaded
		if cur, err = p.Current(ctx); err != nil {
			b.Fatal(err)
		}
		if find(cur.Root, "Framed button") != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The floor: one round trip to the page's isolated world, the least
	// any locate can cost. It is timed first, once the page has finished
	// what it does after loading (a 10,000-node page keeps its renderer
	// busy for a few seconds), so that every call is timed in the steady
	// state.
	ping := pinger(ctx, b, p, findRole(cur.Root, "Document").ID)
	for fast, deadline := 0, time.Now().Add(10*time.Second); fast < 20 && time.Now().Before(deadline); {
		if ping() < time.Millisecond {
			fast++
		} else {
			fast = 0
			time.Sleep(50 * time.Millisecond)
		}
	}
	b.Run("roundtrip", func(b *testing.B) {
		var times []time.Duration
		for b.Loop() {
			times = append(times, ping())
		}
		reportTimes(b, times)
	})
	for _, c := range []struct{ name, title string }{
		{"page", "Deep button 4999"},
		{"oopif", "Framed button"},
	} {
		b.Run(c.name, func(b *testing.B) {
			el := find(cur.Root, c.title)
			if el == nil {
				b.Fatalf("no %q in the page", c.title)
			}
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				loc, err := p.Locate(ctx, el.ID)
				times = append(times, time.Since(start))
				if err != nil || loc.State == mapping.Gone {
					b.Fatalf("Locate %q: %+v, %v", c.title, loc, err)
				}
			}
			reportTimes(b, times)
		})
	}
}

// pinger returns a func that evaluates `1` in the isolated world of the
// document with the id and returns how long it took.
func pinger(ctx context.Context, b *testing.B, p *Provider, docID string) func() time.Duration {
	ref, err := p.ids.Parse(docID)
	if err != nil {
		b.Fatal(err)
	}
	info := p.state.docs[uint64(ref.A)]
	s := p.state.sessions[info.key.target]
	w, err := cdproto.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: info.key.frame, WorldName: worldName})
	if err != nil {
		b.Fatal(err)
	}
	return func() time.Duration {
		start := time.Now()
		if _, err := cdproto.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: "1", ContextID: w.ExecutionContextID}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
}

// reportTimes reports the median and 90th percentile of the calls.
func reportTimes(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(times[len(times)/2]), "ms-median")
	b.ReportMetric(ms(times[len(times)*9/10]), "ms-p90")
}

// benchPage is about 10,000 DOM nodes: 1,000 sections of ten, the deep
// buttons in a scrolled container, and a cross-site iframe from host.
func benchPage(host string) string {
	var s strings.Builder
	s.WriteString(`<!doctype html><title>Ten thousand</title><body><div id="scroller" style="height:400px;overflow:auto">`)
	for i := range 1000 {
		fmt.Fprintf(&s, `<section><h3>Section %d</h3><p>Text <a href="#%d">link</a> <em>and</em> more</p><ul><li>one</li><li>two</li></ul><button>Deep button %d</button></section>`, i, i, i*5+4)
	}
	_, port, _ := net.SplitHostPort(host)
	fmt.Fprintf(&s, `</div><iframe src="http://localhost:%s/frame.html" style="border:3px solid;padding:2px"></iframe></body>`, port)
	return s.String()
}

// find returns the first element titled title, depth first.
func find(e *mapping.Element, title string) *mapping.Element {
	return first(e, func(e *mapping.Element) bool { return e.Title == title })
}

// findRole returns the first element of the role, depth first.
func findRole(e *mapping.Element, role string) *mapping.Element {
	return first(e, func(e *mapping.Element) bool { return e.Role == role })
}

func first(e *mapping.Element, match func(*mapping.Element) bool) *mapping.Element {
	if match(e) {
		return e
	}
	for _, c := range e.Children {
		if f := first(c, match); f != nil {
			return f
		}
	}
	return nil
}
