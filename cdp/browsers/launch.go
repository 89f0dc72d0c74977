package browsers

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"
)

// FindChrome returns the browser executable to launch. A non-empty path
// wins; else $CHROME; else the first browser on PATH (chromium,
// google-chrome, microsoft-edge, brave-browser and their channels; on
// Windows chrome.exe, msedge.exe, brave.exe), else the first in the OS's
// install places, system-wide and per-user (Windows' Program Files and
// %LOCALAPPDATA%, macOS's /Applications and ~/Applications, Linux's
// /opt): Chrome and its beta, dev and canary, Chromium, Edge, Brave, in
// that order. An explicit path or $CHROME that is not an executable is an
// error, never a reason to look further; so is finding none, and its
// message says what to install on this OS.
func FindChrome(path string) (string, error) {
	return findChrome(thisSystem(), path)
}

// findChrome is FindChrome on a system.
func findChrome(s system, path string) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("find chrome: --chrome %q: %w", path, err)
		}
		return p, nil
	}
	if env := s.getenv("CHROME"); env != "" {
		p, err := exec.LookPath(env)
		if err != nil {
			return "", fmt.Errorf("find chrome: $CHROME=%q: %w", env, err)
		}
		return p, nil
	}
	if found := s.installed(); len(found) > 0 {
		return found[0], nil
	}
	return "", fmt.Errorf("find chrome: none of %s is on PATH, none is installed in %s, and $CHROME is not set; install one (%s), "+
		"or name it with --chrome PATH or $CHROME",
		strings.Join(pathNames[tableOS(s.goos)], ", "), placesSaid[tableOS(s.goos)], installAdvice[tableOS(s.goos)])
}

// placesSaid names the install places FindChrome looks in, per OS, for
// its error.
var placesSaid = map[string]string{
	"linux":   "/opt/google, /opt/microsoft, /opt/brave.com or /snap/bin",
	"darwin":  "/Applications or ~/Applications",
	"windows": `Program Files, Program Files (x86) or %LOCALAPPDATA% (Google\Chrome, Chromium, Microsoft\Edge, BraveSoftware)`,
}

