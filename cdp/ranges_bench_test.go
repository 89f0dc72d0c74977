package cdp

import (
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/dom"
)

// An unchanged read of a page with 300 range widgets (sliders and
// progress bars, each with its aria-valuetext) against the same read of
// the page without them: the widgets' value texts are kept with the
// document's version (valueTextsOf), so the first should cost at most
// 1.1× the second. The two pages are in browsers of their own, read in
// turn (paired: the machine's load falls on both alike); it reports the
// median read of each, their ratio, and the DOM.describeNode calls an
// unchanged read of the widgets' page sent (0: the kept texts answered).
//
//	go test ./cdp/ -run '^$' -bench UnchangedRanges -benchtime 2000x
func BenchmarkUnchangedRanges(b *testing.B) {
	var ps [2]*Provider
	for i, ranges := range []int{0, 300} {
		url := serve(b, map[string]string{"/": rangesPage("Ranges", 100, ranges)})
		ctx, p, _ := launchFor(b, url+"/", Options{RestAfter: -1})
		for range 2 { // the second keeps the value texts of this version
			if _, err := p.Current(ctx); err != nil {
				b.Fatal(err)
			}
		}
		ps[i] = p
	}
	ctx := b.Context()
	ps[1].mu.Lock()
	conn := ps[1].conn
	ps[1].mu.Unlock()
	before := conn.Traffic().Calls[dom.CommandDescribeNode]
	var times [2][]time.Duration
	for b.Loop() {
		for i, p := range ps {
			t0 := time.Now()
			if _, err := p.Current(ctx); err != nil {
				b.Fatal(err)
			}
			times[i] = append(times[i], time.Since(t0))
		}
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	without, with := median(times[0]), median(times[1])
	b.ReportMetric(float64(without)/float64(time.Millisecond), "ms/read-without")
	b.ReportMetric(float64(with)/float64(time.Millisecond), "ms/read-300ranges")
	b.ReportMetric(float64(with)/float64(without), "ratio")
	b.ReportMetric(float64(conn.Traffic().Calls[dom.CommandDescribeNode]-before)/float64(len(times[1])), "describeNode/read")
}
