package e2e

import (
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// A person starts Chromium as the README says, with a debugging port and a
// user-data directory of its own: Chromium then writes no
// DevToolsActivePort (only port 0 does). cdpprovider with no browser flag
// finds it all the same, by its command line; so does
// --connect auto --user-data-dir DIR, and doctor says it works. HOME and
// XDG_CONFIG_HOME are a fresh directory, so no default profile exists.
// Other browsers may run meanwhile (the package's own, marked as a
// cdpprovider's and so passed by; other packages' launched ones, likewise):
// each read must show this browser's page, by its url and title.

func TestDebugPortBrowserFoundWithNoFlag(t *testing.T) {
	needEnv(t)
	debugPortBrowserFound(t, nil)
}

func TestDebugPortBrowserFoundWithNoFlagHeaded(t *testing.T) {
	needDisplayTools(t)
	debugPortBrowserFound(t, startScreen(t, 1280, 900))
}

// debugPortBrowserFound starts the person's browser, headless, or headed
// on scr, and reads it through the binary.
func debugPortBrowserFound(t *testing.T, scr *screen) {
	home, err := os.MkdirTemp("", "cdpprovider-e2e-home-")
	if err != nil {
		t.Fatal(err)
	}
	// Registered first, so it runs after the browser is stopped.
	t.Cleanup(func() { removeAllRetrying(home) })
	dir := filepath.Join(home, ".config", "chromium-debug") // the README's
	environ := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}

	// The README's port when it is free; any port shows the same.
	port := 9222
	if l, err := net.Listen("tcp", "127.0.0.1:9222"); err == nil {
		l.Close()
	} else {
		port = freePort(t)
	}

	title := fmt.Sprintf("Found with no flag %d", time.Now().UnixNano())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>The person's page</h1>", html.EscapeString(title))
	}))
	t.Cleanup(srv.Close)
	page := srv.URL + "/person.html"

	args := []string{fmt.Sprintf("--remote-debugging-port=%d", port), "--user-data-dir=" + dir}
	args = append(args, quietFlags...) // --no-sandbox among them
	browserEnv := os.Environ()
	if scr == nil {
		args = append(args, "--headless=new")
	} else {
		browserEnv = scr.env()
	}
	args = append(args, page)
	cmd := exec.Command(env.chromePath, args...)
	cmd.Env = append(slices.DeleteFunc(browserEnv, func(kv string) bool {
		return strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=")
	}), environ...)
	setProcAttr(cmd)
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", env.chromePath, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { killGroup(cmd); <-done })
	waitFor(t, fmt.Sprintf("the browser to show the page on port %d", port), func() bool {
		select {
		case <-done:
			t.Fatalf("the browser exited: %s", out.String())
		default:
		}
		return showsPage(port, page, title)
	})
	if _, err := os.Stat(filepath.Join(dir, "DevToolsActivePort")); err == nil {
		t.Logf("this Chromium wrote DevToolsActivePort for port %d; the test still holds", port)
	}

	// No browser flag: the most recently started browser that answers is
	// this one, unless another starts meanwhile (another test run's):
	// then read again.
	var stderr string
	waitFor(t, "current with no browser flag to read the person's browser", func() bool {
		var code int
		var stdout string
		stdout, stderr, code = runBinary(t, environ, "current", "--json")
		if code != 0 {
			t.Fatalf("current --json with no browser flag: exit status %d, want the browser on port %d:\n%s", code, port, stderr)
		}
		if readsPage(t, stdout, page, title) {
			return true
		}
		t.Logf("current --json with no browser flag read another browser:\n%s", stderr)
		return false
	})
	if want := fmt.Sprintf("port=%d", port); !strings.Contains(stderr, want) {
		t.Errorf("the log does not say %q:\n%s", want, stderr)
	}

	// --connect auto --user-data-dir DIR: the browser running on DIR.
	stdout, stderr, code := runBinary(t, environ, "current", "--json", "--connect", "auto", "--user-data-dir", dir)
	if code != 0 || !readsPage(t, stdout, page, title) {
		t.Errorf("current --json --connect auto --user-data-dir %s: exit status %d, want the person's page:\n%s\n%s", dir, code, stdout, stderr)
	}

	// doctor: the port asked, it works, no flag to add.
	report, code := runDoctor(t, home)
	if code != 0 {
		t.Errorf("doctor: exit status %d with the browser on port %d, want 0", code, port)
	}
	wantLines(t, report,
		fmt.Sprintf("on %s, --remote-debugging-port=%d\n    port %d: answers", dir, port, port),
		"Next step: none, it works now: `cdpprovider serve` (or `cdpprovider current`)")
	if strings.Contains(report, "restart it with --remote-debugging-port") {
		t.Errorf("doctor advises the flag the browser has:\n%s", report)
	}
}

// showsPage says whether the browser on port lists a tab that has loaded
// the page (GET /json/list: no websocket).
func showsPage(port int, url, title string) bool {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/json/list", port))
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var targets []struct{ Type, URL, Title string }
	if json.NewDecoder(resp.Body).Decode(&targets) != nil {
		return false
	}
	return slices.ContainsFunc(targets, func(tg struct{ Type, URL, Title string }) bool {
		return tg.Type == "page" && tg.URL == url && tg.Title == title
	})
}

// readsPage says whether a `current --json` answer shows the page: a
// Document with its url and title.
func readsPage(t *testing.T, answer, url, title string) bool {
	t.Helper()
	cur := checkCurrent(t, []byte(strings.TrimSpace(answer)))
	return elemtest.First(cur.Root, func(e *mapping.Element) bool {
		return e.Role == "Document" && e.URL == url && e.Title == title
	}) != nil
}
