package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// watchSource is a source for watch whose answers the test sets, whose
// reads it can hold, and whose changes it tells.
type watchSource struct {
	fakeSource

	mu      sync.Mutex
	title   string        // the page's title in the next answer; guarded by mu
	err     error         // the next reads' error; guarded by mu
	reads   int           // reads begun; guarded by mu
	hold    chan struct{} // when not nil, each read waits to be let go
	changed func()        // what Watch was given; guarded by mu
	stopped bool          // the watch was stopped; guarded by mu
}

// Screen answers as Current: watch --screen reads it the same way.
func (f *watchSource) Screen(ctx context.Context) (*mapping.Current, error) { return f.Current(ctx) }

func (f *watchSource) Current(ctx context.Context) (*mapping.Current, error) {
	f.mu.Lock()
	f.reads++
	f.mu.Unlock()
	if f.hold != nil {
		select {
		case <-f.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	return pageAnswer(f.title), nil
}

func (f *watchSource) Watch(changed func()) (stop func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changed = changed
	return func() {
		f.mu.Lock()
		f.stopped = true
		f.mu.Unlock()
	}
}

// tell tells watch that something changed, as the browser would.
func (f *watchSource) tell() {
	f.mu.Lock()
	changed := f.changed
	f.mu.Unlock()
	changed()
}

// set makes the page's title of the next answers title.
func (f *watchSource) set(title string) {
	f.mu.Lock()
	f.title = title
	f.mu.Unlock()
}

func (f *watchSource) readsBegun() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

// pageAnswer is an answer with a page titled title, its text field
// focused and its button hovered.
func pageAnswer(title string) *mapping.Current {
	return &mapping.Current{Protocol: mapping.Protocol, Instance: "00000000-0000-4000-8000-000000000000", Root: &mapping.Element{
		ID: ".a1", Role: "Application", Title: "Chromium", States: []string{"focused"},
		Children: []*mapping.Element{{ID: ".w1", Role: "Window", Title: title, States: []string{"focused"}, Children: []*mapping.Element{
			{ID: ".l1", Role: "TabList", Children: []*mapping.Element{{ID: ".t1", Role: "Tab", Title: title, URL: "http://shop.test/", States: []string{"selected"}}}},
			{ID: ".d1", Role: "Document", Title: title, URL: "http://shop.test/", States: []string{"focused"}, Children: []*mapping.Element{
				{ID: "n1", Role: "Heading", Title: title, Level: 1},
				{ID: "n2", Role: "TextField", Title: "Email", States: []string{"focused"}},
				{ID: "n3", Role: "Button", Title: "Pay", States: []string{"hovered"}},
			}},
		}}},
	}}
}

// blocks splits what watch printed on a pipe into its blocks, checking
// that each is whole: the separator, the status, what is pointed at, the
// outline, an empty line.
func blocks(t *testing.T, out string) []string {
	t.Helper()
	if out == "" {
		return nil
	}
	if !strings.HasPrefix(out, separator+"\n") || !strings.HasSuffix(out, "\n\n") {
		t.Fatalf("watch's output is not whole blocks:\n%s", out)
	}
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(out, separator+"\n"), "\n\n"), "\n\n"+separator+"\n")
	return parts
}

var quietLog = slog.New(slog.DiscardHandler)

// startWatch runs watch in the bubble until the returned stop, which
// cancels it and returns its error.
func startWatch(t *testing.T, cfg Config, f *watchSource, scr *screen, log *slog.Logger) (stop func() error) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- watch(ctx, cfg, f, scr, log) }()
	return func() error {
		cancel()
		return <-done
	}
}

