package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestPagesMatchAnchors holds the pages to those of the anchors'
// generator, pages.mjs, byte for byte, through the SHA-256 sums of its
// output recorded in testdata/anchors.sha256 (so the test needs neither
// node nor the anchors). With $ANCHORS naming a copy of the anchors, it
// also runs their pages.mjs with node and compares with what it writes:
// then a missing node or pages.mjs fails the test, and a difference
// prints the sums to record.
func TestPagesMatchAnchors(t *testing.T) {
	want := map[string]string{"frame.html": FrameHTML}
	for _, pg := range Pages {
		want[pg.File] = pg.HTML()
	}
	recorded := readSums(t, filepath.Join("testdata", "anchors.sha256"))
	for file, got := range want {
		sum, ok := recorded[file]
		if !ok {
			t.Errorf("testdata/anchors.sha256 has no sum for %s", file)
			continue
		}
		if h := sha256Hex(got); h != sum {
			t.Errorf("%s (%d bytes) has SHA-256 %s, the anchors' page %s", file, len(got), h, sum)
		}
	}
	if len(recorded) != len(want) {
		t.Errorf("testdata/anchors.sha256 has %d sums, the pages are %d", len(recorded), len(want))
	}

	dir := os.Getenv("ANCHORS")
	if dir == "" {
		return
	}
	script := filepath.Join(dir, "pages.mjs")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("$ANCHORS=%s: %v", dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("$ANCHORS is set but there is no node on PATH to run pages.mjs: %v", err)
	}
	out := t.TempDir()
	if b, err := exec.Command(node, script, "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("node pages.mjs: %v\n%s", err, b)
	}
	var sums strings.Builder
	for _, file := range slices.Sorted(maps.Keys(want)) {
		b, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Errorf("pages.mjs wrote no %s: %v", file, err)
			continue
		}
		fmt.Fprintf(&sums, "%s  %s\n", sha256Hex(string(b)), file)
		if got := want[file]; string(b) != got {
			t.Errorf("%s differs from the anchors' (%d bytes here, %d there) at byte %d", file, len(got), len(b), firstDiff(got, string(b)))
		}
	}
	if t.Failed() {
		t.Logf("the sums of the anchors' pages, for testdata/anchors.sha256:\n%s", sums.String())
	}
}

// readSums reads a sha256sum listing: file name to hex sum.
func readSums(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for line := range strings.Lines(string(b)) {
		sum, file, ok := strings.Cut(strings.TrimSpace(line), "  ")
		if !ok {
			t.Fatalf("%s: malformed line %q", path, line)
		}
		sums[file] = sum
	}
	return sums
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestHandler(t *testing.T) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	for path, want := range map[string]int{"/p1k.html": 200, "/p10k.html": 200, "/p50k.html": 200, "/frame.html": 200, "/": 404, "/p100.html": 404} {
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
	*results.row("10k") = row{nodes: 9904, elements: 3555, raw: 500 * ms, rawFirst: 500 * ms, cold: 550 * ms, coldRatio: 1.1, warm: 60 * ms, changed: 80 * ms, locate: 1500 * time.Microsecond, rawAgain: 520 * ms}
	*results.row("50k") = row{raw: 2000 * ms, warm: 300 * ms, hwm: 160}
	var b strings.Builder
	printSummary(&b)
	for _, want := range []string{
		"| 10k | 9,904 | 3,555 | 500 ms | 500 ms (1.00×) | 550 ms (1.10×) | 60.0 ms (0.12×) | 80.0 ms (0.16×) | 1.50 ms | 520 ms (1.04×) | – | – |",
		"| cold read at 10k ≤ 1.2× raw (a session's first call) | 1.10× | yes |",
		"| unchanged page read again at 10k ≤ 0.15× raw (warm tree or last fetch) | 0.12× | yes |",
		"| unchanged page read again at 50k ≤ 0.12× raw (warm tree or last fetch) | 0.15× | **no** |",
		"| read again, unchanged | read right after a change |",
		"| locate median at 10k ≤ 2 ms | 1.50 ms | yes |",
		"| peak RSS with the 50k page open ≤ 150 MB | 160 MB | **no** |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
