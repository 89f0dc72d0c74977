package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
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
)

// `cdpprovider current --launch URL` prints the page once it has loaded,
// not the empty document of its first committed moment: the page here
// sends its heading at once and the rest of its body 1.5 s later, and the
// printed answer has both, with the Document no longer busy.
func TestCurrentLaunchWaitsForTheLoad(t *testing.T) {
	needEnv(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Slow page</title><h1>Start of the slow page</h1>`+string(bytes.Repeat([]byte(" "), 4096)))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, `<p>End of the slow page</p>`)
	}))
	defer slow.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.bin, "current", "--launch", "--chrome", env.chromePath, "--json", slow.URL+"/")
	setProcAttr(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("current --launch %s: %v\nstderr:\n%s", slow.URL, err, stderr.String())
	}
	cur := checkCurrent(t, stdout.Bytes())
	doc := elemtest.FindDoc(t, cur.Root, slow.URL+"/")
	if slices.Contains(doc.States, "busy") {
		t.Errorf("the Document is still busy: %v", doc.States)
	}
	elemtest.Find(t, doc, "Heading", "Start of the slow page")
	elemtest.Find(t, doc, "Text", "End of the slow page")
}

// runBinary runs the built binary with args, and the test's environment
// plus environ, to its end (at most a minute), and returns what it wrote
// and its exit status.
func runBinary(t *testing.T, environ []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.bin, args...)
	setProcAttr(cmd)
	cmd.Env = append(os.Environ(), environ...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("run %s %s: %v\nstderr:\n%s", env.bin, strings.Join(args, " "), err, errb.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %s did not end within a minute\nstderr:\n%s", env.bin, strings.Join(args, " "), errb.String())
	}
	return out.String(), errb.String(), code
}

// A flag that takes a number, given something else: a usage error naming
// the flag and the value, with the usage, exit status 2, nothing on
// stdout, and no browser read or started.
func TestNonNumericFlagValues(t *testing.T) {
	needEnv(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"current", "--launch", "--max-text", "abc"}, `invalid value "abc" for flag -max-text`},
		{[]string{"serve", "--connect", env.browser.httpURL(), "--max-elements", "1.5"}, `invalid value "1.5" for flag -max-elements`},
		{[]string{"current", "--connect", env.browser.httpURL(), "--json", "--max-bytes", "8MiB"}, `invalid value "8MiB" for flag -max-bytes`},
		{[]string{"serve", "--launch", "--max-text="}, `invalid value "" for flag -max-text`},
	} {
		stdout, stderr, code := runBinary(t, nil, c.args...)
		if code != 2 {
			t.Errorf("%q: exit status %d, want 2 (a usage error)\nstderr:\n%s", c.args, code, stderr)
		}
		if stdout != "" {
			t.Errorf("%q: wrote %q on stdout, want nothing", c.args, stdout)
		}
		if !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "Usage: cdpprovider "+c.args[0]) {
			t.Errorf("%q: stderr does not say %q with the command's usage:\n%s", c.args, c.want, stderr)
		}
		if strings.Contains(stderr, "level=") {
			t.Errorf("%q: the provider logged, so it ran:\n%s", c.args, stderr)
		}
	}
}

// --log-file: the log goes to the file (appended, at the level asked),
// stderr stays empty.
func TestLogFile(t *testing.T) {
	needEnv(t)
	file := filepath.Join(t.TempDir(), "provider.log")
	if err := os.WriteFile(file, []byte("an earlier line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProviderCmd(t, []string{"serve", "--connect", env.browser.httpURL(), "--log-file", file, "--log-level", "debug"}, nil, nil)
	tb := openTab(t, env.rootCtx, env.pageA+"/plain.html")
	elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb.url), "Button", "Plain button")
	// A locate of a malformed id is logged at Debug.
	p.wantNotFound(t, locatePrefix+"nope", "a malformed id")
	if err := p.close(); err != nil {
		t.Fatalf("provider did not stop cleanly: %v", err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	log := string(b)
	if !strings.HasPrefix(log, "an earlier line\n") {
		t.Errorf("the log file was not appended to:\n%s", log)
	}
	for _, want := range []string{`level=INFO msg="connected to the browser"`, `level=DEBUG msg="resource not found"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log file lacks %s:\n%s", want, log)
		}
	}
	if s := p.stderr.String(); s != "" {
		t.Errorf("with --log-file the provider wrote on stderr:\n%s", s)
	}
}