// On a pipe: an outline when watch starts, then one more for each change
// told; a change told after which the answer is the same prints nothing.
func TestWatchPrintsOneOutlinePerChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &watchSource{title: "Page 1"}
		out := &syncbuf.Buffer{}
		stop := startWatch(t, Config{Command: Watch}, f, &screen{w: out}, quietLog)

		synctest.Wait()
		if got := blocks(t, out.String()); len(got) != 1 {
			t.Fatalf("after the start: %d outlines, want 1:\n%s", len(got), out)
		}
		f.set("Page 2")
		f.tell()
		synctest.Wait()
		if got := blocks(t, out.String()); len(got) != 2 {
			t.Fatalf("after a change: %d outlines, want 2:\n%s", len(got), out)
		}
		f.tell() // nothing changed after all
		synctest.Wait()
		if n := f.readsBegun(); n != 3 {
			t.Errorf("%d reads after three signals, want 3", n)
		}
		if got := blocks(t, out.String()); len(got) != 2 {
			t.Fatalf("after a signal with no change: %d outlines, want still 2:\n%s", len(got), out)
		}
		f.set("Page 3")
		f.tell()
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatalf("watch ended with %v, want nil", err)
		}
		got := blocks(t, out.String())
		if len(got) != 3 {
			t.Fatalf("%d outlines, want 3:\n%s", len(got), out)
		}
		for i, b := range got {
			title := []string{"Page 1", "Page 2", "Page 3"}[i]
			lines := strings.Split(b, "\n")
			if !strings.HasPrefix(lines[0], "Chromium · "+title+" <http://shop.test/> · 8 elements · read ") {
				t.Errorf("outline %d: status line %q", i, lines[0])
			}
			if want := `» focused: TextField Email #n2   » hovered: Button Pay #n3`; lines[1] != want {
				t.Errorf("outline %d: pointing line %q, want %q", i, lines[1], want)
			}
			var outline strings.Builder
			mapping.Outline(&outline, pageAnswer(title).Root)
			if got := strings.Join(lines[2:], "\n") + "\n"; got != outline.String() {
				t.Errorf("outline %d:\n%s\nwant current's outline:\n%s", i, got, outline.String())
			}
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.stopped {
			t.Error("watch did not stop its Watcher")
		}
	})
}

// Signals that come while a read is under way make one more read after
// it, not one each.
func TestWatchCoalescesBursts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &watchSource{title: "Page 1", hold: make(chan struct{})}
		out := &syncbuf.Buffer{}
		stop := startWatch(t, Config{Command: Watch}, f, &screen{w: out}, quietLog)

		synctest.Wait() // the first read waits
		for range 10 {
			f.tell()
		}
		f.hold <- struct{}{} // the first read ends
		synctest.Wait()      // the next one waits
		f.set("Page 2")
		f.hold <- struct{}{}
		synctest.Wait()
		if n := f.readsBegun(); n != 2 {
			t.Errorf("%d reads for a burst of 10 signals during the first read, want 2", n)
		}
		if got := blocks(t, out.String()); len(got) != 2 || !strings.Contains(got[1], `Heading Page 2`) {
			t.Errorf("want two outlines, the second of Page 2:\n%s", out)
		}
		// A burst while nothing is read: at most one read per signal,
		// and the last state shown.
		f.set("Page 3")
		close(f.hold) // reads go on at once from now on
		f.tell()
		f.tell()
		synctest.Wait()
		if got := blocks(t, out.String()); !strings.Contains(got[len(got)-1], `Heading Page 3`) {
			t.Errorf("the last outline is not of Page 3:\n%s", out)
		}
		if err := stop(); err != nil {
			t.Errorf("watch ended with %v", err)
		}
	})
}

// --json: one compact answer per line, one per change, nothing else.
func TestWatchJSONOneLinePerChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &watchSource{title: "Page 1"}
		out := &syncbuf.Buffer{}
		stop := startWatch(t, Config{Command: Watch, JSON: true}, f, &screen{w: out}, quietLog)
		synctest.Wait()
		for _, title := range []string{"Page 2", "Page 2", "Page 3"} {
			f.set(title)
			f.tell()
			synctest.Wait()
		}
		if err := stop(); err != nil {
			t.Fatalf("watch ended with %v", err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("%d lines for 3 different answers, want 3:\n%s", len(lines), out)
		}
		for i, l := range lines {
			want, _ := json.Marshal(pageAnswer([]string{"Page 1", "Page 2", "Page 3"}[i]))
			if l != string(want) {
				t.Errorf("line %d:\n%s\nwant\n%s", i, l, want)
			}
		}
	})
}

// On a terminal: the alternate screen with the cursor hidden while watch
// runs; when ctx ends (Ctrl-C), the cursor shown and the normal screen
// back, and no error. The focused and hovered lines are in their colours.
func TestWatchTerminalEndsCleanly(t *testing.T) {
	for _, during := range []string{"waiting", "reading"} {
		t.Run(during, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := &watchSource{title: "Page 1"}
				out := &syncbuf.Buffer{}
				scr := &screen{w: out, tty: true, size: func() (int, int) { return 100, 40 }}
				stop := startWatch(t, Config{Command: Watch}, f, scr, quietLog)
				synctest.Wait()
				if during == "reading" {
					f.hold = make(chan struct{}) // read by watch only after tell
					f.tell()
					synctest.Wait()
				}
				if err := stop(); err != nil {
					t.Fatalf("watch ended with %v, want nil", err)
				}
				got := out.String()
				if !strings.HasPrefix(got, altScreenOn+hideCursor) {
					t.Errorf("watch did not begin with the alternate screen and the cursor hidden: %q", got[:min(40, len(got))])
				}
				if !strings.HasSuffix(got, showCursor+altScreenOff) {
					t.Errorf("watch did not end with the cursor shown and the normal screen: %q", got[max(0, len(got)-40):])
				}
				if strings.Contains(got, "failed") {
					t.Errorf("the read stopped by Ctrl-C is shown as a failure:\n%q", got)
				}
				for _, want := range []string{
					styleFocused + `   TextField Email [focused] #n2` + reset,
					styleHovered + `   Button Pay [hovered] #n3` + reset,
				} {
					if !strings.Contains(got, want) {
						t.Errorf("the screen lacks %q:\n%q", want, got)
					}
				}
			})
		})
	}
}

