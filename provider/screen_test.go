package provider

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// fakeConsole is a Windows console's output mode, as SetConsoleMode sees
// it: it takes only the modes it is told to.
type fakeConsole struct {
	mode  uint32
	takes func(mode uint32) bool
	sets  []uint32 // every mode asked for, taken or not
}

func (c *fakeConsole) set(mode uint32) error {
	c.sets = append(c.sets, mode)
	if !c.takes(mode) {
		return errors.New("The parameter is incorrect.")
	}
	c.mode = mode
	return nil
}

// enableVT asks for virtual-terminal processing and no early wrap, steps
// down to virtual-terminal processing alone (lines a column short), and
// fails when the console takes neither; what it changed, restore puts
// back.
func TestEnableVT(t *testing.T) {
	const start = 0x3 // ENABLE_PROCESSED_OUTPUT | ENABLE_WRAP_AT_EOL_OUTPUT, a console's default
	for _, c := range []struct {
		name       string
		mode       uint32
		takes      func(uint32) bool
		err        bool
		set        uint32 // the mode while the screen is up
		wrapsEarly bool
	}{
		{name: "takes both", mode: start, takes: func(uint32) bool { return true }, set: start | vtProcessing | noAutoReturn},
		{name: "no DISABLE_NEWLINE_AUTO_RETURN", mode: start, takes: func(m uint32) bool { return m&noAutoReturn == 0 }, set: start | vtProcessing, wrapsEarly: true},
		{name: "no virtual-terminal processing (an older console)", mode: start, takes: func(m uint32) bool { return m&(vtProcessing|noAutoReturn) == 0 }, err: true, set: start},
		{name: "on already (Windows Terminal)", mode: start | vtProcessing | noAutoReturn, takes: func(uint32) bool { return false }, set: start | vtProcessing | noAutoReturn},
		{name: "processing on already, no early wrap refused", mode: start | vtProcessing, takes: func(m uint32) bool { return m&noAutoReturn == 0 }, set: start | vtProcessing, wrapsEarly: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			con := &fakeConsole{mode: c.mode, takes: c.takes}
			got, err := enableVT(con.mode, con.set)
			if (err != nil) != c.err {
				t.Fatalf("enableVT = %v, want an error: %v", err, c.err)
			}
			if con.mode != c.set {
				t.Errorf("mode %#x while the screen is up, want %#x (asked %#x)", con.mode, c.set, con.sets)
			}
			if got.wrapsEarly != c.wrapsEarly {
				t.Errorf("wrapsEarly = %v, want %v", got.wrapsEarly, c.wrapsEarly)
			}
			if got.restore != nil {
				got.restore()
			}
			if con.mode != c.mode {
				t.Errorf("mode %#x after restore, want %#x as it was", con.mode, c.mode)
			}
		})
	}
}

// pollResize tells of each new size once, nothing while the size stays,
// and asks nothing more once stopped.
func TestPollResize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		cols, asked := 80, 0
		size := func() (int, int) {
			mu.Lock()
			defer mu.Unlock()
			asked++
			return cols, 24
		}
		c := make(chan struct{}, 1)
		stop := pollResize(c, size, time.Second)
		told := func() bool {
			select {
			case <-c:
				return true
			default:
				return false
			}
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if told() {
			t.Error("told of a new size when it stayed")
		}
		mu.Lock()
		cols = 120
		mu.Unlock()
		time.Sleep(time.Second)
		synctest.Wait()
		if !told() {
			t.Error("not told of the new size")
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if told() {
			t.Error("told again of a size it told of")
		}
		stop()
		mu.Lock()
		n := asked
		mu.Unlock()
		time.Sleep(3 * time.Second)
		mu.Lock()
		defer mu.Unlock()
		if asked != n {
			t.Errorf("asked the size %d more times after stop", asked-n)
		}
	})
}

// frames splits what was drawn on a terminal into its frames, each a
// list of rows without their control sequences.
func frames(out string) [][]string {
	var fs [][]string
	for _, f := range strings.Split(out, home)[1:] {
		f, _, drawn := strings.Cut(f, clearBelow)
		if !drawn {
			continue // begin's move home
		}
		var rows []string
		for _, r := range strings.Split(f, "\r\n") {
			for _, s := range []string{clearLine, styleStatus, styleFocused, styleHovered, reset} {
				r = strings.ReplaceAll(r, s, "")
			}
			rows = append(rows, r)
		}
		fs = append(fs, rows)
	}
	return fs
}