// --bundle-id is the descriptor's app.bundle; the rest of the app is the
// browser's.
func TestBundleID(t *testing.T) {
	needEnv(t)
	p := startProvider(t, env.browser.httpURL(), "--bundle-id", "com.example.Kiosk")
	d := p.descriptor(t)
	if d.App.Bundle != "com.example.Kiosk" {
		t.Errorf("descriptor app.bundle = %q with --bundle-id com.example.Kiosk", d.App.Bundle)
	}
	if root := p.current(t).Root; d.App.Title != root.Title || d.App.Title == "" {
		t.Errorf("descriptor app.title = %q, root title %q: want the browser's name in both", d.App.Title, root.Title)
	}
}

// A --connect address off this machine is refused without --allow-remote,
// whatever its form: a ws:// URL, an IPv6 literal (current at start, serve
// at every read). The IPv6 loopback is
// this machine: accepted, and read.
func TestRemoteAddressesNeedAllowRemote(t *testing.T) {
	needEnv(t)
	for _, addr := range []string{
		"ws://192.0.2.7:9222/devtools/browser/4b3f0c2e",
		"http://[2001:db8::1]:9222",
		"[2001:db8::1]:9222",
		"ws://[2001:db8::1]:9222/devtools/browser/4b3f0c2e",
	} {
		stdout, stderr, code := runBinary(t, nil, "current", "--connect", addr)
		if code == 0 || stdout != "" || !strings.Contains(stderr, "--allow-remote") {
			t.Errorf("current --connect %s: exit status %d, stdout %q, stderr:\n%s\nwant a refusal naming --allow-remote, a non-zero exit status, nothing on stdout", addr, code, stdout, stderr)
		}
		// serve starts, and answers its reads with the refusal.
		p := startProvider(t, addr)
		p.wantFailure(t, currentURI, "--allow-remote")
	}

	// [::1]: a relay on the IPv6 loopback to the shared browser.
	relay := startRelay(t, "[::1]:0", strings.TrimPrefix(env.browser.httpURL(), "http://"))
	addr := "http://" + relay.addr()
	tb := openTab(t, env.rootCtx, env.pageA+"/plain.html")
	p := startProvider(t, addr)
	elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb.url), "Button", "Plain button")
	stdout, stderr, code := runBinary(t, nil, "current", "--connect", addr)
	if code != 0 || !strings.Contains(stdout, "Plain button") {
		t.Errorf("current --connect %s: exit status %d, stdout:\n%s\nstderr:\n%s\nwant the outline with the page", addr, code, stdout, stderr)
	}
}

// --rest-after: serve rests that long after a host's last read, and says
// so at debug level; the next read is answered, and wakes it.
func TestRestAfter(t *testing.T) {
	needEnv(t)
	file := filepath.Join(t.TempDir(), "provider.log")
	p := startProviderCmd(t, []string{"serve", "--connect", env.browser.httpURL(), "--rest-after", "1s", "--log-file", file, "--log-level", "debug"}, nil, nil)
	tb := openTab(t, env.rootCtx, env.pageA+"/plain.html")
	elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb.url), "Button", "Plain button")
	logged := func(msg string) func() bool {
		return func() bool {
			b, _ := os.ReadFile(file)
			return strings.Contains(string(b), `level=DEBUG msg="`+msg)
		}
	}
	// The rest is the provider's own doing: only its log tells when.
	waitFor(t, "serve --rest-after 1s to log that it rests", logged("resting"))
	elemtest.Find(t, elemtest.FindDoc(t, p.current(t).Root, tb.url), "Button", "Plain button")
	if !logged("awake")() {
		b, _ := os.ReadFile(file)
		t.Errorf("the read after the rest did not log that the provider woke:\n%s", b)
	}
	if err := p.close(); err != nil {
		t.Fatalf("provider did not stop cleanly: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--rest-after", "soon"}, `invalid value "soon" for flag -rest-after`},
		{[]string{"serve", "--rest-after", "-5s"}, `invalid value "-5s" for flag -rest-after`},
		{[]string{"current", "--rest-after", "5s"}, `flag provided but not defined: -rest-after`},
	} {
		stdout, stderr, code := runBinary(t, nil, c.args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit status %d, stdout %q, want 2 and nothing, with %q on stderr:\n%s", c.args, code, stdout, c.want, stderr)
		}
	}
}
