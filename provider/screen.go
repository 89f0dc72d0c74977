package provider

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// screen is where watch shows what it reads: stdout, a terminal or not.
// On a terminal (and not --json) each answer is drawn in place on the
// terminal's alternate screen, cut to its size, the focused and hovered
// elements' lines in colour; elsewhere (a pipe, a file), and on a console
// that cannot show control sequences, each answer is a block of lines of
// its own, to be logged.
type screen struct {
	w io.Writer
	// tty says w is a terminal to redraw in place.
	tty bool
	// size returns the terminal's columns and rows; 0, 0 when unknown
	// (then nothing is cut).
	size func() (cols, rows int)
	// prepare readies the terminal for the control sequences when the
	// screen goes up (a Windows console's virtual-terminal processing,
	// prepareConsole); nil: nothing to do. When it fails the screen
	// prints plain blocks, as on a pipe, and plain says why.
	prepare func() (console, error)
	// follow starts telling c of the terminal's new sizes, until the
	// stop it returns (followResize: SIGWINCH, or polling size where no
	// signal tells); nil: nothing tells.
	follow func(c chan<- struct{}, size func() (cols, rows int)) (stop func())
	// resized tells of a new terminal size while the screen is up; nil
	// when nothing tells.
	resized    chan struct{}
	stopResize func()
	// console is how prepare left the terminal.
	console console
	// plain, when not nil, says why a terminal is shown plain blocks.
	plain error
	// held is the log while the terminal is redrawn (nil when the log
	// goes elsewhere than this terminal).
	held *heldWriter
	// stderr is where the log goes otherwise.
	stderr io.Writer
}

// console is how a terminal was readied for the control sequences.
type console struct {
	// restore puts the terminal's mode back as it was; nil when nothing
	// was changed.
	restore func()
	// wrapsEarly says the cursor moves to the next line as soon as a
	// line's last column is written (a Windows console without
	// DISABLE_NEWLINE_AUTO_RETURN): lines are drawn one column short, or
	// each full line would leave an empty one below it.
	wrapsEarly bool
}

// newScreen makes watch's screen on stdout. stdout is a terminal to
// redraw when it is one and cfg asks for the outline; the log, when it
// goes to stderr and stderr is a terminal too, is held while the screen
// is up, so that it does not break into the picture, and written out
// when watch ends.
func newScreen(stdout, stderr io.Writer, cfg Config) *screen {
	s := &screen{w: stdout, stderr: stderr}
	f, ok := stdout.(*os.File)
	if !ok || cfg.JSON || !term.IsTerminal(int(f.Fd())) {
		return s
	}
	fd := int(f.Fd())
	s.tty, s.follow = true, followResize
	s.prepare = func() (console, error) { return prepareConsole(f) }
	s.size = func() (int, int) {
		w, h, err := term.GetSize(fd)
		if err != nil {
			return 0, 0
		}
		return w, h
	}
	if ef, ok := stderr.(*os.File); ok && cfg.LogFile == "" && term.IsTerminal(int(ef.Fd())) {
		s.held = &heldWriter{w: stderr}
	}
	return s
}

// logWriter is where the log goes while watch runs.
func (s *screen) logWriter() io.Writer {
	if s.held != nil {
		return s.held
	}
	return s.stderr
}

// The terminal's control sequences (ECMA-48 and xterm's).
const (
	altScreenOn  = "\x1b[?1049h"
	altScreenOff = "\x1b[?1049l"
	hideCursor   = "\x1b[?25l"
	showCursor   = "\x1b[?25h"
	home         = "\x1b[H"
	clearLine    = "\x1b[K" // to the end of the line
	clearBelow   = "\x1b[J" // to the end of the screen
	reset        = "\x1b[0m"
	// styleStatus is the status bar: reverse video.
	styleStatus = "\x1b[7m"
	// styleFocused marks the focused element: bold black on orange, the
	// colour of its frame in a picture.
	styleFocused = "\x1b[1;38;5;16;48;5;208m"
	// styleHovered marks the hovered element: bold black on magenta.
	styleHovered = "\x1b[1;38;5;16;48;5;201m"
)

