package bench

import (
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestPagesAreDeterministicAndShaped(t *testing.T) {
	for _, pg := range Pages {
		html := pg.HTML()
		if again := pg.HTML(); again != html {
			t.Errorf("%s: two generations differ", pg.Name)
		}
		if got := strings.Count(html, "<section "); got != pg.Sections {
			t.Errorf("%s: %d sections, want %d", pg.Name, got, pg.Sections)
		}
		if got := strings.Contains(html, `<iframe src="frame.html"`); got != pg.Iframe {
			t.Errorf("%s: iframe present = %v, want %v", pg.Name, got, pg.Iframe)
		}
		if !strings.Contains(html, `id="h-0"`) && pg.Sections > 0 {
			t.Errorf("%s: no heading h-0 for BenchmarkRead/changed to edit", pg.Name)
		}
		if !strings.HasSuffix(html, "</body></html>\n") {
			t.Errorf("%s: does not end with the footer", pg.Name)
		}
	}
}

// pinned are the SHA-256 digests of the pages the published numbers were
// measured on (README.md, ANCHORS.md), the peers' included: a change to
// the generator makes new pages, whose numbers no longer compare.
var pinned = map[string]string{
	"frame.html": "666700032e010cf9b58cee733e3d82dc1e51c030772f35d4842b6a8c277baca2",
	"p100.html":  "48e3c0ae25de084c67953e9cec13bd4a36b264c919e39eefedde88a64446fb36",
	"p1k.html":   "86df371c45fcdbeac423e04a06e4ff8b6459be90e816259c8d66a0502ad42113",
	"p10k.html":  "8af399eb3e8e9883fac29c727e870fa38cb0dd666080c597ef227e0d76fc2c5e",
	"p50k.html":  "4a71a40890358db8c4c27ad63a853b65f99e796b240cd0b0536bb7dd407beeae",
}

// TestPagesArePinned checks that the generator still makes, byte for
// byte, the pages the published numbers were measured on.
func TestPagesArePinned(t *testing.T) {
	got := map[string]string{"frame.html": FrameHTML}
	for _, pg := range append([]Page{Small}, Pages...) {
		got[pg.File] = pg.HTML()
	}
	for file, html := range got {
		sum := fmt.Sprintf("%x", sha256.Sum256([]byte(html)))
		if want, ok := pinned[file]; !ok || sum != want {
			t.Errorf("%s: SHA-256 %s, want %s: the page changed, so numbers measured on it no longer compare (update pinned, and remeasure)", file, sum, want)
		}
	}
	if len(got) != len(pinned) {
		t.Errorf("%d pages generated, %d pinned", len(got), len(pinned))
	}
}

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for path, want := range map[string]int{"/p1k.html": 200, "/p10k.html": 200, "/p50k.html": 200, "/p100.html": 200, "/frame.html": 200, "/": 404, "/p5k.html": 404} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
		if want == 200 && (!strings.HasPrefix(string(body), "<!doctype html>") || resp.Header.Get("Cache-Control") != "no-store") {
			t.Errorf("GET %s: not an uncached HTML page: %q %.40q", path, resp.Header.Get("Cache-Control"), body)
		}
	}
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tcdpprovider\nVmPeak:\t 1300000 kB\nVmHWM:\t   51200 kB\nVmRSS:\t   40960 kB\nThreads:\t9\n"
	hwm, rss, ok := parseStatus(status)
	if !ok || hwm != 50 || rss != 40 {
		t.Errorf("parseStatus = %v, %v, %v; want 50, 40, true", hwm, rss, ok)
	}
	if _, _, ok := parseStatus("Name:\tx\n"); ok {
		t.Error("parseStatus without VmHWM and VmRSS: ok, want not ok")
	}
}

func TestMedianSpreadAndFormat(t *testing.T) {
	ms := time.Millisecond
	if got := (samples{5 * ms, 1 * ms, 3 * ms}).median(); got != 3*ms {
		t.Errorf("median of 5,1,3 = %v, want 3ms", got)
	}
	if got := (samples{4 * ms, 1 * ms, 3 * ms, 2 * ms}).median(); got != 2500*time.Microsecond {
		t.Errorf("median of 4,1,3,2 = %v, want 2.5ms", got)
	}
	if got := (samples{}).median(); got != 0 {
		t.Errorf("median of nothing = %v, want 0", got)
	}
	if got := spread([]string{"a", "b", "c", "d", "e", "f"}, 3); strings.Join(got, "") != "ace" {
		t.Errorf("spread 6 to 3 = %v, want a c e", got)
	}
	for in, want := range map[string]string{"1": "1", "123": "123", "1234": "1,234", "50029": "50,029", "1234567": "1,234,567"} {
		if got := commas(in); got != want {
			t.Errorf("commas(%s) = %s, want %s", in, got, want)
		}
	}
	if got := timed(2400*ms, 2000*ms); got != "2,400 ms (1.20×)" {
		t.Errorf("timed = %q", got)
	}
	if got := timed(0, 2000*ms); got != "–" {
		t.Errorf("timed of nothing = %q, want –", got)
	}
}

func TestSummary(t *testing.T) {
	saved := results
	defer func() { results = saved }()
	results = &table{rows: map[string]*row{}}
	ms := time.Millisecond
	*results.row("10k") = row{nodes: 9904, elements: 3555, raw: 500 * ms, rawFirst: 500 * ms, cold: 550 * ms, coldRatio: 1.1, warm: 60 * ms, changed: 80 * ms, changedFast: 200 * ms, changedNew: 150 * ms, afterLoad: 40 * ms, locate: 1500 * time.Microsecond, at: 16 * ms, rawAgain: 520 * ms, loadCPU: 120 * ms, loadCPUWalked: 410 * ms}
	*results.row("50k") = row{raw: 2000 * ms, warm: 300 * ms, hwm: 160}
	var b strings.Builder
	printSummary(&b)
	for _, want := range []string{
		"| 10k | 9,904 | 3,555 | 500 ms | 500 ms (1.00×) | 550 ms (1.10×) | 60.0 ms (0.12×) | 80.0 ms (0.16×) | 200 ms (0.40×) | 150 ms (0.30×) | 40.0 ms (0.08×) | 1.50 ms | 16.0 ms | 520 ms (1.04×) | – | – |",
		"| 50k | – | – | 2,000 ms | – | – | 300 ms (0.15×) | – | – | – | – | – | – | – | – | 160 MB |",
		"| at median at 10k ≤ 15 ms | 16.00 ms | **no** |",
		"| cold read at 10k ≤ 1.0× raw (a session's first call) | 1.10× | **no** |",
		"| first read 1 s after a load at 10k ≤ 0.1× raw | 0.08× | yes |",
		"| unchanged page read again at 10k ≤ 0.15× raw (warm tree or last fetch) | 0.12× | yes |",
		"| unchanged page read again at 50k ≤ 0.12× raw (warm tree or last fetch) | 0.15× | **no** |",
		"| read again, unchanged | read right after a change, 1 s pauses | the same, 100 ms pauses | the same, 1 s pauses, from the first read | first read 1 s after a load |",
		"| locate median at 10k ≤ 2 ms | 1.50 ms | yes |",
		"| peak RSS with the 50k page open ≤ 100 MB | 160 MB | **no** |",
		"| 10k | 120 ms | 410 ms | +290 ms |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
