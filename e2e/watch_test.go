package e2e

import (
	"bufio"
	"context"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/cdpprovider/cdpprovider/picture"
)

// `cdpprovider watch` and `--png`: what a person sees, again on every
// change, and a picture of what locate says.

// stepsPage is a page that changes when the test says so: each message
// of its event stream becomes the text of its status paragraph. A
// message "burst N" makes it "Step N" and then changes an attribute ten
// times over 100 ms, so that the page's watchers tell of a change several
// times while the answer stays that of "Step N"; 300 ms after the last
// one (past Chrome's 250 ms between accessibility events) it asks for
// /settled, so the test knows the burst is over. It tells /shown of
// each message, for a failure to say what the page showed.
const stepsPage = `<!doctype html><title>Steps</title>
<h1>Watched page</h1><p id="status">Waiting</p>
<script>
const status = document.getElementById('status');
new EventSource('/events').onmessage = (e) => {
  fetch('/shown?step=' + encodeURIComponent(e.data) + '&doc=' + performance.timeOrigin);
  const burst = e.data.startsWith('burst ');
  status.textContent = 'Step ' + (burst ? e.data.slice(6) : e.data);
  if (!burst) return;
  for (let i = 1; i <= 10; i++) setTimeout(() => status.dataset.n = i, 10 * i);
  setTimeout(() => fetch('/settled'), 400);
};
</script>`

// stepsServer serves stepsPage and its event stream; a step sent on
// steps makes the page show it, and settled tells when a burst is over.
// The stream opens with step 0.
type stepsServer struct {
	*httptest.Server
	steps   chan string
	settled chan struct{}
}

func startStepsServer(t testing.TB) *stepsServer {
	s := &stepsServer{steps: make(chan string, 16), settled: make(chan struct{}, 16)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, stepsPage)
		case "/shown":
			// On a failure, this tells a page that did not change from a
			// provider that did not tell (once, under load, Chrome sent
			// the page's session no event after its first navigation).
			t.Logf("%s the page shows step %q (its document began at %s)", time.Now().Format("15:04:05.000"), r.URL.Query().Get("step"), r.URL.Query().Get("doc"))
		case "/settled":
			s.settled <- struct{}{}
		case "/events":
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-store")
			io.WriteString(w, "data: 0\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case step := <-s.steps:
					fmt.Fprintf(w, "data: %s\n\n", step)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// watchProcess is `cdpprovider watch` running with its stdout on a pipe.
type watchProcess struct {
	cmd    *exec.Cmd
	stderr *syncbuf.Buffer
	out    chan string // each block (pipe) or line (--json) it printed
	done   chan struct{}
	last   string // the last block or line next returned, told when nothing more comes
}

// startWatch starts the binary's watch with args; its output is split
// into blocks ending with an empty line, or with --json into lines.
func startWatch(t testing.TB, args ...string) *watchProcess {
	t.Helper()
	cmd := exec.Command(env.bin, append([]string{"watch"}, args...)...)
	setProcAttr(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &watchProcess{cmd: cmd, stderr: new(syncbuf.Buffer), out: make(chan string, 1000), done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	json := slices.Contains(args, "--json")
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		var block []string
		for sc.Scan() {
			switch line := sc.Text(); {
			case json:
				p.out <- line
			case line == "":
				p.out <- strings.Join(block, "\n")
				block = nil
			default:
				block = append(block, line)
			}
		}
		if len(block) > 0 {
			p.out <- strings.Join(block, "\n") + "\n(cut short)"
		}
	}()
	t.Cleanup(func() {
		killGroup(cmd)
		<-p.done
		cmd.Wait()
	})
	return p
}

// stepsBrowser starts a headless Chromium of the test's own with the
// steps page loaded in a tab of its own (openTab), for watch to connect
// to, as a person's browser mostly is: a page that has loaded. Launched
// on its page (BenchmarkWatchLatency), a busy machine's first read can
// straddle the tab's first navigation: its page-state script runs in the
// empty document before and its tree comes from the page (18 runs of
// 180 on two busy cores). That made watch miss every change in 7 runs
// of about 340: the page changed between that read's tree and the new
// document's watchers, whose counts, from 0 again, were taken for the
// ones before (TestAFetchCountedByOtherWatchersDoesNotAnswer, cdp/warm).
func stepsBrowser(t testing.TB, url string) *chrome {
	t.Helper()
	br := chromeFor(t, 0)
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), br.httpURL())
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() }) // after the tab's close, which openTab adds
	openTab(t, bctx, url)
	return br
}