// begin readies the terminal, puts its alternate screen up, with the
// cursor hidden, and holds the log. A terminal that cannot be readied is
// shown plain blocks from then on, and s.plain says why.
func (s *screen) begin() error {
	if !s.tty {
		return nil
	}
	if s.prepare != nil {
		c, err := s.prepare()
		if err != nil {
			s.tty, s.plain = false, err
			return nil
		}
		s.console = c
	}
	if s.held != nil {
		s.held.hold()
	}
	if s.follow != nil {
		s.resized = make(chan struct{}, 1)
		s.stopResize = s.follow(s.resized, s.size)
	}
	_, err := io.WriteString(s.w, altScreenOn+hideCursor+home)
	return err
}

// end gives the terminal back as it was (the cursor shown, the normal
// screen, the mode prepare changed), then writes the log held meanwhile.
func (s *screen) end() {
	if !s.tty {
		return
	}
	if s.stopResize != nil {
		s.stopResize()
	}
	io.WriteString(s.w, showCursor+altScreenOff)
	if s.console.restore != nil {
		s.console.restore()
	}
	if s.held != nil {
		s.held.release()
	}
}

// pollResize tells c of each new size() it sees, asking every interval,
// until the returned stop, which returns once it no longer asks.
func pollResize(c chan<- struct{}, size func() (cols, rows int), every time.Duration) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		cols, rows := size()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if nc, nr := size(); nc != cols || nr != rows {
				cols, rows = nc, nr
				select {
				case c <- struct{}{}:
				default: // a redraw is due already, and will take this size
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// The output modes of a Windows console that watch's screen needs
// (SetConsoleMode, https://learn.microsoft.com/windows/console/setconsolemode;
// the same numbers as golang.org/x/sys/windows's, which builds on Windows
// only).
const (
	// vtProcessing (ENABLE_VIRTUAL_TERMINAL_PROCESSING) makes the console
	// act on the control sequences instead of printing them.
	vtProcessing = 0x4
	// noAutoReturn (DISABLE_NEWLINE_AUTO_RETURN) keeps the cursor on a
	// line whose last column was just written, as a terminal does.
	noAutoReturn = 0x8
)

// enableVT turns on the console output modes watch's screen needs, given
// the console's mode and how to set another: virtual-terminal processing,
// and no early wrap when the console takes it. It steps down as
// Microsoft's own example does ("Console Virtual Terminal Sequences",
// https://learn.microsoft.com/windows/console/console-virtual-terminal-sequences):
// both modes, else virtual-terminal processing alone (then lines are
// drawn a column short), else an error, and then the screen prints plain
// blocks. The console it returns restores mode.
func enableVT(mode uint32, set func(mode uint32) error) (console, error) {
	want := mode | vtProcessing | noAutoReturn
	if mode == want {
		return console{}, nil // on already (Windows Terminal); nothing to restore
	}
	restore := func() { set(mode) }
	if set(want) == nil {
		return console{restore: restore}, nil
	}
	if mode&vtProcessing != 0 {
		return console{wrapsEarly: true}, nil
	}
	if err := set(mode | vtProcessing); err != nil {
		return console{}, fmt.Errorf("the console does not take virtual-terminal processing: %w", err)
	}
	return console{restore: restore, wrapsEarly: true}, nil
}

// view is one answer as watch shows it.
type view struct {
	// status is the status line; pointing says what is focused and hovered.
	status, pointing string
	// outline is the answer's outline, one element per line.
	outline []string
	// focused and hovered are the indexes in outline of the focused and
	// hovered elements' lines, -1 for none.
	focused, hovered int
	// failure, when not empty, says why the read failed; then the view
	// has nothing else.
	failure string
}

// separator begins each answer on a pipe.
var separator = strings.Repeat("-", 72)

// show writes a view: in place on a terminal, else as a block of lines:
// the separator, the status line, what is pointed at, the outline and an
// empty line (the outline has none), so that a reader knows a block is
// whole when its empty line comes.
func (s *screen) show(v view) error {
	if s.tty {
		return s.draw(v)
	}
	if v.failure != "" {
		return nil // the log says it
	}
	var b strings.Builder
	b.WriteString(separator + "\n" + v.status + "\n" + v.pointing + "\n")
	for _, l := range v.outline {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
	_, err := io.WriteString(s.w, b.String())
	return err
}

// draw redraws the terminal with v: the status bar, what is pointed at,
// and as much of the outline as fits, the part with the focused element
// (else the hovered one) when not all of it does. Lines are cut to the
// terminal's width.
func (s *screen) draw(v view) error {
	cols, rows := 0, 0
	if s.size != nil {
		cols, rows = s.size()
	}
	if s.console.wrapsEarly && cols > 1 {
		cols--
	}
	var lines []string
	add := func(text, style string, pad bool) {
		text = cut(text, cols)
		if pad && cols > 0 {
			text += strings.Repeat(" ", max(0, cols-utf8.RuneCountInString(text)))
		}
		if style != "" {
			text = style + text + reset
		}
		lines = append(lines, text+clearLine)
	}
	if v.failure != "" {
		add("cdpprovider watch: the last read failed", styleStatus, true)
		for _, l := range wrap(v.failure, cols) {
			add(l, "", false)
		}
	} else {
		add(v.status, styleStatus, true)
		add(v.pointing, "", false)
		from, to, footer := window(len(v.outline), rows-len(lines), v.focused, v.hovered)
		for i := from; i < to; i++ {
			style := ""
			switch i {
			case v.focused:
				style = styleFocused
			case v.hovered:
				style = styleHovered
			}
			add(v.outline[i], style, false)
		}
		if footer {
			add(fmt.Sprintf("(lines %d-%d of %d)", from+1, to, len(v.outline)), styleStatus, false)
		}
	}
	_, err := io.WriteString(s.w, home+strings.Join(lines, "\r\n")+clearBelow)
	return err
}

// window chooses the lines of an outline of n lines to show in rows
// rows (0 or less: all of them): all when they fit, else a run around the
// line at (the focused element's, else the hovered one's, else the
// first), with a footer line saying which.
func window(n, rows, at, alt int) (from, to int, footer bool) {
	if rows <= 0 || n <= rows {
		return 0, n, false
	}
	rows = max(1, rows-1) // the footer's
	if at < 0 {
		at = max(alt, 0)
	}
	from = min(max(0, at-rows/2), n-rows)
	return from, from + rows, true
}

// cut shortens s to cols runes, the last one "…" when it was longer; 0
// cols: no cut.
func cut(s string, cols int) string {
	if cols <= 0 || utf8.RuneCountInString(s) <= cols {
		return s
	}
	r := []rune(s)
	return string(r[:cols-1]) + "…"
}

// wrap breaks s into lines of at most cols runes; 0 cols: one line.
func wrap(s string, cols int) []string {
	r := []rune(s)
	if cols <= 0 || len(r) <= cols {
		return []string{s}
	}
	var out []string
	for len(r) > cols {
		out = append(out, string(r[:cols]))
		r = r[cols:]
	}
	return append(out, string(r))
}

// heldWriter passes what is written through to w, but while it is held
// keeps it instead (its last maxHeld bytes), until release writes it out.
type heldWriter struct {
	mu   sync.Mutex
	w    io.Writer
	on   bool   // held; guarded by mu
	kept []byte // what was written while held; guarded by mu
	cut  bool   // kept lost its beginning; guarded by mu
}

// maxHeld bounds the log kept while held.
const maxHeld = 256 << 10

func (h *heldWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.on {
		return h.w.Write(p)
	}
	h.kept = append(h.kept, p...)
	if len(h.kept) > maxHeld {
		h.kept, h.cut = h.kept[len(h.kept)-maxHeld:], true
	}
	return len(p), nil
}

// hold starts keeping what is written.
func (h *heldWriter) hold() {
	h.mu.Lock()
	h.on = true
	h.mu.Unlock()
}

// release writes out what was kept and passes writes through again.
func (h *heldWriter) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cut {
		io.WriteString(h.w, "(the log's beginning while watch ran is left out)\n")
	}
	h.w.Write(h.kept)
	h.on, h.kept, h.cut = false, nil, false
}
