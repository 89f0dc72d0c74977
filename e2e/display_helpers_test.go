package e2e

import (
	"bufio"
	"context"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// The display tests run a headed Chromium on a virtual X screen (Xvfb)
// under a window manager (openbox: minimising a window needs one), and
// compare locate with the pixels on the screen.

// displayTools are the programs the display tests run.
var displayTools = []string{"Xvfb", "openbox", "xdotool", "import"}

// needDisplayTools skips, or with CI=true fails, when a program is missing.
func needDisplayTools(t testing.TB) {
	t.Helper()
	needEnv(t)
	var missing []string
	for _, tool := range displayTools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("display tests need %s on PATH (Debian: apt-get install xvfb openbox xdotool imagemagick)", strings.Join(missing, ", "))
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: failing instead of skipping)")
	}
	t.Skip(msg)
}

// screen is one virtual X screen with a window manager.
type screen struct {
	display string // ":N"
}

// startScreen starts Xvfb with a w×h pixel screen on a display number it
// picks itself (-displayfd), waits until a client can connect to it, and
// starts openbox on it; both stop when the test ends.
func startScreen(t testing.TB, w, h int) *screen {
	t.Helper()
	r, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// -noreset: by default Xvfb resets when its last client leaves, and
	// refuses connections meanwhile; the readiness probe below is a client
	// that leaves, and openbox, connecting right after, once failed to
	// open the display (a CI run under load).
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", fmt.Sprintf("%dx%dx24", w, h), "-nolisten", "tcp", "-noreset")
	x.ExtraFiles = []*os.File{wr}
	numc := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		numc <- strings.TrimSpace(line)
	}()
	s := &screen{}
	startBackground(t, x, "Xvfb", func() bool {
		if s.display == "" {
			select {
			case num := <-numc:
				s.display = ":" + num
			default:
				return false
			}
		}
		// Ready once a client gets through.
		return s.xdotool("getdisplaygeometry") == nil
	})
	wr.Close()
	wm := exec.Command("openbox", "--sm-disable")
	wm.Env = s.env()
	startBackground(t, wm, "openbox", func() bool {
		// _NET_CURRENT_DESKTOP is there once the window manager runs.
		return s.xdotool("get_desktop") == nil
	})
	return s
}

