// Package e2e tests the built cdpprovider binary end to end: it starts the
// binary as a subprocess, reads it with go-sdk's MCP client over stdio, and
// points it at a real Chromium that the tests drive as the user would.
// See README.md for what it covers and what it costs: "Point N" in a
// comment is row N of its table of what the provider must hold. Section
// numbers (5.5, section 6) are those of docs/protocol.md.
package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// env is the state TestMain sets up once for the whole package.
var env struct {
	// skip is the reason every test skips (no Chromium, and not in CI).
	skip string
	// fail is the reason every test fails (setup went wrong).
	fail string

	// bin is the built cdpprovider binary.
	bin string
	// chromePath is the Chromium binary.
	chromePath string
	// browser is the shared Chromium.
	browser *chrome
	// pageA serves testdata on http://127.0.0.1:PORT, pageB the same files
	// on http://localhost:PORT: two sites, so an iframe of one in a page of
	// the other is out of process under --site-per-process.
	pageA, pageB string

	// rootCtx drives the shared browser as the user: it is
	// attached to the tab the browser started with; each test opens its own
	// tabs as children of it.
	rootCtx context.Context
}

func TestMain(m *testing.M) {
	code := func() int {
		tmp, err := os.MkdirTemp("", "cdpprovider-e2e-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "e2e:", err)
			return 1
		}
		defer os.RemoveAll(tmp)

		setup(tmp)
		if env.skip == "" && env.fail == "" {
			defer teardown()
		}
		code := m.Run()
		return code
	}()
	if code == 0 {
		checkLeakedTempDirs()
	}
	os.Exit(code)
}

// setup builds the binary, finds and starts Chromium and serves the pages.
// It records a reason in env.skip or env.fail instead of exiting, so that
// every test reports it.
func setup(tmp string) {
	// The product's own finder: $CHROME, else the browsers it knows on
	// PATH; its error names what it tried and how to install one.
	path, err := browsers.FindChrome("")
	if err != nil {
		msg := "no Chromium found (set $CHROME to a Chromium-based browser): " + err.Error()
		if os.Getenv("CI") == "true" {
			env.fail = msg + " (CI=true: failing instead of skipping)"
		} else {
			env.skip = msg
		}
		return
	}
	env.chromePath = path

	env.bin = filepath.Join(tmp, "cdpprovider")
	build := exec.Command("go", "build", "-o", env.bin, "./cmd/cdpprovider")
	build.Dir = moduleRoot()
	if out, err := build.CombinedOutput(); err != nil {
		env.fail = fmt.Sprintf("go build ./cmd/cdpprovider: %v\n%s", err, out)
		return
	}

	a := httptest.NewServer(pages())
	b := httptest.NewUnstartedServer(pages())
	b.Start()
	env.pageA = a.URL
	_, port, _ := net.SplitHostPort(b.Listener.Addr().String())
	env.pageB = "http://localhost:" + port
	servers = []*httptest.Server{a, b}

	br, err := startChrome(0)
	if err != nil {
		env.fail = err.Error()
		return
	}
	env.browser = br

	allocCtx, _ := remote.NewAllocator(context.Background(), br.httpURL())
	rootCtx, _ := chromedp.NewContext(allocCtx)
	// The first Do binds the connection's life to the context it is given:
	// no timeout here.
	if err := chromedp.Do(rootCtx); err != nil {
		env.fail = fmt.Sprintf("attach to the shared Chromium at %s: %v", br.httpURL(), err)
		return
	}
	env.rootCtx = rootCtx
}

var servers []*httptest.Server

func teardown() {
	closeSharedProvider()
	if env.rootCtx != nil {
		chromedp.Cancel(env.rootCtx)
	}
	if env.browser != nil {
		env.browser.stop()
	}
	for _, s := range servers {
		s.Close()
	}
}

// needEnv skips or fails the test when the package's setup did not work.
func needEnv(t testing.TB) {
	t.Helper()
	if env.fail != "" {
		t.Fatal(env.fail)
	}
	if env.skip != "" {
		t.Skip(env.skip)
	}
}

// moduleRoot is the directory of go.mod: the parent of this package.
func moduleRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Dir(wd)
}

