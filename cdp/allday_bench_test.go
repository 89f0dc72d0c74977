package cdp

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// What the provider holds after a long day: a person browses pages that
// each hold a same-site and a cross-site iframe (its own process, a
// target of its own), whose script replaces a rotating iframe; opens and
// closes a tab now and then; a host reads after each page. The
// provider's live heap (after a collection) is reported at a quarter, at
// half and at the end of the day: flat when it keeps only what is alive.
//
//	go test ./cdp/ -run '^$' -bench AllDay -benchtime 1x -v
//	CDPPROVIDER_DAY=200 go test ./cdp/ -run '^$' -bench AllDay -benchtime 1x -v   # 200 pages, not 40
func BenchmarkAllDay(b *testing.B) {
	const pages = 4
	site := map[string]string{
		"/ad": sectionsPage("Advert", 15),
	}
	for i := range pages {
		site[fmt.Sprintf("/p%d", i)] = "" // filled below, once the cross-site origin is known
	}
	other := serve(b, map[string]string{"/x": sectionsPage("Elsewhere", 20)})
	cross := strings.Replace(other, "127.0.0.1", "localhost", 1)
	for i := range pages {
		site[fmt.Sprintf("/p%d", i)] = fmt.Sprintf(`<!doctype html><title>Page %d</title><main><h1>Page %d</h1>
<iframe src="/ad?0" id=ad></iframe><iframe src="%s/x" title=cross></iframe>%s</main><script>
let n = 1; window.__reloaded = false;
setInterval(() => { document.getElementById('ad').src = '/ad?' + (n++); }, 100);
</script>`, i, i, cross, strings.TrimPrefix(sectionsPage("", 40), "<!doctype html><title></title>"))
	}
	url := serve(b, site)
	ctx, p, u := launchFor(b, url+"/p0", Options{RestAfter: -1})
	us := u.session(b, u.tabs[0])
	day := 40
	if d := os.Getenv("CDPPROVIDER_DAY"); d != "" {
		day, _ = strconv.Atoi(d)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var marks []string
	for range b.N {
		for i := range day {
			u.navigate(b, us, 0, fmt.Sprintf("%s/p%d", url, (i+1)%pages))
			if i%4 == 0 { // a tab opened, read, closed
				r, err := cdproto.Call(ctx, u.c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: url + "/p1"})
				if err != nil {
					b.Fatal(err)
				}
				opened := r.TargetID
				if _, err := p.Current(ctx); err != nil {
					b.Fatal(err)
				}
				if _, err := cdproto.Call(ctx, u.c.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: opened}); err != nil {
					b.Fatal(err)
				}
			}
			for range 3 {
				if _, err := p.Current(ctx); err != nil {
					b.Fatal(err)
				}
			}
			if (i+1)%(day/4) == 0 {
				h := heap()
				marks = append(marks, fmt.Sprintf("%d pages: %.1f MiB", i+1, float64(h)/(1<<20)))
				b.ReportMetric(float64(h)/(1<<20), fmt.Sprintf("MiB@%d", i+1))
			}
		}
	}
	p.mu.Lock()
	st := p.state
	sessions, docs := len(st.sessions), len(st.docs)
	p.mu.Unlock()
	b.Logf("live heap: %s; the provider keeps %d sessions, %d documents numbered", strings.Join(marks, ", "), sessions, docs)
	// What is alive: the tab and its cross-site iframe; their three
	// documents (and a rotating iframe's next one, read meanwhile).
	if sessions > 2 || docs > 4 {
		b.Errorf("after %d pages the provider keeps %d sessions and %d documents; 2 and 3 are alive", day, sessions, docs)
	}
}
