package browsers

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	psprocess "github.com/shirou/gopsutil/v4/process"
)

// The fake browsers of these tests are this test executable run again
// with fakeEnv set to what it should be, so that they run wherever the
// tests do (no shell script):
//
//   - "exit": a browser that cannot start: it says why and exits 3;
//   - "wait": a browser that runs until its standard input closes;
//   - "forever": a browser that runs until killed;
//   - "devtools": a browser with a debugging port: it serves
//     /json/version and /json/list (one page) on 127.0.0.1 and says
//     "DevTools listening on ws://…", as Chrome does, until killed;
//   - "provider": a provider that launches the "devtools" browser, prints
//     the browser's pid and profile, and waits to be killed;
//   - "watched" (Unix): a provider that starts a "forever" browser in a
//     process group of its own, with a second process in that group, and
//     a watcher of the group (watchGroup), prints both pids, and waits to
//     be killed.
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
	case "forever":
		for {
			time.Sleep(time.Hour)
		}
	case "devtools":
		fakeDevTools()
	case "provider":
		fakeProvider()
	case "watched":
		fakeWatched()
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

// waitGone waits until process pid has exited (or is a zombie no one has
// reaped yet), failing the test if it still runs after a minute.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		p, err := psprocess.NewProcess(int32(pid))
		if err != nil {
			return
		}
		if st, err := p.Status(); err == nil && slices.Contains(st, psprocess.Zombie) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still runs a minute later", pid)
		}
		<-tick.C
	}
}

// startFakeProvider runs the fake provider of that kind and returns it
// and the first line it prints.
func startFakeProvider(t *testing.T, kind string) (*exec.Cmd, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), fakeEnv+"="+kind, "TMPDIR="+tmp, "TMP="+tmp) // TMP: Windows' os.TempDir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the fake provider said nothing: %v; its errors:\n%s", err, stderr.String())
	}
	return cmd, strings.TrimSpace(line)
}
