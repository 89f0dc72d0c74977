package provider

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/internal/bearer"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// httpRun is serve --http run with a fake source.
type httpRun struct {
	url    string
	stdout *bufio.Reader // after the URL
	stderr *syncbuf.Buffer
	cancel context.CancelFunc
	done   chan struct{} // closed when run has returned err
	err    error
}

// startHTTP runs cfg (a serve --http) and waits for the URL on stdout.
func startHTTP(t *testing.T, cfg Config) *httpRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, stdout := io.Pipe()
	r := &httpRun{stderr: &syncbuf.Buffer{}, cancel: cancel, done: make(chan struct{}), stdout: bufio.NewReader(out)}
	go func() {
		r.err = run(ctx, cfg, nil, stdout, r.stderr, opener(&fakeSource{}))
		stdout.Close()
		close(r.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-r.done
	})
	line, err := r.stdout.ReadString('\n')
	if err != nil {
		t.Fatalf("no URL on stdout: %v\nstderr:\n%s", err, r.stderr)
	}
	r.url = strings.TrimSuffix(line, "\n")
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/mcp$`).MatchString(r.url) {
		t.Fatalf("stdout's first line %q, want http://127.0.0.1:PORT/mcp", line)
	}
	return r
}

// stop cancels the run and returns its error.
func (r *httpRun) stop(t *testing.T) error {
	t.Helper()
	r.cancel()
	<-r.done
	return r.err
}

// connectHTTP starts an MCP session at url with the token, under the
// newest MCP revision go-sdk speaks (2026-07-28).
func connectHTTP(t *testing.T, url string, b bearer.Transport) *sdkmcp.ClientSession {
	t.Helper()
	return connectHTTPAt(t, url, b, "")
}

// connectHTTPAt is connectHTTP under the MCP revision version.
func connectHTTPAt(t *testing.T, url string, b bearer.Transport, version string) *sdkmcp.ClientSession {
	t.Helper()
	client := sdkmcp.NewClient(&sdkmcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(context.Background(), &sdkmcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: &http.Client{Transport: b}, MaxRetries: -1,
	}, &sdkmcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func writeToken(t *testing.T, content string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(f, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// acceptSignal is a listener that says on accepted when it has handed
// the server a connection.
type acceptSignal struct {
	net.Listener
	accepted chan struct{}
}

func (l acceptSignal) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		select { // never holds up the server's accept loop
		case l.accepted <- struct{}{}:
		default:
		}
	}
	return c, err
}

// A connection that has sent nothing (Go's HTTP client keeps such spare
// ones in its pool) does not hold up stopping: http.Server.Shutdown would
// wait for it as for a read under way, 5 s.
func TestStoppingDoesNotWaitForAConnectionThatSentNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := acceptSignal{ln, make(chan struct{}, 1)}
	stderr := &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() {
		served <- serveHTTP(ctx, Config{Command: Serve}, &endpoint{ln: l, token: "tok"}, &fakeSource{}, io.Discard, stderr, slog.New(slog.NewTextHandler(stderr, nil)))
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case <-l.accepted:
	case <-time.After(time.Minute): // a bound, not a wait
		t.Fatal("the server did not accept the connection")
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve --http stopped with %v, want nil", err)
	}
	if log := stderr.String(); strings.Contains(log, "still under way") {
		t.Errorf("stopping waited for a connection that sent nothing:\n%s", log)
	}
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Errorf("the connection is still open after serve stopped (read %d bytes)", n)
	}
}

// Two clients at once on one source, one under 2025-11-25 (a session)
// and one under 2026-07-28 (none), the tools among what they read;
// stopping ends their open streams at once, not after a timeout: the
// first's session's GET, the second's subscriptions/listen.
func TestServeHTTP(t *testing.T) {
	cfg := Config{Command: Serve, Connect: "127.0.0.1:9222", HTTP: "127.0.0.1:0", TokenFile: writeToken(t, "  tok-1234\n"), Tools: true}
	r := startHTTP(t, cfg)
	streams := make(chan struct{}, 2)
	var texts []string
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connectHTTPAt(t, r.url, bearer.Transport{Token: "tok-1234", Streams: streams}, version)
		if got := cs.InitializeResult().ProtocolVersion; got != version {
			t.Fatalf("a client asking for %s speaks %s", version, got)
		}
		if err := cs.Subscribe(context.Background(), &sdkmcp.SubscribeParams{URI: "uicontext://current"}); err != nil {
			t.Fatalf("subscribe over HTTP under %s: %v", version, err)
		}
		res, err := cs.ReadResource(context.Background(), &sdkmcp.ReadResourceParams{URI: "uicontext://current"})
		if err != nil {
			t.Fatalf("read current over HTTP: %v", err)
		}
		tool, err := cs.CallTool(context.Background(), &sdkmcp.CallToolParams{Name: "ui_current"})
		if err != nil {
			t.Fatalf("call ui_current over HTTP: %v", err)
		}
		if got := tool.Content[0].(*sdkmcp.TextContent).Text; got != res.Contents[0].Text {
			t.Errorf("ui_current %s, current %s", got, res.Contents[0].Text)
		}
		texts = append(texts, res.Contents[0].Text)
	}
	if texts[0] != texts[1] || !strings.Contains(texts[0], `"role":"Application"`) {
		t.Errorf("the two clients read %q and %q", texts[0], texts[1])
	}

	resp, err := http.Post(r.url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("POST without the token: %s, WWW-Authenticate %q; want 401 and Bearer", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}

	// Both clients hold a stream open for notifications.
	for range 2 {
		<-streams
	}
	if err := r.stop(t); err != nil {
		t.Fatalf("serve --http stopped with %v, want nil\nstderr:\n%s", err, r.stderr)
	}
	if log := r.stderr.String(); strings.Contains(log, "still under way") || !strings.Contains(log, "stopping") {
		t.Errorf("stopping waited for the open streams, or was not logged:\n%s", log)
	}
	if rest, _ := io.ReadAll(r.stdout); len(rest) > 0 {
		t.Errorf("stdout after the URL: %q, want nothing", rest)
	}
	if strings.Contains(r.stderr.String(), "tok-1234") {
		t.Errorf("the token of --token-file is on stderr:\n%s", r.stderr)
	}
	if _, err := http.Post(r.url, "application/json", strings.NewReader(`{}`)); err == nil {
		t.Error("the endpoint still answers after serve stopped")
	}
}

// Without --token-file a random token is made and printed once on
// stderr, with the URL.
func TestServeHTTPRandomToken(t *testing.T) {
	r := startHTTP(t, Config{Command: Serve, Connect: "127.0.0.1:9222", HTTP: "127.0.0.1:0"})
	m := regexp.MustCompile(`Authorization: Bearer ([0-9a-f]+)`).FindAllStringSubmatch(r.stderr.String(), -1)
	if len(m) != 1 || len(m[0][1]) != 64 {
		t.Fatalf("stderr has %d bearer tokens, want one of 64 hex digits:\n%s", len(m), r.stderr)
	}
	if !strings.Contains(r.stderr.String(), "serving MCP at "+r.url+"\n") {
		t.Errorf("stderr does not give the URL with the token:\n%s", r.stderr)
	}
	cs := connectHTTP(t, r.url, bearer.Transport{Token: m[0][1]})
	if _, err := cs.ReadResource(context.Background(), &sdkmcp.ReadResourceParams{URI: "uicontext://descriptor"}); err != nil {
		t.Errorf("read with the printed token: %v", err)
	}
	cs.Close()
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}
	other := startHTTP(t, Config{Command: Serve, Connect: "127.0.0.1:9222", HTTP: "127.0.0.1:0"})
	if strings.Contains(other.stderr.String(), m[0][1]) {
		t.Error("a second start has the same token")
	}
}

// A port in use and a token file that cannot serve fail before the
// browser is opened, saying what is wrong.
func TestServeHTTPFails(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tt := range []struct {
		cfg  Config
		want string
	}{
		{Config{HTTP: taken.Addr().String()}, "address already in use"},
		{Config{HTTP: "127.0.0.1:0", TokenFile: filepath.Join(t.TempDir(), "none")}, "--token-file: open "},
		{Config{HTTP: "127.0.0.1:0", TokenFile: writeToken(t, " \n")}, "is empty"},
		{Config{HTTP: "127.0.0.1:0", TokenFile: writeToken(t, "a\nb\n")}, "more than one line"},
		{Config{HTTP: "192.0.2.1:8377"}, "--allow-remote"},
	} {
		tt.cfg.Command, tt.cfg.Connect = Serve, "127.0.0.1:9222"
		f := &fakeSource{}
		opened := false
		open := func(cdp.Options) (source, error) { opened = true; return f, nil }
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.cfg, nil, &stdout, &stderr, open)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want an error with %q", tt.cfg, err, tt.want)
		}
		if opened || stdout.Len() > 0 {
			t.Errorf("%+v: source opened %v, stdout %q; want neither", tt.cfg, opened, stdout.String())
		}
	}
}