// LaunchOptions configure Launch.
type LaunchOptions struct {
	// Path is the browser executable; empty means FindChrome("").
	Path string
	// Headed shows windows; the default is --headless=new.
	Headed bool
	// URLs are opened, one tab each; none opens about:blank.
	URLs []string
	// Args are extra command-line flags, appended after ours (a later
	// flag wins in Chrome), for example --site-per-process in tests.
	Args []string
	// StartTimeout bounds the wait for the DevTools address and the
	// pages; zero means 2 minutes. It is a limit for a browser that never
	// starts, not a wait: a browser starting beside others on a busy
	// machine can take tens of seconds.
	StartTimeout time.Duration
	// Logger receives the browser's own output at debug level; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Launched is a browser started by Launch, with a temporary profile and a
// debugging port on loopback. The caller must call Close.
type Launched struct {
	cmd *exec.Cmd
	// guard stops the browser and every process it started, with Close
	// or with the provider: Pdeathsig on Linux, a job object on Windows,
	// a watcher of its process group on macOS.
	guard   *guard
	profile string
	ws      string
	http    string
	done    chan struct{} // closed when the process has exited
	waitErr error         // the process's exit status; read after done

	closeOnce sync.Once
	closeErr  error
}

// outputLimit bounds how much of the browser's output a start error
// quotes.
const outputLimit = 8 << 10

// Launch starts a browser with a fresh temporary profile and a debugging
// port chosen by the browser on 127.0.0.1, and waits until it reports its
// DevTools address. The browser runs headless unless opts.Headed; as root
// it runs with --no-sandbox. It is killed with every process it started
// when the calling process dies, however it dies (guard). ctx bounds
// only the start; use Close to stop the browser.
func Launch(ctx context.Context, opts LaunchOptions) (*Launched, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	path, err := FindChrome(opts.Path)
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	profile, err := os.MkdirTemp("", launchedPrefix)
	if err != nil {
		return nil, fmt.Errorf("launch: profile dir: %w", err)
	}
	// The marker, before the browser starts: auto discovery never takes
	// this browser for a person's.
	if err := MarkLaunched(profile); err != nil {
		_ = os.RemoveAll(profile)
		return nil, fmt.Errorf("launch: profile dir: %w", err)
	}
	args := launchArgs(profile, opts)
	cmd := exec.Command(path, args...)
	cmd.SysProcAttr = sysProcAttr()
	pr, pw, err := os.Pipe()
	if err != nil {
		_ = os.RemoveAll(profile)
		return nil, fmt.Errorf("launch: pipe: %w", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	log.Debug("launching browser", "path", path, "args", args)
	b := &Launched{cmd: cmd, profile: profile, done: make(chan struct{})}
	if err := b.start(log); err != nil {
		pr.Close()
		pw.Close()
		_ = os.RemoveAll(profile)
		return nil, fmt.Errorf("launch %s: %w", path, err)
	}
	pw.Close() // the browser holds the only write end now

	found := make(chan string, 1)
	drained := make(chan struct{})
	out := &boundedBuffer{max: outputLimit}
	go func() {
		readOutput(pr, out, found, log)
		close(drained)
	}()

	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	fail := func(what string) (*Launched, error) {
		_ = b.Close()
		return nil, fmt.Errorf("launch %s: %s; its output:\n%s", path, what, out.String())
	}
	select {
	case ws := <-found:
		u, err := url.Parse(ws)
		if err != nil {
			return fail(fmt.Sprintf("bad DevTools address %q: %v", ws, err))
		}
		b.ws, b.http = ws, "http://"+u.Host
		if err := b.waitForPages(ctx, len(opts.URLs), timer.C); err != nil {
			return fail(err.Error())
		}
		log.Info("browser launched", "path", path, "pid", cmd.Process.Pid,
			"debug", b.http, "headed", opts.Headed, "profile", profile)
		return b, nil
	case <-b.done:
		// Let the reader take in what the browser said before it exited.
		select {
		case <-drained:
		case <-time.After(time.Second):
		}
		return fail(fmt.Sprintf("browser exited before it reported a DevTools address (%v)", b.waitErr))
	case <-timer.C:
		return fail(fmt.Sprintf("no DevTools address after %v", timeout))
	case <-ctx.Done():
		return fail(ctx.Err().Error())
	}
}

// start starts the process, guards it, and waits for it in a goroutine
// locked to its OS thread: Linux delivers Pdeathsig when the thread that
// started the child exits, and the Go runtime may retire threads, so the
// starting thread is kept until the browser exits. A guard that cannot
// be set up is logged: Close still kills the browser. done is closed on
// exit.
func (b *Launched) start(log *slog.Logger) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := b.cmd.Start(); err != nil {
			started <- err
			return
		}
		g, err := newGuard(b.cmd.Process)
		if err != nil {
			log.Warn("the launched browser may outlive a provider that is killed", "pid", b.cmd.Process.Pid, "err", err)
		}
		b.guard = g
		started <- nil
		b.waitErr = b.cmd.Wait()
		g.release()
		close(b.done)
	}()
	return <-started
}

// waitForPages polls /json/list until the browser shows at least n page
// targets (one when n is 0) that have committed a URL other than
// about:blank, so a read right after Launch sees the pages it asked for
// rather than an empty tab. It gives up on expire or ctx.
func (b *Launched) waitForPages(ctx context.Context, n int, expire <-chan time.Time) error {
	want := max(n, 1)
	for {
		got, err := b.countPages(ctx, n > 0)
		if err == nil && got >= want {
			return nil
		}
		select {
		case <-time.After(25 * time.Millisecond):
		case <-b.done:
			return errors.New("browser exited before its pages opened")
		case <-expire:
			return fmt.Errorf("pages did not open in time (%d of %d; last error: %v)", got, want, err)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// countPages counts the page targets in /json/list; with committed, only
// those whose URL is neither empty nor about:blank.
func (b *Launched) countPages(ctx context.Context, committed bool) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.http+"/json/list", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var targets []struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		return 0, fmt.Errorf("decode /json/list: %w", err)
	}
	count := 0
	for _, t := range targets {
		if t.Type == "page" && (!committed || (t.URL != "" && t.URL != "about:blank")) {
			count++
		}
	}
	return count, nil
}

// launchArgs are the browser's command-line flags.
func launchArgs(profile string, opts LaunchOptions) []string {
	args := []string{
		"--user-data-dir=" + profile,
		"--remote-debugging-port=0",
		"--remote-debugging-address=127.0.0.1",
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--password-store=basic",
		"--use-mock-keychain",
		"--window-size=1280,800",
	}
	if !opts.Headed {
		args = append(args, "--headless=new", "--disable-gpu")
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	args = append(args, opts.Args...)
	if len(opts.URLs) == 0 {
		return append(args, "about:blank")
	}
	return append(args, opts.URLs...)
}

// readOutput copies the browser's output into out and to the log, and
// sends the DevTools address on found once it appears. It reads until the
// browser and its children close the pipe, so the browser never blocks
// on a full pipe.
func readOutput(r io.ReadCloser, out *boundedBuffer, found chan<- string, log *slog.Logger) {
	defer r.Close()
	const prefix = "DevTools listening on "
	sent := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		out.WriteLine(line)
		log.Debug("browser", "output", line)
		if !sent {
			if i := strings.Index(line, prefix); i >= 0 {
				found <- strings.TrimSpace(line[i+len(prefix):])
				sent = true
			}
		}
	}
}

// DebugURL is the browser's debugging address, http://127.0.0.1:PORT,
// the form --connect takes.
func (b *Launched) DebugURL() string { return b.http }

// WebSocketURL is the browser endpoint, ws://127.0.0.1:PORT/devtools/browser/ID.
func (b *Launched) WebSocketURL() string { return b.ws }

// Done is closed when the browser process has exited, whether by Close or
// on its own (a crash, or a person closing its last window).
func (b *Launched) Done() <-chan struct{} { return b.done }

// Close kills the browser, waits for it to exit and removes its profile.
// It is safe to call more than once and from several goroutines.
func (b *Launched) Close() error {
	b.closeOnce.Do(func() {
		select {
		case <-b.done:
		default:
			if err := b.guard.kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				b.closeErr = fmt.Errorf("close browser: %w", err)
			}
		}
		select {
		case <-b.done:
		case <-time.After(10 * time.Second):
			b.closeErr = errors.Join(b.closeErr,
				fmt.Errorf("close browser: pid %d did not exit", b.cmd.Process.Pid))
		}
		removeSingleton(singletonDir(b.profile))
		if err := removeProfile(b.profile); err != nil {
			b.closeErr = errors.Join(b.closeErr, err)
		}
	})
	return b.closeErr
}

// singletonDir is the directory that the browser made in its temp dir
// for its process-singleton socket (on Linux and macOS), which the
// profile's SingletonSocket links to: named for the browser's bundle id
// with six random characters (org.chromium.Chromium.XXXXXX,
// .com.google.Chrome.XXXXXX). The browser's temp dir may not be this
// process's (on macOS it is the user's NSTemporaryDirectory): the name,
// not the place, tells it. "" when there is none (Windows).
func singletonDir(profile string) string {
	target, err := os.Readlink(filepath.Join(profile, "SingletonSocket"))
	if err != nil || !filepath.IsAbs(target) {
		return ""
	}
	dir := filepath.Dir(target)
	if !singletonName.MatchString(filepath.Base(dir)) {
		return ""
	}
	return dir
}

// singletonName is the form of a browser's singleton directory's name.
var singletonName = regexp.MustCompile(`^\.?[A-Za-z][A-Za-z0-9-]*(\.[A-Za-z0-9-]+)+\.[A-Za-z0-9]{6}$`)

// removeSingleton removes a browser's singleton directory (singletonDir)
// and what the browser keeps in it, its Singleton files: the browser
// removes it when it exits, not when it is killed, and each launch would
// leave one in the temp dir. A directory that holds anything else is
// left as it is.
func removeSingleton(dir string) {
	if dir == "" {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "Singleton") {
			return
		}
	}
	for _, e := range entries {
		os.Remove(filepath.Join(dir, e.Name()))
	}
	os.Remove(dir)
}

// removeProfile removes the profile directory, retrying briefly: the
// browser's child processes may still be writing as they die.
func removeProfile(dir string) error {
	var err error
	for range 20 {
		if err = os.RemoveAll(dir); err == nil {
			if _, statErr := os.Stat(dir); errors.Is(statErr, os.ErrNotExist) {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err == nil {
		err = errors.New("still present")
	}
	return fmt.Errorf("remove profile %s: %w", filepath.Clean(dir), err)
}

// boundedBuffer keeps the first max bytes of the browser's output lines
// for a start error.
type boundedBuffer struct {
	mu  sync.Mutex
	max int
	b   strings.Builder
}

// WriteLine appends one line, dropping what exceeds the bound.
func (w *boundedBuffer) WriteLine(line string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len()+len(line)+1 > w.max {
		return
	}
	w.b.WriteString(line)
	w.b.WriteByte('\n')
}

// String returns what was kept.
func (w *boundedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b.Len() == 0 {
		return "(no output)"
	}
	return w.b.String()
}
