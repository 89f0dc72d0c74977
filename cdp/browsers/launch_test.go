package browsers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// testChrome returns the browser for launch tests. Without one, a local
// run skips naming $CHROME; under CI=true it fails, since .ci/run installs
// chromium and a skip there would hide a broken install.
func testChrome(t *testing.T) string {
	t.Helper()
	path, err := FindChrome("")
	if err == nil {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and no browser: %v", err)
	}
	t.Skipf("no browser (set $CHROME to a Chromium-based browser to run this test): %v", err)
	return ""
}

func TestLaunch(t *testing.T) {
	path := testChrome(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := Launch(ctx, LaunchOptions{Path: path})
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	defer b.Close()

	u, err := url.Parse(b.DebugURL())
	if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" || u.Port() == "0" {
		t.Errorf("DebugURL() = %q, want http://127.0.0.1:PORT", b.DebugURL())
	}
	if !strings.HasPrefix(b.WebSocketURL(), "ws://127.0.0.1:"+u.Port()+"/devtools/browser/") {
		t.Errorf("WebSocketURL() = %q, want ws://127.0.0.1:%s/devtools/browser/…", b.WebSocketURL(), u.Port())
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.DebugURL()+"/json/version", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET /json/version: %v", err)
	}
	var version struct {
		Browser string `json:"Browser"`
		WS      string `json:"webSocketDebuggerUrl"`
	}
	err = json.NewDecoder(resp.Body).Decode(&version)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("decode /json/version: %v", err)
	}
	if version.Browser == "" || version.WS != b.WebSocketURL() {
		t.Errorf("/json/version = %+v, want a Browser and webSocketDebuggerUrl %q", version, b.WebSocketURL())
	}

	profile := b.profile
	if _, err := os.Stat(profile); err != nil {
		t.Fatalf("profile dir while running: %v", err)
	}
	// Marked as launched: auto discovery never reads it as a person's
	// browser, though it runs with a debugging port and a directory of
	// its own.
	if _, err := os.Stat(filepath.Join(profile, LaunchedMarker)); err != nil {
		t.Errorf("the launched profile has no %s: %v", LaunchedMarker, err)
	}
	if running, known := RunningBrowsers(); known {
		mine := slices.IndexFunc(running, func(r Running) bool { return r.Pid == b.cmd.Process.Pid })
		if mine < 0 || !running[mine].Launched {
			t.Errorf("RunningBrowsers does not list pid %d as launched by cdpprovider: %+v", b.cmd.Process.Pid, running)
		}
		for _, f := range FindBrowsers(ctx, Look{Running: running, RunningKnown: true}) {
			if f.Pid == b.cmd.Process.Pid || sameDir(f.Dir.Path, profile) {
				t.Errorf("auto discovery found the launched browser: %+v", f)
			}
		}
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-b.Done():
	default:
		t.Error("Done() not closed after Close")
	}
	if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("profile dir %s after Close: %v, want it removed", profile, err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestLaunchBadPath(t *testing.T) {
	// A browser that exits at once: the error quotes its output.
	script := filepath.Join(t.TempDir(), "fake-chrome")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'fake chrome: cannot open display' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Profiles are made in a temporary directory of this test's own:
	// other packages' tests launch browsers, with profiles, meanwhile.
	t.Setenv("TMPDIR", t.TempDir())
	before := profileDirs(t)
	_, err := Launch(context.Background(), LaunchOptions{Path: script, StartTimeout: 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "cannot open display") || !strings.Contains(err.Error(), "exited") {
		t.Errorf("Launch(exiting browser) = %v, want an error quoting its output", err)
	}
	if after := profileDirs(t); after > before {
		t.Errorf("%d profile dirs left behind", after-before)
	}

	missing := filepath.Join(t.TempDir(), "no-such-chrome")
	_, err = Launch(context.Background(), LaunchOptions{Path: missing})
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("Launch(missing path) = %v, want an error naming %s", err, missing)
	}
}

func TestFindChrome(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "google-chrome")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	t.Setenv("PATH", dir)
	t.Setenv("CHROME", "")
	if got, err := FindChrome(""); err != nil || got != fake {
		t.Errorf("FindChrome on PATH = %q, %v; want %q", got, err, fake)
	}

	t.Setenv("CHROME", filepath.Join(dir, "nope"))
	if _, err := FindChrome(""); err == nil || !strings.Contains(err.Error(), "$CHROME") {
		t.Errorf("FindChrome with a bad $CHROME = %v, want an error naming $CHROME", err)
	}
	if got, err := FindChrome(fake); err != nil || got != fake {
		t.Errorf("FindChrome(%q) = %q, %v; the flag wins over $CHROME", fake, got, err)
	}

	t.Setenv("CHROME", "")
	t.Setenv("PATH", t.TempDir())
	_, err := FindChrome("")
	if err == nil || !strings.Contains(err.Error(), "apt-get install chromium") || !strings.Contains(err.Error(), "chromium-browser") {
		t.Errorf("FindChrome with nothing = %v, want an error naming the tried names and how to install", err)
	}
}

// profileDirs counts launch profile directories in the temp dir.
func profileDirs(t *testing.T) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(os.TempDir(), "cdpprovider-profile-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}
