package bench

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// lagMonitor, run in the page, measures how late the page's own timers
// run: a 5 ms interval notes each gap between its calls beyond 5 ms, so a
// task of the provider's that holds the page's main thread shows as a gap
// of its length. reset starts a new count.
const lagMonitor = `(() => {
  if (!globalThis.__lag) {
    const l = globalThis.__lag = {max: 0, over50: 0, calls: 0, last: performance.now()};
    setInterval(() => {
      const now = performance.now(), gap = now - l.last - 5;
      l.last = now; l.calls++;
      if (gap > l.max) l.max = gap;
      if (gap > 50) l.over50++;
    }, 5);
  }
  Object.assign(globalThis.__lag, {max: 0, over50: 0, calls: 0, last: performance.now()});
  return true;
})()`

// lagReport is what lagMonitor counted since its last reset.
type lagReport struct {
	Max    float64 `json:"max"`
	Over50 int     `json:"over50"`
	Calls  int     `json:"calls"`
}

// BenchmarkWalkLag measures, per page size, how the walk of a new
// provider delays the page's own work: after the provider's first read
// (a whole getFullAXTree, one task Chrome cannot split), until its walk
// ends, the page's 5 ms timer is watched (lagMonitor): the longest delay
// of a timer and how many were late by more than 50 ms. The same is
// measured for as long with no provider, as the page's own baseline.
// The project's goal: no task of the provider's longer than 50 ms where
// Chrome's calls allow, that is, no timer late by 50 ms during the walk.
func BenchmarkWalkLag(b *testing.B) {
	setup(b)
	for _, pg := range Pages[1:] { // 10k and 50k: smaller documents are not walked
		b.Run(pg.Name, func(b *testing.B) {
			open(b, pg)
			var during, alone lagReport
			var walk time.Duration
			for b.Loop() {
				p := newProvider(b)
				ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
				if _, err := p.Current(ctx); err != nil {
					cancel()
					p.Close()
					b.Fatalf("first Current: %v", err)
				}
				cancel()
				lag[bool](b, lagMonitor, nil)
				t0 := time.Now()
				for time.Since(t0) < *settle && p.Walking() {
					time.Sleep(10 * time.Millisecond)
				}
				walk = time.Since(t0)
				var r lagReport
				lag(b, "globalThis.__lag", &r)
				p.Close()
				during = worse(during, r)
				// The page alone, as long.
				lag[bool](b, lagMonitor, nil)
				time.Sleep(walk)
				lag(b, "globalThis.__lag", &r)
				alone = worse(alone, r)
			}
			b.ReportMetric(float64(walk.Milliseconds()), "walk-ms")
			b.ReportMetric(during.Max, "max-timer-lag-ms")
			b.ReportMetric(float64(during.Over50), "lags-over-50ms")
			b.ReportMetric(alone.Max, "alone-max-timer-lag-ms")
			b.Logf("%s: walk %v; the page's 5 ms timer during it: %d calls, latest %.1f ms, %d late by over 50 ms; alone: %d calls, latest %.1f ms, %d over 50 ms",
				pg.Name, walk, during.Calls, during.Max, during.Over50, alone.Calls, alone.Max, alone.Over50)
		})
	}
}

// lag evaluates expr in the page and decodes its value into out.
func lag[T any](b *testing.B, expr string, out *T) {
	b.Helper()
	ctx, cancel := context.WithTimeout(env.tab, opTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.Fatalf("the page's lag monitor: %v", err)
	}
	if out != nil {
		*out = v
	}
}

// worse keeps the larger of each count.
func worse(a, r lagReport) lagReport {
	return lagReport{Max: max(a.Max, r.Max), Over50: max(a.Over50, r.Over50), Calls: max(a.Calls, r.Calls)}
}
