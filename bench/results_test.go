package bench

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/wiresize"
)

// The project's targets, on its 2-core machines (README.md).
const (
	targetWarm10k = 0.15 // unchanged page read again at 10k, times raw getFullAXTree
	targetWarm50k = 0.12 // the same at 50k
	targetCold    = 1.0  // cold read (the first after a navigation), times a session's first raw call
	targetLoad    = 0.1  // the first read 1 s after a load, times raw
	targetLocate  = 2 * time.Millisecond
	targetAt      = 15 * time.Millisecond // at at 10k
	targetPeakMB  = 100.0                 // peak RSS of the binary with the 50k page open

	// The served answer's bytes per element beyond its text fields
	// (wiresize.Report.BeyondFields), under this.
	targetBytesPerElement = 40.0
)

// samples are the durations of one benchmark's operations.
type samples []time.Duration

func (s *samples) add(d time.Duration) { *s = append(*s, d) }

// median is the middle duration (the mean of the two middle ones for an
// even count); zero for no samples.
func (s samples) median() time.Duration {
	if len(s) == 0 {
		return 0
	}
	x := slices.Clone(s)
	slices.Sort(x)
	if len(x)%2 == 1 {
		return x[len(x)/2]
	}
	return (x[len(x)/2-1] + x[len(x)/2]) / 2
}