// pages serves testdata. In .html files, {{A}} and {{B}} become the two
// origins, so that a page can name the other site in an iframe.
func pages() http.Handler {
	files := http.FileServer(http.Dir("testdata"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".html") {
			b, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
			if err != nil {
				http.NotFound(w, r)
				return
			}
			s := strings.NewReplacer("{{A}}", env.pageA, "{{B}}", env.pageB).Replace(string(b))
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			io.WriteString(w, s)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// chrome is one Chromium process with its own profile.
type chrome struct {
	cmd     *exec.Cmd
	port    int
	profile string
	done    chan struct{}
}

func (c *chrome) httpURL() string { return fmt.Sprintf("http://127.0.0.1:%d", c.port) }

var devtoolsLine = regexp.MustCompile(`DevTools listening on ws://[^:]+:(\d+)/`)

// startChrome starts a headless Chromium with a debugging port (0: any
// free port) and a fresh profile, and waits for its DevTools endpoint.
func startChrome(port int) (*chrome, error) {
	profile, err := os.MkdirTemp("", "cdpprovider-e2e-profile-")
	if err != nil {
		return nil, err
	}
	// The tests' browsers are not a person's: --connect auto passes them
	// by, as it does the browsers cdpprovider launches, so a provider
	// with no browser flag reads only the browser its test means.
	if err := browsers.MarkLaunched(profile); err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	args := slices.Concat([]string{
		"--headless",
		fmt.Sprintf("--remote-debugging-port=%d", port),
		"--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + profile,
		"--disable-gpu",
		"--window-size=1000,700",
	}, quietFlags, []string{"about:blank"})
	cmd := exec.Command(env.chromePath, args...)
	setProcAttr(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(profile)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("start %s: %w", env.chromePath, err)
	}
	c := &chrome{cmd: cmd, profile: profile, done: make(chan struct{})}
	portc := make(chan int, 1)
	var head strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		found := false
		for sc.Scan() {
			line := sc.Text()
			if !found {
				if head.Len() < 8<<10 {
					head.WriteString(line + "\n")
				}
				if m := devtoolsLine.FindStringSubmatch(line); m != nil {
					found = true
					var p int
					fmt.Sscan(m[1], &p)
					portc <- p
				}
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() {
		cmd.Wait()
		close(c.done)
	}()
	select {
	case p := <-portc:
		c.port = p
		return c, nil
	case <-c.done:
		os.RemoveAll(profile)
		return nil, fmt.Errorf("chromium exited before its DevTools endpoint was up:\n%s", head.String())
	case <-time.After(30 * time.Second):
		c.stop()
		return nil, fmt.Errorf("chromium did not print its DevTools endpoint within 30s:\n%s", head.String())
	}
}

// chromeFor starts a browser on the port (0: any) for the test, and
// stops it when the test ends; the test may stop it earlier (stop may be
// called again).
func chromeFor(t testing.TB, port int) *chrome {
	t.Helper()
	br, err := startChrome(port)
	if err != nil {
		t.Fatalf("start Chromium on port %d: %v", port, err)
	}
	t.Cleanup(br.stop)
	return br
}

// stop kills the browser and its children and removes its profile. A
// second call finds it stopped and does nothing more.
func (c *chrome) stop() {
	killGroup(c.cmd)
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
	}
	// Chromium's helpers can hold files for a moment after the kill.
	for range 20 {
		if err := os.RemoveAll(c.profile); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// freePort returns a loopback port where nothing listens (for now).
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// checkLeakedTempDirs panics when a browser profile outlived its browser.
func checkLeakedTempDirs() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), "cdpprovider-e2e-profile-*"))
	var leaked []string
	for _, m := range matches {
		// Another package run may be going on at the same time; only
		// complain about directories of this process's lifetime.
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) < time.Since(started) {
			leaked = append(leaked, m)
		}
	}
	if len(leaked) > 0 {
		panic(errors.New("e2e: leaked browser profile directories: " + strings.Join(leaked, ", ")))
	}
}

var started = time.Now()

// quietFlags are the flags every browser of the tests starts with: site
// isolation on (two loopback sites make out-of-process iframes), no
// sandbox (root), and none of the first-run, sync and update traffic this
// machine's closed network refuses.
var quietFlags = []string{
	"--site-per-process",
	"--no-sandbox",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-dev-shm-usage",
}
