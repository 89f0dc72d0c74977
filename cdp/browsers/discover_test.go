package browsers

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestUserDataDirsPerOS(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		goos string
		env  map[string]string
		home string
		want map[string]string // browser -> path, a sample
	}{
		{"linux", nil, "/home/ann", map[string]string{
			"Google Chrome":        "/home/ann/.config/google-chrome",
			"Google Chrome Beta":   "/home/ann/.config/google-chrome-beta",
			"Google Chrome Dev":    "/home/ann/.config/google-chrome-unstable",
			"Google Chrome Canary": "/home/ann/.config/google-chrome-canary",
			"Chromium":             "/home/ann/.config/chromium",
			"Microsoft Edge":       "/home/ann/.config/microsoft-edge",
			"Brave":                "/home/ann/.config/BraveSoftware/Brave-Browser",
		}},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/xdg"}, "/home/ann", map[string]string{
			"Chromium": "/xdg/chromium",
		}},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "relative"}, "/home/ann", map[string]string{
			"Chromium": "/home/ann/.config/chromium", // XDG: a relative path is ignored
		}},
		{"freebsd", nil, "/home/ann", map[string]string{
			"Chromium": "/home/ann/.config/chromium",
		}},
		{"darwin", nil, "/Users/ann", map[string]string{
			"Google Chrome":        "/Users/ann/Library/Application Support/Google/Chrome",
			"Google Chrome Canary": "/Users/ann/Library/Application Support/Google/Chrome Canary",
			"Chromium":             "/Users/ann/Library/Application Support/Chromium",
			"Microsoft Edge":       "/Users/ann/Library/Application Support/Microsoft Edge",
			"Brave":                "/Users/ann/Library/Application Support/BraveSoftware/Brave-Browser",
		}},
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\ann\AppData\Local`}, `C:\Users\ann`, map[string]string{
			"Google Chrome":        `C:\Users\ann\AppData\Local\Google\Chrome\User Data`,
			"Google Chrome Canary": `C:\Users\ann\AppData\Local\Google\Chrome SxS\User Data`,
			"Chromium":             `C:\Users\ann\AppData\Local\Chromium\User Data`,
			"Microsoft Edge":       `C:\Users\ann\AppData\Local\Microsoft\Edge\User Data`,
			"Brave":                `C:\Users\ann\AppData\Local\BraveSoftware\Brave-Browser\User Data`,
		}},
		{"windows", nil, `C:\Users\ann`, map[string]string{
			"Google Chrome": `C:\Users\ann\AppData\Local\Google\Chrome\User Data`,
		}},
	} {
		got := map[string]string{}
		for _, d := range userDataDirsFor(tc.goos, env(tc.env), tc.home) {
			if _, dup := got[d.Browser]; dup {
				t.Errorf("%s: %s listed twice", tc.goos, d.Browser)
			}
			got[d.Browser] = d.Path
		}
		for b, want := range tc.want {
			if got[b] != want {
				t.Errorf("%s %v: %s = %q, want %q", tc.goos, tc.env, b, got[b], want)
			}
		}
		if len(got) < 11 {
			t.Errorf("%s: %d directories, want every channel of Chrome, Chromium, Edge and Brave", tc.goos, len(got))
		}
	}
}

// fakeBrowser listens on loopback and answers /json/version like a browser
// started with a debugging port (status 200) or like one whose person
// allowed debugging at chrome://inspect (404).
func fakeBrowser(t *testing.T, status int, wsPath string) int {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/json/version" || status != http.StatusOK {
			http.Error(w, "not found", status)
			return
		}
		fmt.Fprintf(w, `{"Browser":"Chrome/156.0","webSocketDebuggerUrl":"ws://%s%s"}`, r.Host, wsPath)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().(*net.TCPAddr).Port
}

// deadPort returns a loopback port where nothing listens.
func deadPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// writeActivePort writes a DevToolsActivePort written at the given time.
func writeActivePort(t *testing.T, browser string, port int, path string, at time.Time) UserDataDir {
	t.Helper()
	dir := UserDataDir{Browser: browser, Path: filepath.Join(t.TempDir(), strings.ReplaceAll(browser, " ", "-"))}
	if err := os.MkdirAll(dir.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir.Path, activePortFile)
	if err := os.WriteFile(f, fmt.Appendf(nil, "%d\n%s", port, path), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f, at, at); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDiscover(t *testing.T) {
	now := time.Now()
	consent := writeActivePort(t, "Chromium", fakeBrowser(t, http.StatusNotFound, ""), "/devtools/browser/c1", now.Add(-time.Hour))
	flagged := writeActivePort(t, "Google Chrome", fakeBrowser(t, http.StatusOK, "/devtools/browser/g1"), "/devtools/browser/g1", now.Add(-time.Minute))
	stale := writeActivePort(t, "Brave", deadPort(t), "/devtools/browser/b1", now)
	reused := writeActivePort(t, "Microsoft Edge", fakeBrowser(t, http.StatusOK, "/devtools/browser/other"), "/devtools/browser/e1", now)
	missing := UserDataDir{Browser: "Google Chrome Beta", Path: filepath.Join(t.TempDir(), "none")}

	found := Discover(context.Background(), []UserDataDir{consent, stale, missing, flagged, reused})
	var got []string
	for _, f := range found {
		got = append(got, fmt.Sprintf("%s live=%v discovery=%d consent=%v", f.Dir.Browser, f.Live, f.Discovery, f.Consent()))
	}
	want := []string{
		// live first, the most recently started first
		"Google Chrome live=true discovery=200 consent=false",
		"Chromium live=true discovery=404 consent=true",
		// then the stale ones
		"Brave live=false discovery=0 consent=false",
		"Microsoft Edge live=false discovery=200 consent=false",
	}
	if len(found) != len(want) {
		t.Fatalf("Discover = %q, want %q", got, want)
	}
	// the two stale files have the same time: compare them as a set
	if !slices.Equal(got[:2], want[:2]) || !slices.Contains(got[2:], want[2]) || !slices.Contains(got[2:], want[3]) {
		t.Errorf("Discover = %q, want %q", got, want)
	}
	for _, f := range found {
		if !f.Live && f.Why == "" {
			t.Errorf("%s is stale without a reason", f.Dir.Browser)
		}
	}

	// auto takes the most recently started live browser
	ep := Endpoint{auto: true, dirs: []UserDataDir{consent, stale, flagged}}
	tg, err := ep.Resolve(context.Background(), discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(tg.WS, "/devtools/browser/g1") || tg.Asks || tg.Name != "Google Chrome" || tg.http == "" {
		t.Errorf("auto resolved %+v, want Google Chrome's websocket, not asking, with /json", tg)
	}
	// with only the consent browser, auto dials its websocket and knows it asks
	ep.dirs = []UserDataDir{consent, stale}
	if tg, err = ep.Resolve(context.Background(), discardLogger()); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(tg.WS, "/devtools/browser/c1") || !tg.Asks || tg.http != "" {
		t.Errorf("auto resolved %+v, want Chromium's websocket, asking, no /json", tg)
	}
	// nothing live: an error that says what to do and names the stale file
	ep.dirs = []UserDataDir{stale, missing}
	_, err = ep.Resolve(context.Background(), discardLogger())
	if err == nil || !strings.Contains(err.Error(), "chrome://inspect/#remote-debugging") || !strings.Contains(err.Error(), stale.Path) {
		t.Errorf("auto with a stale file only: %v, want advice and the stale file", err)
	}
}

// An http address whose /json/version answers 404 is a browser that
// allows debugging from chrome://inspect: its websocket path comes from
// the DevToolsActivePort that names the port.
func TestHTTPAddressFallsBackToActivePort(t *testing.T) {
	port := fakeBrowser(t, http.StatusNotFound, "")
	dir := writeActivePort(t, "Chromium", port, "/devtools/browser/c2", time.Now())
	other := writeActivePort(t, "Brave", deadPort(t), "/devtools/browser/b2", time.Now())
	ep, err := ParseEndpoint(fmt.Sprintf("http://127.0.0.1:%d", port), false, []UserDataDir{other, dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := ep.Resolve(context.Background(), discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/c2", port); tg.WS != want || !tg.Asks || tg.Name != "Chromium" {
		t.Errorf("resolved %+v, want %s, asking, named Chromium", tg, want)
	}
	// no file names the port: the error says so (the command line adds
	// what to do: provider.Advice)
	ep.dirs = []UserDataDir{other}
	if _, err := ep.Resolve(context.Background(), discardLogger()); err == nil || !strings.Contains(err.Error(), "DevToolsActivePort") || !strings.Contains(err.Error(), fmt.Sprint(port)) {
		t.Errorf("404 without a file: %v, want it to say no DevToolsActivePort names port %d", err, port)
	}
}

func TestReadActivePortRejectsJunk(t *testing.T) {
	for _, body := range []string{"", "9222", "port\n/devtools/browser/x", "0\n/devtools/browser/x", "9222\n/json/version"} {
		dir := UserDataDir{Browser: "Chromium", Path: t.TempDir()}
		if err := os.WriteFile(filepath.Join(dir.Path, activePortFile), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if ap, err := ReadActivePort(dir); err == nil {
			t.Errorf("ReadActivePort(%q) = %+v, want an error", body, ap)
		}
	}
}

func TestDebuggingAllowed(t *testing.T) {
	for _, tc := range []struct {
		state          string
		allowed, known bool
	}{
		{`{"devtools":{"remote_debugging":{"user-enabled":true}}}`, true, true},
		{`{"devtools":{"remote_debugging":{"user-enabled":false}}}`, false, true},
		{`{"browser":{}}`, false, true},
		{`not json`, false, false},
	} {
		dir := UserDataDir{Path: t.TempDir()}
		if err := os.WriteFile(filepath.Join(dir.Path, "Local State"), []byte(tc.state), 0o644); err != nil {
			t.Fatal(err)
		}
		if a, k := DebuggingAllowed(dir); a != tc.allowed || k != tc.known {
			t.Errorf("DebuggingAllowed(%s) = %v, %v; want %v, %v", tc.state, a, k, tc.allowed, tc.known)
		}
	}
	if _, k := DebuggingAllowed(UserDataDir{Path: t.TempDir()}); k {
		t.Error("DebuggingAllowed without a Local State: known")
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// A DevToolsActivePort another user owns names that user's browser
// (a provider run as root with another user's $HOME, or named a
// directory of theirs, would find it): it is not read, nor its port
// asked.
func TestActivePortOfAnotherUser(t *testing.T) {
	br := newDebugBrowser(t, http.StatusOK, "/devtools/browser/theirs")
	dir := writeActivePort(t, "Chromium", br.port, "/devtools/browser/theirs", time.Now())
	if _, err := readActivePort(dir, os.Getuid()); err != nil {
		t.Fatalf("the provider's user's own file: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir.Path, activePortFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, told := fileOwner(fi); !told {
		// Windows: a file's owner is not told; each user's directories
		// are under their own %LOCALAPPDATA%.
		if _, err := readActivePort(dir, os.Getuid()+1); err != nil {
			t.Errorf("%s, whose files' owners are not told: %v, want the file read", runtime.GOOS, err)
		}
		return
	}
	if ap, err := readActivePort(dir, os.Getuid()+1); err == nil || !strings.Contains(err.Error(), "another user's") {
		t.Errorf("a file the provider's user does not own read as %+v, %v; want an error saying it is another user's", ap, err)
	}
	if os.Getuid() != 0 {
		t.Log("not root: a file cannot be given another owner, so Discover is not asked about one")
		return
	}
	if err := os.Chown(filepath.Join(dir.Path, activePortFile), 1, 1); err != nil {
		t.Fatal(err)
	}
	if found := Discover(context.Background(), []UserDataDir{dir}); len(found) > 0 {
		t.Errorf("Discover found %+v in a file of uid 1, want nothing", found)
	}
	if n := br.asked.Load(); n > 0 {
		t.Errorf("the port another user's file names was asked %d times, want never", n)
	}
}