// report adds the median in ms and, when raw is known, the median as a
// multiple of raw to the benchmark's line.
func (s samples) report(b *testing.B, raw time.Duration) {
	m := s.median()
	b.ReportMetric(ms(m), "median-ms")
	if raw > 0 {
		b.ReportMetric(float64(m)/float64(raw), "x-raw")
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// medianOf is the middle value (the mean of the two middle ones for an
// even count); zero for none.
func medianOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	x = slices.Clone(x)
	slices.Sort(x)
	if len(x)%2 == 1 {
		return x[len(x)/2]
	}
	return (x[len(x)/2-1] + x[len(x)/2]) / 2
}

// row is what was measured on one page; zero means not measured in this
// run (filtered out by -bench, or failed).
type row struct {
	nodes    int             // AX nodes of the main frame, from getFullAXTree
	elements int             // elements of a cold read's answer
	size     wiresize.Report // the served answer's JSON, measured

	// The medians of the benchmarks of BenchmarkRead and BenchmarkServe.
	raw, cold, warm, changed, locate, served time.Duration
	// at is what is at the centre of a button or link, the page unchanged.
	at time.Duration
	// changedFast is the agent loop with 100 ms pauses (changed: 1 s);
	// changedNew the loop with 1 s pauses from a new provider's first
	// read (its walk under way); afterLoad the first read a second after
	// a load.
	changedFast, changedNew, afterLoad time.Duration
	// loadCPU is the renderers' CPU time per load of the page with no
	// provider attached, loadCPUWalked with the provider's fetch, read
	// and walk of the new document.
	loadCPU, loadCPUWalked time.Duration
	// screen is a read of the screen of the unchanged page.
	screen time.Duration
	// screenAfterLoad is the first read of the screen 300 ms after a
	// load.
	screenAfterLoad time.Duration
	// rawFirst is getFullAXTree as the first call of a new session, what
	// a cold read is compared with (Chrome builds the session's tree).
	rawFirst time.Duration
	// coldRatio is the median over the cold reads of each one's ratio to
	// a raw first call made next to it.
	coldRatio float64
	// rawAgain is raw measured once more after the page's other reads:
	// far from raw, the machine's load changed and the ratios are suspect.
	rawAgain time.Duration

	hwm, rss float64 // peak and current RSS of the served binary, MB
}

// table is the rows of one run by page name.
type table struct{ rows map[string]*row }

// results collects the rows of this run for the summary TestMain prints.
var results = &table{rows: map[string]*row{}}

// row returns the page's row, adding it when new.
func (rs *table) row(name string) *row {
	r := rs.rows[name]
	if r == nil {
		r = &row{}
		rs.rows[name] = r
	}
	return r
}

// printSummary writes the run's results as two markdown tables: the
// times, each with its ratio to the raw call, and the project's targets.
func printSummary(w io.Writer) {
	fmt.Fprintf(w, "\n## cdpprovider bench, %s, %s, %s/%s, %d CPUs, -settle %v\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), orNA(env.product), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), *settle)
	fmt.Fprintln(w, "Medians; (×) is the ratio to the raw getFullAXTree of the same page in this run, its nodes decoded as a read decodes them;")
	fmt.Fprintln(w, "\"raw again\" is that call once more after the page's reads (far from 1.00×: the load changed).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "\"read again, unchanged\" is a provider that has read the page reading it again: from its warm tree once its background walk")
	fmt.Fprintln(w, "has ended, from its last full fetch until then (the benchmark cannot tell which); \"read right after a change\" is the agent loop:")
	fmt.Fprintln(w, "an edit, a read at once (timed), a pause, by a provider whose walk of the page has ended; \"… from the first read\" is the same loop")
	fmt.Fprintln(w, "begun right after a new provider's first read, its walk under way (as bench/peers times it); \"first read 1 s after a load\"")
	fmt.Fprintln(w, "reloads the page and reads a second later.")
	fmt.Fprintln(w, "\"MCP read again\" is the unchanged page read again through the binary, over stdio.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "\"raw, first\" is the call as a new session's first, which builds the session's tree: the cold read is compared with it,")
	fmt.Fprintln(w, "each cold read with a raw first call made next to it (the median of those ratios), since the machine's speed drifts.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| page | AX nodes | elements | raw getFullAXTree | raw, first | cold read (× raw, first) | read again, unchanged | read right after a change, 1 s pauses | the same, 100 ms pauses | the same, 1 s pauses, from the first read | first read 1 s after a load | locate | at | raw again | MCP read again, unchanged (binary) | peak RSS (binary) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, pg := range Pages {
		r, ok := results.rows[pg.Name]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", pg.Name,
			count0(r.nodes), count0(r.elements), timed(r.raw, 0), timed(r.rawFirst, r.raw), timedRatio(r.cold, r.coldRatio), timed(r.warm, r.raw),
			timed(r.changed, r.raw), timed(r.changedFast, r.raw), timed(r.changedNew, r.raw), timed(r.afterLoad, r.raw), timed(r.locate, 0), timed(r.at, 0), timed(r.rawAgain, r.raw), timed(r.served, r.raw), mb(r.hwm))
	}
	fmt.Fprintln(w)
	cpuRows := 0
	for _, pg := range Pages {
		r, ok := results.rows[pg.Name]
		if !ok || r.loadCPU == 0 || r.loadCPUWalked == 0 {
			continue
		}
		if cpuRows == 0 {
			fmt.Fprintln(w, "What a load costs the browser: the renderers' CPU time per load of the page, alone (reload, then a second), and with")
			fmt.Fprintln(w, "the provider's work at the load (its fetch of the new document, the read a second later, and its walk, until that ends).")
			fmt.Fprintln(w)
			fmt.Fprintln(w, "| page | renderer CPU per load, alone | with the provider's fetch, read and walk | the provider's share |")
			fmt.Fprintln(w, "|---|---|---|---|")
		}
		cpuRows++
		fmt.Fprintf(w, "| %s | %.0f ms | %.0f ms | +%.0f ms |\n", pg.Name, ms(r.loadCPU), ms(r.loadCPUWalked), ms(r.loadCPUWalked-r.loadCPU))
	}
	if cpuRows > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| target | measured | met |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, t := range goals() {
		fmt.Fprintf(w, "| %s | %s | %s |\n", t.what, t.got, t.met)
	}
	fmt.Fprintln(w)
}

// goal is one line of the targets table.
type goal struct{ what, got, met string }

func goals() []goal {
	var ts []goal
	ratio := func(what string, d, raw time.Duration, limit float64) {
		if d == 0 || raw == 0 {
			return
		}
		x := float64(d) / float64(raw)
		ts = append(ts, goal{what, fmt.Sprintf("%.2f×", x), yes(x <= limit)})
	}
	if r := results.rows["10k"]; r != nil {
		ratio("unchanged page read again at 10k ≤ 0.15× raw (warm tree or last fetch)", r.warm, r.raw, targetWarm10k)
	}
	if r := results.rows["50k"]; r != nil {
		ratio("unchanged page read again at 50k ≤ 0.12× raw (warm tree or last fetch)", r.warm, r.raw, targetWarm50k)
	}
	for _, pg := range Pages {
		if r := results.rows[pg.Name]; r != nil {
			if r.coldRatio > 0 {
				ts = append(ts, goal{"cold read at " + pg.Name + " ≤ 1.0× raw (a session's first call)", fmt.Sprintf("%.2f×", r.coldRatio), yes(r.coldRatio <= targetCold)})
			}
		}
	}
	for _, pg := range Pages {
		if r := results.rows[pg.Name]; r != nil {
			ratio("first read 1 s after a load at "+pg.Name+" ≤ 0.1× raw", r.afterLoad, r.raw, targetLoad)
		}
	}
	for _, pg := range Pages {
		if r := results.rows[pg.Name]; r != nil && r.locate > 0 {
			ts = append(ts, goal{"locate median at " + pg.Name + " ≤ 2 ms", fmt.Sprintf("%.2f ms", ms(r.locate)), yes(r.locate <= targetLocate)})
		}
	}
	if r := results.rows["10k"]; r != nil && r.at > 0 {
		ts = append(ts, goal{"at median at 10k ≤ 15 ms", fmt.Sprintf("%.2f ms", ms(r.at)), yes(r.at <= targetAt)})
	}
	for _, pg := range Pages {
		if r := results.rows[pg.Name]; r != nil && r.size.Elements > 0 {
			x := r.size.BeyondFields()
			ts = append(ts, goal{"answer bytes per element beyond its text at " + pg.Name + " < 40", fmt.Sprintf("%.1f", x), yes(x < targetBytesPerElement)})
		}
	}
	if r := results.rows["50k"]; r != nil && r.hwm > 0 {
		ts = append(ts, goal{"peak RSS with the 50k page open ≤ 100 MB", mb(r.hwm), yes(r.hwm <= targetPeakMB)})
	}
	return ts
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// timed formats a median, with its ratio to raw when raw is given.
func timed(d, raw time.Duration) string {
	if d == 0 {
		return "–"
	}
	s := fmt.Sprintf("%s ms", num(ms(d)))
	if raw > 0 {
		s += fmt.Sprintf(" (%.2f×)", float64(d)/float64(raw))
	}
	return s
}

// timedRatio is timed with a ratio computed elsewhere.
func timedRatio(d time.Duration, x float64) string {
	if d == 0 {
		return "–"
	}
	s := fmt.Sprintf("%s ms", num(ms(d)))
	if x > 0 {
		s += fmt.Sprintf(" (%.2f×)", x)
	}
	return s
}

// num prints a millisecond count with about three significant digits.
func num(v float64) string {
	switch {
	case v >= 100:
		return commas(fmt.Sprintf("%.0f", v))
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// commas groups the digits of an integer string by thousands.
func commas(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func count0(n int) string {
	if n == 0 {
		return "–"
	}
	return commas(fmt.Sprint(n))
}

func mb(v float64) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MB", v)
}

func orNA(s string) string {
	if s == "" {
		return "browser n/a"
	}
	return s
}