// next returns the next block or line watch printed, failing the test
// when none comes within waitLimit.
func (p *watchProcess) next(t testing.TB, what string) string {
	t.Helper()
	select {
	case s := <-p.out:
		p.last = s
		return s
	case <-p.done:
		select {
		case s := <-p.out:
			return s
		default:
		}
		t.Fatalf("watch ended while waiting for %s\nstderr:\n%s", what, p.stderr.String())
	case <-time.After(waitLimit):
		// Where is it stuck? SIGQUIT makes the Go runtime print every
		// goroutine's stack to stderr and exit.
		p.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-p.done: // it exited
		case <-time.After(waitLimit):
		}
		t.Fatalf("watch printed nothing in %v while waiting for %s; the last it printed:\n%s\nstderr, with its goroutines:\n%s", waitLimit, what, p.last, p.stderr.String())
	}
	return ""
}

// interrupt sends watch SIGINT, as Ctrl-C does, and wants it to end with
// exit status 0.
func (p *watchProcess) interrupt(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGINT)
	exited := make(chan error, 1)
	go func() { <-p.done; exited <- p.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("watch after SIGINT: %v, want exit status 0\nstderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(waitLimit):
		t.Errorf("watch still runs %v after SIGINT\nstderr:\n%s", waitLimit, p.stderr.String())
	}
}

// statusText matches the status paragraph's text in an outline, where
// the text of the page is quoted alone.
var statusText = regexp.MustCompile(`"(Step \d+|Waiting)"`)

// watchSteps drives the page through its steps and checks that watch
// shows each once: show returns the status text of one block or line,
// and whether the page has finished loading in it.
func watchSteps(t *testing.T, s *stepsServer, p *watchProcess, show func(t *testing.T, out string) (status string, loaded bool)) {
	t.Helper()
	// Until the page has loaded and shows step 0, its answers come as
	// they come.
	for {
		status, loaded := show(t, p.next(t, "the page loaded at step 0"))
		if status == "Step 0" && loaded {
			break
		}
	}
	// Then one answer per change: a burst of the page's watchers telling
	// of it, and Chrome's accessibility events after them, is one change.
	// The next step is sent once a burst is over, so that an answer too
	// many, printed for its tail, would come before the next step's.
	for i, step := range []string{"burst 1", "burst 2", "3", "burst 4", "5"} {
		s.steps <- step
		want := fmt.Sprintf("Step %d", i+1)
		if out := p.next(t, want); !matches(t, show, out, want) {
			t.Fatalf("after the page changed to %s, watch showed another answer first, want one answer with %s:\n%s\nstderr:\n%s", want, want, out, p.stderr.String())
		}
		if strings.HasPrefix(step, "burst ") {
			select {
			case <-s.settled:
			case <-time.After(waitLimit):
				t.Fatalf("the page did not end its burst of %s in %v", want, waitLimit)
			}
		}
	}
}

// matches says whether out shows the status want.
func matches(t *testing.T, show func(t *testing.T, out string) (string, bool), out, want string) bool {
	status, _ := show(t, out)
	return status == want
}

// watch on a pipe: the outline once the page has loaded, then one
// outline per change of the page (bursts of notifications included):
// the count of outlines after the first matches the changes, each after
// the separator line with the status line; SIGINT ends it with status 0.
func TestWatchPipe(t *testing.T) {
	needEnv(t)
	s := startStepsServer(t)
	// At debug, a failure's stderr says which changes the provider was
	// told of and which reads it made (once, in CI, watch printed nothing
	// for a minute after its first answers, with nothing on stderr to say
	// why).
	p := startWatch(t, "--connect", stepsBrowser(t, s.URL+"/").httpURL(), "--log-level", "debug")
	watchSteps(t, s, p, func(t *testing.T, block string) (string, bool) {
		lines := strings.Split(block, "\n")
		if len(lines) < 4 || lines[0] != strings.Repeat("-", 72) || !strings.HasPrefix(lines[1], "Chromium · ") ||
			!strings.Contains(lines[1], " elements · read ") || !strings.HasPrefix(lines[2], "» focused: ") || !strings.HasPrefix(lines[3], "Application ") {
			t.Fatalf("a block of watch is not separator, status, pointing, outline:\n%s", block)
		}
		var doc string
		for _, l := range lines[3:] {
			if strings.Contains(l, "Document ") && strings.Contains(l, "<"+s.URL+"/>") {
				doc = l
			}
		}
		m := statusText.FindStringSubmatch(block)
		if doc == "" || m == nil {
			return "", false
		}
		// Loaded: the Document no longer busy, and the tab and its window
		// titled (Chrome tells the target's title a moment after): the
		// Window Steps, its selected Tab's title the same (the outline
		// says it once, on the Window).
		titled := false
		for i, l := range lines {
			if strings.Contains(l, `Window Steps`) && i+2 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+2]), "Tab [selected]") {
				titled = true
			}
		}
		return m[1], !strings.Contains(doc, "busy") && titled
	})
	p.interrupt(t)
}