// Where no signal tells of a new terminal size (a Windows console), watch
// follows it by polling: the answer shown is drawn again to the new size.
func TestWatchFollowsResizeByPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		cols := 100
		size := func() (int, int) {
			mu.Lock()
			defer mu.Unlock()
			return cols, 40
		}
		out := &syncbuf.Buffer{}
		scr := &screen{w: out, tty: true, size: size, follow: func(c chan<- struct{}, size func() (int, int)) func() {
			return pollResize(c, size, time.Second)
		}}
		f := &watchSource{title: "A page whose title is long enough to be cut at thirty columns"}
		stop := startWatch(t, Config{Command: Watch}, f, scr, quietLog)
		synctest.Wait()
		mu.Lock()
		cols = 30
		mu.Unlock()
		time.Sleep(time.Second)
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		fs := frames(out.String())
		if len(fs) != 2 {
			t.Fatalf("%d frames drawn, want 2: the answer, and again at the new size:\n%q", len(fs), out.String())
		}
		if n := f.readsBegun(); n != 1 {
			t.Errorf("%d reads, want 1: a new size draws the answer shown again", n)
		}
		for i, want := range []int{100, 30} {
			if got := len([]rune(fs[i][0])); got != want {
				t.Errorf("frame %d: status bar of %d columns, want %d: %q", i, got, want, fs[i][0])
			}
		}
	})
}

// A console that cannot be readied for the control sequences gets each
// answer as plain blocks of lines, as a pipe does, with no control
// sequence, and the log says why.
func TestWatchConsoleFallsBackToPlainLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &syncbuf.Buffer{}
		var logged syncbuf.Buffer
		scr := &screen{w: out, tty: true, size: func() (int, int) { return 80, 24 }, stderr: &logged,
			prepare: func() (console, error) {
				return console{}, errors.New("the console does not take virtual-terminal processing")
			}}
		f := &watchSource{title: "Page 1"}
		stop := startWatch(t, Config{Command: Watch}, f, scr, slog.New(slog.NewTextHandler(&logged, nil)))
		synctest.Wait()
		f.set("Page 2")
		f.tell()
		synctest.Wait()
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out.String(), "\x1b") {
			t.Errorf("control sequences written to a console that cannot show them:\n%q", out.String())
		}
		if got := blocks(t, out.String()); len(got) != 2 {
			t.Errorf("%d blocks, want 2:\n%s", len(got), out.String())
		}
		if !strings.Contains(logged.String(), "printing each answer as lines") || !strings.Contains(logged.String(), "virtual-terminal processing") {
			t.Errorf("the log does not say why:\n%s", logged.String())
		}
	})
}

// Ctrl-C (ctx ending) gives the console back: the cursor shown, the
// normal screen, and then the mode that was changed for the screen.
func TestWatchGivesTheConsoleBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		out := &syncbuf.Buffer{}
		prepared := 0
		scr := &screen{w: out, tty: true, size: func() (int, int) { return 80, 24 },
			prepare: func() (console, error) {
				prepared++
				return console{restore: func() { fmt.Fprint(out, "<mode restored>") }}, nil
			}}
		stop := startWatch(t, Config{Command: Watch}, &watchSource{title: "Page 1"}, scr, quietLog)
		synctest.Wait()
		if strings.Contains(out.String(), "<mode restored>") {
			t.Fatal("the mode restored while the screen is up")
		}
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(out.String(), showCursor+altScreenOff+"<mode restored>") {
			t.Errorf("watch did not end with the cursor shown, the normal screen, then the mode restored: %q", out.String()[max(0, out.Len()-60):])
		}
		if prepared != 1 {
			t.Errorf("console prepared %d times, want once", prepared)
		}
	})
}

// A console that wraps as soon as a line's last column is written gets
// lines a column short, so that no full line leaves an empty one below.
func TestScreenOnAConsoleThatWrapsEarly(t *testing.T) {
	for _, c := range []struct {
		wrapsEarly bool
		width      int
	}{{false, 30}, {true, 29}} {
		out := &syncbuf.Buffer{}
		scr := &screen{w: out, tty: true, size: func() (int, int) { return 30, 6 }, console: console{wrapsEarly: c.wrapsEarly}}
		if err := scr.show(viewOf(pageAnswer("A page with a long title"), nil, 0, time.Time{})); err != nil {
			t.Fatal(err)
		}
		rows := frames(out.String())[0]
		if got := len([]rune(rows[0])); got != c.width {
			t.Errorf("wrapsEarly %v: status bar of %d columns, want %d", c.wrapsEarly, got, c.width)
		}
		for _, r := range rows {
			if n := len([]rune(r)); n > c.width {
				t.Errorf("wrapsEarly %v: row of %d columns, want at most %d: %q", c.wrapsEarly, n, c.width, r)
			}
		}
	}
}

// A write to a pipe whose reader has gone is told apart from other
// failures, with the error this system gives (EPIPE here, ERROR_NO_DATA
// on Windows).
func TestReaderGone(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r.Close()
	_, err = w.Write([]byte("x"))
	if err == nil {
		t.Fatal("a write to a pipe without a reader succeeded")
	}
	if !readerGone(err) {
		t.Errorf("readerGone(%v) = false, want true", err)
	}
	if readerGone(errors.New("disk full")) {
		t.Error("readerGone of another failure = true")
	}
}