// On a terminal shorter than the outline, the part with the focused
// element is shown, and a footer says which part; lines are cut to the
// terminal's width.
func TestWatchTerminalFits(t *testing.T) {
	var out bytes.Buffer
	scr := &screen{w: &out, tty: true, size: func() (int, int) { return 30, 6 }}
	v := viewOf(pageAnswer("A page with a long title"), nil, 0, time.Time{})
	if err := scr.show(v); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(strings.TrimPrefix(out.String(), home), clearLine+clearBelow), clearLine+"\r\n")
	if len(rows) != 6 {
		t.Fatalf("%d rows on a terminal of 6:\n%q", len(rows), rows)
	}
	if !strings.Contains(rows[3], styleFocused) || !strings.Contains(rows[3], "TextField") {
		t.Errorf("the focused line is not shown, in orange:\n%q", rows)
	}
	if !strings.Contains(rows[5], "(lines 6-8 of 8)") {
		t.Errorf("footer %q, want the lines shown", rows[5])
	}
	for _, r := range rows {
		plain := r
		for _, s := range []string{styleStatus, styleFocused, styleHovered, reset} {
			plain = strings.ReplaceAll(plain, s, "")
		}
		if n := len([]rune(plain)); n > 30 {
			t.Errorf("row of %d characters on a terminal of 30: %q", n, plain)
		}
	}
}

// A read that fails is logged once however often it fails, the pipe gets
// nothing for it, and the next answer is printed even when it equals the
// one before the failure. On a terminal the log waits until watch ends.
func TestWatchReadFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &watchSource{title: "Page 1"}
		out := &syncbuf.Buffer{}
		var logged syncbuf.Buffer
		log := slog.New(slog.NewTextHandler(&logged, nil))
		stop := startWatch(t, Config{Command: Watch}, f, &screen{w: out}, log)
		synctest.Wait()
		f.mu.Lock()
		f.err = &cdp.Failure{Kind: cdp.ReasonRestarting, Err: errors.New("the browser went away")}
		f.mu.Unlock()
		f.tell()
		synctest.Wait()
		f.tell()
		synctest.Wait()
		f.mu.Lock()
		f.err = nil
		f.mu.Unlock()
		f.tell()
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(logged.String(), "the browser went away"); n != 1 {
			t.Errorf("the failure logged %d times, want once:\n%s", n, logged.String())
		}
		// With the command line's advice for its reason (the browser is
		// found by auto, the default).
		if !strings.Contains(logged.String(), "advice=") || !strings.Contains(logged.String(), "chrome://inspect/#remote-debugging") {
			t.Errorf("the failure is logged without the command line's advice:\n%s", logged.String())
		}
		if got := blocks(t, out.String()); len(got) != 2 {
			t.Errorf("%d outlines, want 2: before the failure and after it:\n%s", len(got), out)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f := &watchSource{title: "Page 1", err: errors.New("the browser went away")}
		term := &syncbuf.Buffer{}
		scr := &screen{w: term, tty: true, size: func() (int, int) { return 80, 24 }, held: &heldWriter{w: term}}
		stop := startWatch(t, Config{Command: Watch}, f, scr, slog.New(slog.NewTextHandler(scr.logWriter(), nil)))
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		got := term.String()
		end := strings.Index(got, showCursor+altScreenOff)
		logged := strings.Index(got, "level=WARN")
		shown := strings.Index(got, "the browser went away")
		if end < 0 || logged < end || shown > end {
			t.Errorf("want the failure shown on the screen, and logged after the terminal is given back:\n%q", got)
		}
	})
}

// A reader of stdout that went away (watch | head) ends watch cleanly.
func TestWatchReaderGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &watchSource{title: "Page 1"}
		done := make(chan error, 1)
		go func() { done <- watch(t.Context(), Config{Command: Watch}, f, &screen{w: brokenPipe{}}, quietLog) }()
		synctest.Wait()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("watch with its reader gone = %v, want nil", err)
			}
		default:
			t.Error("watch goes on with its reader gone")
		}
	})
}

