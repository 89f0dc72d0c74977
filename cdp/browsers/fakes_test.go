package browsers

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"
)

// The fake browsers of these tests are this test executable run again
// with fakeEnv set to what it should be, so that they run wherever the
// tests do (no shell script):
//
//   - "exit": a browser that cannot start: it says why and exits 3;
//   - "wait": a browser that runs until its standard input closes;
//   - "devtools": a browser with a debugging port: it serves
//     /json/version and /json/list (one page) on 127.0.0.1 and says
//     "DevTools listening on ws://…", as Chrome does, until killed;
//   - "provider": a provider that launches the "devtools" browser, prints
//     the browser's pid and waits to be killed.
const fakeEnv = "CDPPROVIDER_BROWSERS_TEST_FAKE"

func TestMain(m *testing.M) {
	switch os.Getenv(fakeEnv) {
	case "":
		os.Exit(m.Run())
	case "exit":
		fmt.Fprintln(os.Stderr, "fake chrome: cannot open display")
		os.Exit(3)
	case "wait":
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "devtools":
		fakeDevTools()
	case "provider":
		fakeProvider()
	}
	fmt.Fprintf(os.Stderr, "%s=%q: no such fake\n", fakeEnv, os.Getenv(fakeEnv))
	os.Exit(2)
}

// fakeDevTools serves a browser's /json documents until killed.
func fakeDevTools() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	host := l.Addr().String()
	fmt.Fprintf(os.Stderr, "\nDevTools listening on ws://%s/devtools/browser/fake\n", host)
	_ = http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json/version":
			fmt.Fprintf(w, `{"Browser":"Chrome/156.0","webSocketDebuggerUrl":"ws://%s/devtools/browser/fake"}`, host)
		case "/json/list":
			fmt.Fprintf(w, `[{"type":"page","url":"about:blank"}]`)
		default:
			http.NotFound(w, r)
		}
	}))
	os.Exit(1)
}

// fakeProvider launches a fake browser, says its pid and its profile,
// and waits to be killed.
func fakeProvider() {
	if err := os.Setenv(fakeEnv, "devtools"); err != nil {
		os.Exit(1)
	}
	b, err := Launch(context.Background(), LaunchOptions{Path: os.Args[0], StartTimeout: time.Minute})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d %s\n", b.cmd.Process.Pid, b.profile)
	select {}
}

// runFake starts this test executable as the fake browser of that
// kind, with args (args[0] the name it runs under), and kills it at the
// test's end.
func runFake(t *testing.T, kind string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Args = args
	cmd.Env = append(os.Environ(), fakeEnv+"="+kind)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}