// startBackground starts cmd, stops it when the test ends (asking first,
// so that Xvfb removes its lock file), and waits up to 10 seconds for
// ready.
func startBackground(t testing.TB, cmd *exec.Cmd, name string, ready func() bool) {
	t.Helper()
	setProcAttr(cmd)
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(3 * time.Second):
			killGroup(cmd)
			<-exited
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for !ready() {
		select {
		case <-exited:
			t.Fatalf("%s exited: %s", name, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready after 10s: %s", name, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *screen) env() []string { return append(os.Environ(), "DISPLAY="+s.display) }

// xdotool runs xdotool on the screen.
func (s *screen) xdotool(args ...string) error {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// output runs xdotool on the screen and returns what it printed, trimmed;
// "" when it fails (a search that finds nothing fails).
func (s *screen) output(args ...string) string {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = s.env()
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

// search returns the ids of the windows `xdotool search ARGS...` finds.
func (s *screen) search(args ...string) []string {
	return strings.Fields(s.output(append([]string{"search"}, args...)...))
}

// titled returns the ids of the visible windows whose title starts with
// title (Chromium titles a window "PAGE TITLE - Chromium").
func (s *screen) titled(title string) []string {
	return s.search("--onlyvisible", "--name", "^"+regexp.QuoteMeta(title))
}

// windowNames lists the screen's windows that have a name, visible or
// not, as "id name (visible)": what a failed search was looking among.
func (s *screen) windowNames() string {
	visible := s.search("--onlyvisible", "--name", ".")
	var b strings.Builder
	for _, id := range s.search("--name", ".") {
		fmt.Fprintf(&b, "\n  %s %q", id, s.output("getwindowname", id))
		if slices.Contains(visible, id) {
			b.WriteString(" (visible)")
		}
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

// capture takes a picture of the whole screen with ImageMagick's import.
func (s *screen) capture(t testing.TB) image.Image {
	t.Helper()
	cmd := exec.Command("import", "-window", "root", "png:-")
	cmd.Env = s.env()
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("import -window root: %v: %s", err, stderr.String())
	}
	img, err := png.Decode(strings.NewReader(string(out)))
	if err != nil {
		t.Fatalf("decode the screen capture: %v", err)
	}
	return img
}

// redBounds returns the bounding box, in pixels, of the pixels that are at
// least half red on white (antialiased edges count when half covered);
// ok is false when there are none.
func redBounds(img image.Image) (r rect, ok bool) {
	b := img.Bounds()
	red := func(x, y int) bool {
		cr, cg, cb, _ := img.At(x, y).RGBA()
		return cr>>8 >= 200 && cg>>8 < 128 && cb>>8 < 128
	}
	if rgba, isRGBA := img.(*image.RGBA); isRGBA { // what a PNG of the screen decodes to: skip the interface
		red = func(x, y int) bool {
			p := rgba.Pix[rgba.PixOffset(x, y):]
			return p[0] >= 200 && p[1] < 128 && p[2] < 128
		}
	}
	x0, y0, x1, y1 := math.MaxInt, math.MaxInt, -1, -1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if red(x, y) {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x+1), max(y1, y+1)
			}
		}
	}
	if x1 < 0 {
		return rect{}, false
	}
	return rect{float64(x0), float64(y0), float64(x1 - x0), float64(y1 - y0)}, true
}

// redOnScreen waits until two captures in a row show the red pixels at
// the same place (the compositor has drawn the last change) and returns
// their bounding box in points: pixels divided by the device scale.
func (s *screen) redOnScreen(t testing.TB, scale float64) rect {
	t.Helper()
	var last rect
	found := false
	for range 40 {
		r, ok := redBounds(s.capture(t))
		if ok && found && r == last {
			return rect{r.X / scale, r.Y / scale, r.W / scale, r.H / scale}
		}
		last, found = r, ok
		time.Sleep(50 * time.Millisecond)
	}
	if !found {
		t.Fatal("no red pixels on the screen")
	}
	t.Fatalf("the red pixels did not settle; last at %v", last)
	return rect{}
}

// edgeError is the largest distance between corresponding edges of a and b.
func edgeError(a, b rect) float64 {
	return max(math.Abs(a.X-b.X), math.Abs(a.Y-b.Y), math.Abs(a.X+a.W-b.X-b.W), math.Abs(a.Y+a.H-b.Y-b.H))
}

// headed is a headed Chromium on a screen, driven by the test over its
// debugging port.
type headed struct {
	*chrome
	scr  *screen
	root context.Context // attached to the tab the browser started with
}

// startHeaded starts a headed Chromium on the screen with its first
// window at (x, y), w×h points, and extra flags; it stops when the test
// ends.
func startHeaded(t testing.TB, scr *screen, x, y, w, h int, extra ...string) *headed {
	t.Helper()
	profile, err := os.MkdirTemp("", "cdpprovider-e2e-profile-")
	if err != nil {
		t.Fatal(err)
	}
	args := slices.Concat([]string{
		"--remote-debugging-port=0",
		"--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + profile,
		"--password-store=basic",
		fmt.Sprintf("--window-position=%d,%d", x, y),
		fmt.Sprintf("--window-size=%d,%d", w, h),
	}, quietFlags, extra)
	cmd := exec.Command(env.chromePath, append(args, "about:blank")...)
	cmd.Env = scr.env()
	setProcAttr(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		t.Fatalf("start %s: %v", env.chromePath, err)
	}
	c := &chrome{cmd: cmd, profile: profile, done: make(chan struct{})}
	go func() { cmd.Wait(); close(c.done) }()
	t.Cleanup(c.stop)
	portc := make(chan int, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil {
				p, _ := strconv.Atoi(m[1])
				portc <- p
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case c.port = <-portc:
	case <-c.done:
		t.Fatal("headed chromium exited before its DevTools endpoint was up")
	case <-time.After(30 * time.Second):
		t.Fatal("headed chromium did not print its DevTools endpoint within 30s")
	}
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), c.httpURL())
	root, _ := chromedp.NewContext(alloc)
	if err := chromedp.Do(root); err != nil {
		t.Fatalf("attach to the headed chromium: %v", err)
	}
	t.Cleanup(func() {
		chromedp.Cancel(root)
		cancelAlloc()
	})
	return &headed{chrome: c, scr: scr, root: root}
}

// load navigates the tab to url and waits until it has painted.
func (h *headed) load(t testing.TB, tb *tab, url string) {
	t.Helper()
	tb.navigate(t, url)
	settle(t, tb.ctx)
}

// settle waits for two animation frames in the tab, so that what the
// test changed has been laid out and painted.
func settle(t testing.TB, ctx context.Context) {
	t.Helper()
	const frames = `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](frames, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatalf("wait for two animation frames: %v", err)
	}
}

// xwindow returns the X window id of the browser window whose title
// starts with title.
func (h *headed) xwindow(t testing.TB, title string) string {
	t.Helper()
	var ids []string
	waitFor(t, "a window titled "+title, func() bool {
		ids = h.scr.titled(title)
		return len(ids) > 0
	})
	if len(ids) != 1 {
		t.Fatalf("xdotool search --name %q: windows %v, want one", title, ids)
	}
	return ids[0]
}

// zoomBy presses ctrl+plus (n > 0) or ctrl+minus (n < 0) |n| times in the
// browser window titled title, which shows the tab, as a person does, and
// waits for each key to change the page's devicePixelRatio.
func (h *headed) zoomBy(t testing.TB, tb *tab, title string, n int) {
	t.Helper()
	key := "ctrl+plus"
	if n < 0 {
		key, n = "ctrl+minus", -n
	}
	for range n {
		before := eval[float64](t, tb.ctx, `devicePixelRatio`)
		h.pressKeys(t, title, key)
		waitFor(t, "the page zoom to change after "+key, func() bool { return eval[float64](t, tb.ctx, `devicePixelRatio`) != before })
	}
	settle(t, tb.ctx)
}

// pressKeys activates the browser window titled title and types keys
// into it through the X server, as a keyboard does.
func (h *headed) pressKeys(t testing.TB, title string, keys ...string) {
	t.Helper()
	if err := h.scr.xdotool("windowactivate", "--sync", h.xwindow(t, title)); err != nil {
		t.Fatal(err)
	}
	if err := h.scr.xdotool(append([]string{"key", "--clearmodifiers"}, keys...)...); err != nil {
		t.Fatal(err)
	}
}

// setBounds moves and sizes the browser window that holds the tab.
func setBounds(t testing.TB, tb *tab, x, y, w, h int64) {
	t.Helper()
	win := tb.window(t)
	if _, err := chromedp.CallBrowser(tb.ctx, browser.SetWindowBounds, browser.SetWindowBoundsParams{
		WindowID: win.WindowID,
		Bounds:   &browser.Bounds{Left: &x, Top: &y, Width: w, Height: h, WindowState: browser.WindowStateNormal},
	}); err != nil {
		t.Fatalf("Browser.setWindowBounds: %v", err)
	}
	waitFor(t, "the window to move", func() bool {
		b := tb.window(t).Bounds
		return b != nil && b.Left != nil && *b.Left == x && *b.Top == y
	})
}