func TestWindow(t *testing.T) {
	for _, c := range []struct {
		n, rows, at, alt int
		from, to         int
		footer           bool
	}{
		{n: 10, rows: 0, at: 5, alt: -1, from: 0, to: 10},
		{n: 10, rows: 10, at: 5, alt: -1, from: 0, to: 10},
		{n: 100, rows: 11, at: 50, alt: -1, from: 45, to: 55, footer: true},
		{n: 100, rows: 11, at: -1, alt: 98, from: 90, to: 100, footer: true},
		{n: 100, rows: 11, at: -1, alt: -1, from: 0, to: 10, footer: true},
		{n: 100, rows: 1, at: 3, alt: -1, from: 3, to: 4, footer: true},
	} {
		from, to, footer := window(c.n, c.rows, c.at, c.alt)
		if from != c.from || to != c.to || footer != c.footer {
			t.Errorf("window(%d, %d, %d, %d) = %d, %d, %v, want %d, %d, %v", c.n, c.rows, c.at, c.alt, from, to, footer, c.from, c.to, c.footer)
		}
	}
}

// signalWriter tells when it is first written to.
type signalWriter struct {
	syncbuf.Buffer
	once    sync.Once
	written chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	w.once.Do(func() { close(w.written) })
	return n, err
}

// Run's watch: the outline of the source it opened, until ctx ends (as
// on Ctrl-C), then nil and the source closed.
func TestRunWatch(t *testing.T) {
	f := &fakeSource{}
	out := runWatchOnce(t, Config{Command: Watch, Connect: "127.0.0.1:9222"}, f)
	if !strings.HasPrefix(out.String(), separator+"\n") || !strings.Contains(out.String(), `Window Harbor Books: checkout`) {
		t.Errorf("watch printed:\n%s", out.String())
	}
	if !f.closed {
		t.Error("source not closed")
	}
}

// runWatchOnce runs watch with cfg on f until it has printed, then ends
// it as Ctrl-C does, and returns what it printed.
func runWatchOnce(t *testing.T, cfg Config, f *fakeSource) *signalWriter {
	t.Helper()
	out := &signalWriter{written: make(chan struct{})}
	var stderr syncbuf.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, cfg, nil, out, &stderr, opener(f))
	}()
	select {
	case <-out.written:
	case err := <-done:
		t.Fatalf("watch ended before printing: %v\n%s", err, stderr.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch ended with %v, want nil", err)
	}
	return out
}

// With --depth watch prints the outline cut to that depth, what was cut
// counted, while the status and the pointing line speak of the whole
// answer; a change below the cut prints nothing new.
func TestWatchDepth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &watchSource{title: "Page 1"}
		out := &syncbuf.Buffer{}
		stop := startWatch(t, Config{Command: Watch, Depth: new(1)}, f, &screen{w: out}, quietLog)
		synctest.Wait()
		f.set("Page 2") // the Window's title: below depth 0, not 1
		f.tell()
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatalf("watch ended with %v, want nil", err)
		}
		got := blocks(t, out.String())
		if len(got) != 2 {
			t.Fatalf("%d outlines, want 2:\n%s", len(got), out)
		}
		lines := strings.Split(got[1], "\n")
		if !strings.HasPrefix(lines[0], "Chromium · Page 2 <http://shop.test/> · 8 elements · read ") {
			t.Errorf("status line %q, want the whole answer's", lines[0])
		}
		if want := `» focused: TextField Email #n2   » hovered: Button Pay #n3`; lines[1] != want {
			t.Errorf("pointing line %q, want %q", lines[1], want)
		}
		want := `Application Chromium [focused] #.a1` + "\n" + ` Window Page 2 [focused] (+6 omitted) #.w1`
		if got := strings.Join(lines[2:], "\n"); got != want {
			t.Errorf("outline:\n%s\nwant:\n%s", got, want)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f := &watchSource{title: "Page 1"}
		out := &syncbuf.Buffer{}
		stop := startWatch(t, Config{Command: Watch, Depth: new(0), JSON: true}, f, &screen{w: out}, quietLog)
		synctest.Wait()
		f.set("Page 2") // below the cut
		f.tell()
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatalf("watch ended with %v, want nil", err)
		}
		want := `{"protocol":"0.2.0","instance":"00000000-0000-4000-8000-000000000000","root":{"id":".a1","role":"Application","title":"Chromium","states":["focused"],"omitted":7}}` + "\n"
		if got := out.String(); got != want {
			t.Errorf("watch --json --depth 0 printed:\n%s\nwant one line:\n%s", got, want)
		}
	})
}
