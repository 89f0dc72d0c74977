package browsers

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
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
	// The directory of its singleton socket, in the temp dir (Linux and
	// macOS), which the browser removes when it exits but not when it is
	// killed.
	singleton := singletonDir(profile)
	if singleton == "" && runtime.GOOS != "windows" {
		t.Errorf("no singleton socket directory linked from the profile %s", profile)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-b.Done():
	default:
		t.Error("Done() not closed after Close")
	}
	if _, err := os.Stat(singleton); singleton != "" && !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the singleton socket directory %s after Close: %v, want it removed", singleton, err)
	}
	if _, err := os.Stat(profile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("profile dir %s after Close: %v, want it removed", profile, err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestLaunchBadPath(t *testing.T) {
	// A browser that exits at once (this test executable run again as
	// the "exit" fake): the error quotes its output.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeEnv, "exit")
	// Profiles are made in a temporary directory of this test's own:
	// other packages' tests launch browsers, with profiles, meanwhile.
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("TMP", os.Getenv("TMPDIR")) // Windows' os.TempDir
	before := profileDirs(t)
	_, err = Launch(context.Background(), LaunchOptions{Path: exe, StartTimeout: 10 * time.Second})
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
	fake := filepath.Join(dir, pathNames[tableOS(runtime.GOOS)][2])
	if err := os.WriteFile(fake, []byte("not run\n"), 0o755); err != nil {
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
}

// Each system's search, run here with that system's paths and
// environment: PATH first, then the install places, system-wide and
// per-user, in FindChrome's order; and when nothing is found, the error
// names what to install on that system.
func TestFindChromeOnEachSystem(t *testing.T) {
	winEnv := map[string]string{
		"PATH":              `C:\Windows\system32;C:\Windows;"C:\Program Files\Tools"`,
		"USERPROFILE":       `C:\Users\ann`,
		"LOCALAPPDATA":      `C:\Users\ann\AppData\Local`,
		"ProgramFiles":      `C:\Program Files`,
		"ProgramFiles(x86)": `C:\Program Files (x86)`,
	}
	macEnv := map[string]string{"PATH": "/usr/bin:/bin:/opt/homebrew/bin", "HOME": "/Users/ann"}
	linuxEnv := map[string]string{"PATH": "/usr/local/bin:/usr/bin:/bin:relative", "HOME": "/home/ann"}
	with := func(env map[string]string, k, v string) map[string]string {
		out := maps.Clone(env)
		if v == "" {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		goos  string
		env   map[string]string
		files []string
		want  []string // what InstalledBrowsers lists; FindChrome takes the first
	}{
		{"windows: a per-user Chrome in %LOCALAPPDATA%", "windows", winEnv,
			[]string{`C:\Users\ann\AppData\Local\Google\Chrome\Application\chrome.exe`},
			[]string{`C:\Users\ann\AppData\Local\Google\Chrome\Application\chrome.exe`}},
		{"windows: Edge under Program Files (x86), Chrome under Program Files, Canary per-user", "windows", winEnv,
			[]string{`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`, `C:\Program Files\Google\Chrome\Application\chrome.exe`,
				`C:\Users\ann\AppData\Local\Google\Chrome SxS\Application\chrome.exe`},
			[]string{`C:\Program Files\Google\Chrome\Application\chrome.exe`, `C:\Users\ann\AppData\Local\Google\Chrome SxS\Application\chrome.exe`,
				`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`}},
		{"windows: Chromium and Brave per-user, Edge Beta system-wide", "windows", winEnv,
			[]string{`C:\Users\ann\AppData\Local\Chromium\Application\chrome.exe`, `C:\Users\ann\AppData\Local\BraveSoftware\Brave-Browser\Application\brave.exe`,
				`C:\Program Files (x86)\Microsoft\Edge Beta\Application\msedge.exe`},
			[]string{`C:\Users\ann\AppData\Local\Chromium\Application\chrome.exe`, `C:\Program Files (x86)\Microsoft\Edge Beta\Application\msedge.exe`,
				`C:\Users\ann\AppData\Local\BraveSoftware\Brave-Browser\Application\brave.exe`}},
		{"windows: PATH before the install places, its quotes taken off", "windows", winEnv,
			[]string{`C:\Program Files\Tools\msedge.exe`, `C:\Program Files\Google\Chrome\Application\chrome.exe`},
			[]string{`C:\Program Files\Tools\msedge.exe`, `C:\Program Files\Google\Chrome\Application\chrome.exe`}},
		{"windows: %ProgramFiles% on another drive", "windows", with(winEnv, "ProgramFiles", `D:\Programs`),
			[]string{`D:\Programs\Google\Chrome\Application\chrome.exe`, `C:\Program Files\Google\Chrome\Application\chrome.exe`},
			[]string{`D:\Programs\Google\Chrome\Application\chrome.exe`}},
		{"windows: no %LOCALAPPDATA%, under %USERPROFILE%", "windows", with(winEnv, "LOCALAPPDATA", ""),
			[]string{`C:\Users\ann\AppData\Local\Google\Chrome\Application\chrome.exe`},
			[]string{`C:\Users\ann\AppData\Local\Google\Chrome\Application\chrome.exe`}},
		{"darwin: Chrome in ~/Applications, Brave in /Applications", "darwin", macEnv,
			[]string{"/Applications/Brave Browser.app/Contents/MacOS/Brave Browser", "/Users/ann/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"},
			[]string{"/Users/ann/Applications/Google Chrome.app/Contents/MacOS/Google Chrome", "/Applications/Brave Browser.app/Contents/MacOS/Brave Browser"}},
		{"darwin: Edge Canary, and Homebrew's chromium on PATH first", "darwin", macEnv,
			[]string{"/Applications/Microsoft Edge Canary.app/Contents/MacOS/Microsoft Edge Canary", "/opt/homebrew/bin/chromium"},
			[]string{"/opt/homebrew/bin/chromium", "/Applications/Microsoft Edge Canary.app/Contents/MacOS/Microsoft Edge Canary"}},
		{"linux: chromium on PATH before Chrome in /opt, a relative PATH entry passed by", "linux", linuxEnv,
			[]string{"/opt/google/chrome/chrome", "/usr/bin/chromium", "relative/google-chrome"},
			[]string{"/usr/bin/chromium", "/opt/google/chrome/chrome"}},
		{"linux: the first name wins whichever directory holds it", "linux", linuxEnv,
			[]string{"/usr/local/bin/microsoft-edge", "/bin/chromium"},
			[]string{"/bin/chromium", "/usr/local/bin/microsoft-edge"}},
		{"linux: a name in two directories of PATH (/bin and /usr/bin, often one) is listed once, the first", "linux", linuxEnv,
			[]string{"/bin/chromium", "/usr/bin/chromium"},
			[]string{"/usr/bin/chromium"}},
		{"freebsd: Linux's table", "freebsd", linuxEnv,
			[]string{"/usr/local/bin/chromium"}, []string{"/usr/local/bin/chromium"}},
	} {
		s := system{goos: tc.goos, getenv: func(k string) string { return tc.env[k] },
			isExec: func(p string) bool { return slices.Contains(tc.files, p) }}
		if got := s.installed(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: installed = %q, want %q", tc.name, got, tc.want)
		}
		if got, err := findChrome(s, ""); err != nil || got != tc.want[0] {
			t.Errorf("%s: findChrome = %q, %v; want %q", tc.name, got, err, tc.want[0])
		}
	}

	// Nothing installed: the error says what was looked for, and what to
	// install on that system, not on another.
	for goos, want := range map[string][]string{
		"linux":   {"chromium-browser", "/opt/google", "apt-get install chromium"},
		"darwin":  {"/Applications or ~/Applications", "brew install --cask google-chrome"},
		"windows": {"msedge.exe", "%LOCALAPPDATA%", "winget install Google.Chrome"},
	} {
		s := system{goos: goos, getenv: func(k string) string {
			return map[string]map[string]string{"linux": linuxEnv, "darwin": macEnv, "windows": winEnv}[goos][k]
		},
			isExec: func(string) bool { return false }}
		_, err := findChrome(s, "")
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: findChrome with nothing installed = %v, want it to say %q", goos, err, w)
			}
		}
		for other, advice := range installAdvice {
			if other != goos && err != nil && strings.Contains(err.Error(), advice) {
				t.Errorf("%s: findChrome's error gives %s's advice: %v", goos, other, err)
			}
		}
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

// Close removes the browser's singleton directory only when its name is
// of a browser's form and it holds the browser's Singleton files alone.
func TestRemoveSingleton(t *testing.T) {
	for name, want := range map[string]bool{
		"org.chromium.Chromium.zyU0kl":  true,
		".com.google.Chrome.AbC123":     true,
		"com.microsoft.Edge.x1Y2z3":     true,
		"org.chromium.Chromium.zyU0k":   false, // five random characters
		"cdpprovider-profile-123456789": false,
		"tmp":                           false,
		"..":                            false,
	} {
		if got := singletonName.MatchString(name); got != want {
			t.Errorf("singletonName matches %q: %v, want %v", name, got, want)
		}
	}
	profile, tmp := t.TempDir(), t.TempDir()
	mine := filepath.Join(tmp, "org.chromium.Chromium.abc123")
	other := filepath.Join(tmp, "org.chromium.Chromium.def456")
	for _, dir := range []string{mine, other} {
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"SingletonSocket", "SingletonCookie"} {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("a person's"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(mine, "SingletonSocket"), filepath.Join(profile, "SingletonSocket")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if got := singletonDir(profile); got != mine {
		t.Fatalf("singletonDir = %q, want %q", got, mine)
	}
	removeSingleton(mine)
	removeSingleton(other)
	if _, err := os.Stat(mine); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the singleton directory after removeSingleton: %v, want it removed", err)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Errorf("a directory holding more than Singleton files lost them: %v", err)
	}
}