// watch --json: one line per change, each an answer that passes the
// conformance checks.
func TestWatchJSON(t *testing.T) {
	needEnv(t)
	s := startStepsServer(t)
	p := startWatch(t, "--connect", stepsBrowser(t, s.URL+"/").httpURL(), "--log-level", "debug", "--json")
	watchSteps(t, s, p, func(t *testing.T, line string) (string, bool) {
		cur := checkCurrent(t, []byte(line))
		var doc, win *mapping.Element
		elemtest.Walk(cur.Root, func(e *mapping.Element, anc []*mapping.Element) {
			if e.Role == "Document" && e.URL == s.URL+"/" {
				doc, win = e, anc[len(anc)-1]
			}
		})
		if doc == nil {
			return "", false
		}
		status := ""
		elemtest.Walk(doc, func(e *mapping.Element, _ []*mapping.Element) {
			if e.Role == "Text" && statusText.MatchString(`"`+e.Title+`"`) {
				status = e.Title
			}
		})
		return status, !slices.Contains(doc.States, "busy") && win.Title == "Steps"
	})
	p.interrupt(t)
}

// boxesPage has boxes at known CSS pixels, and a text field with the
// focus; its title says the viewport's width in CSS pixels.
const boxesPage = `<!doctype html><title>Boxes</title>
<style>
body { margin: 0; background: #fff; }
.box { position: absolute; background: rgb(40, 160, 80); border: 0; padding: 0; }
</style>
<div class="box" role="img" aria-label="Box A" style="left: 100px; top: 150px; width: 200px; height: 100px"></div>
<div class="box" role="img" aria-label="Box B" style="left: 500px; top: 300px; width: 160px; height: 120px"></div>
<input class="box" aria-label="Field" autofocus style="left: 100px; top: 450px; width: 200px; height: 40px">
<script>document.title = 'Boxes ' + innerWidth;</script>`

// current --png: the frame of each element on screen drawn where the
// element is: the pixel under a frame's edge is the frame's colour (the
// focused field's in its own), one just outside it and one well inside
// the box are the page's own.
func TestPNGFrames(t *testing.T) {
	needEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, boxesPage)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "boxes.png")
	stdout, stderr, code := runBinary(t, nil, "current", "--launch", "--chrome", env.chromePath, "--png", file, srv.URL+"/")
	if code != 0 {
		t.Fatalf("current --png: exit status %d\nstderr:\n%s", code, stderr)
	}
	m := regexp.MustCompile(`Window Boxes (\d+) `).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no Window of the boxes page in the outline:\n%s", stdout)
	}
	if !strings.Contains(stdout, `TextField Field [focused]`) {
		t.Fatalf("the field is not focused:\n%s", stdout)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("no picture: %v\nstderr:\n%s", err, stderr)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the picture is no PNG: %v", err)
	}
	cssWidth, _ := strconv.Atoi(m[1])
	scale := float64(img.Bounds().Dx()) / float64(cssWidth) // pixels per CSS pixel
	at := func(x, y float64) color.RGBA {
		return color.RGBAModel.Convert(img.At(int(x*scale), int(y*scale))).(color.RGBA)
	}
	page := color.RGBA{R: 255, G: 255, B: 255, A: 255}
	for _, c := range []struct {
		what string
		x, y float64
		want color.RGBA
	}{
		{"Box A's left edge", 100.5, 200, picture.FrameColor},
		{"Box A's bottom edge", 200, 249.5, picture.FrameColor},
		{"Box B's right edge", 659.5, 360, picture.FrameColor},
		{"Box B's top edge", 580, 300.5, picture.FrameColor},
		{"the focused field's left edge", 100.5, 470, picture.FocusedColor},
		{"left of Box A", 97, 200, page},
		{"below Box B", 580, 423, page},
	} {
		if got := at(c.x, c.y); got != c.want {
			t.Errorf("%s: pixel at CSS (%v, %v) is %v, want %v", c.what, c.x, c.y, got, c.want)
		}
	}
	for _, c := range []struct {
		what string
		x, y float64
	}{{"inside Box A", 200, 200}, {"inside Box B", 580, 360}, {"inside the field", 200, 470}} {
		if got := at(c.x, c.y); got == picture.FrameColor || got == picture.FocusedColor || got == picture.HoveredColor {
			t.Errorf("%s: pixel at CSS (%v, %v) is a frame's colour %v", c.what, c.x, c.y, got)
		}
	}
}

// BenchmarkWatchLatency times, through the binary, a change in the page
// to watch printing the answer that shows it (--json, on a pipe): what a
// person looking at watch waits for.
func BenchmarkWatchLatency(b *testing.B) {
	needEnv(b)
	s := startStepsServer(b)
	p := startWatch(b, "--json", "--launch", s.URL)
	for !strings.Contains(p.next(b, "step 0"), `"Step 0"`) {
	}
	var lat []time.Duration
	for i := 1; b.Loop(); i++ {
		want := fmt.Sprintf(`"Step %d"`, i)
		t0 := time.Now()
		s.steps <- strconv.Itoa(i)
		for !strings.Contains(p.next(b, want), want) {
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "p90-ms")
}
