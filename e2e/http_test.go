package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/internal/bearer"
	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve --http: several hosts at once by URL, each with the bearer token,
// on one launched browser.

// httpProvider is one `cdpprovider serve --http 127.0.0.1:0 --token-file
// F` process.
type httpProvider struct {
	cmd    *exec.Cmd
	url    string // the endpoint, as its first line on stdout gave it
	token  string
	stderr *syncbuf.Buffer
	stdout *syncbuf.Buffer // what it wrote after the URL
	exited chan struct{}
}

// startHTTPProvider starts serve --http with a token file and args, and
// waits for the URL it prints once it serves. The test's end stops it as
// a person does, with an interrupt.
func startHTTPProvider(t *testing.T, args ...string) *httpProvider {
	t.Helper()
	needEnv(t)
	b := make([]byte, 32)
	rand.Read(b)
	p := &httpProvider{token: hex.EncodeToString(b), stderr: &syncbuf.Buffer{}, stdout: &syncbuf.Buffer{}, exited: make(chan struct{})}
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(p.token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"serve", "--http", "127.0.0.1:0", "--token-file", file}, args...)
	p.cmd = exec.Command(env.bin, argv...)
	setProcAttr(p.cmd)
	p.cmd.Stderr = p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	go func() {
		br := bufio.NewReader(out)
		if line, err := br.ReadString('\n'); err == nil {
			urlc <- line
		}
		io.Copy(p.stdout, br)
		p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Error(err)
		}
		t.Logf("provider stderr:\n%s", p.stderr.String())
		if rest := p.stdout.String(); rest != "" {
			t.Errorf("stdout after the URL: %q, want nothing", rest)
		}
		if strings.Contains(p.stderr.String(), p.token) {
			t.Errorf("the token is on stderr")
		}
	})
	select {
	case line := <-urlc:
		p.url = strings.TrimSuffix(line, "\n")
	case <-p.exited:
		t.Fatalf("%s %s exited before it served: %v\nstderr:\n%s", env.bin, strings.Join(argv, " "), p.cmd.ProcessState, p.stderr.String())
	case <-time.After(time.Minute):
		t.Fatalf("no URL on stdout within a minute\nstderr:\n%s", p.stderr.String())
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/mcp$`).MatchString(p.url) {
		t.Fatalf("the URL on stdout is %q, want http://127.0.0.1:PORT/mcp", p.url)
	}
	return p
}

// stop interrupts the provider and wants it to exit cleanly, killing it
// after waitLimit. A second call finds it stopped.
func (p *httpProvider) stop() error {
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.exited:
		case <-time.After(waitLimit):
			killGroup(p.cmd)
			<-p.exited
			return fmt.Errorf("the provider was still running %v after an interrupt; killed", waitLimit)
		}
	}
	if st := p.cmd.ProcessState; !st.Success() {
		return fmt.Errorf("exit status after an interrupt: %v", st)
	}
	return nil
}

// connect starts a session with the provider over HTTP with its token,
// under the newest MCP revision go-sdk speaks (2026-07-28): each request
// stands alone, and a subscription is a request of its own.
func (p *httpProvider) connect(t *testing.T, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return p.connectAt(t, copts, "")
}

// connectAt is connect under the MCP revision version. Under a revision
// with sessions (before 2026-07-28) it waits until the server streams
// notifications to the session.
func (p *httpProvider) connectAt(t *testing.T, copts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	streams := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpprovider-e2e", Version: "0"}, copts)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   p.url,
		HTTPClient: &http.Client{Transport: bearer.Transport{Token: p.token, Streams: streams}},
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("initialize over HTTP at %s: %v\nstderr:\n%s", p.url, err, p.stderr.String())
	}
	t.Cleanup(func() { session.Close() })
	if session.InitializeResult().ProtocolVersion >= "2026-07-28" {
		return session
	}
	select {
	case <-streams:
	case <-ctx.Done():
		t.Fatalf("the server opened no stream of notifications within %v", waitLimit)
	}
	return session
}

// request sends a raw initialize to the endpoint with the headers (and
// Host, when not ""), and returns the answer's status and its
// WWW-Authenticate header.
func (p *httpProvider) request(t *testing.T, host string, header map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", p.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", p.url, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate")
}

// launchedTab drives the page the provider's own browser opened, found
// by its debugging address in the provider's log, as the user.
func (p *httpProvider) launchedTab(t *testing.T, url string) (ctx context.Context, done func()) {
	t.Helper()
	m := regexp.MustCompile(`msg="browser launched".* debug=(http://127\.0\.0\.1:\d+)`).FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("the provider's log does not give the launched browser's debugging address:\n%s", p.stderr.String())
	}
	alloc, cancelAlloc := remote.NewAllocator(context.Background(), m[1])
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	targets, err := chromedp.Targets(bctx)
	if err != nil {
		t.Fatalf("the launched browser's targets: %v", err)
	}
	for _, tg := range targets {
		if tg.Type == "page" && tg.URL == url {
			ctx, cancelTab := chromedp.NewContext(bctx, chromedp.WithTargetID(tg.TargetID))
			if err := chromedp.Do(ctx); err != nil {
				t.Fatalf("attach to %s in the launched browser: %v", url, err)
			}
			return ctx, func() { cancelTab(); cancelBrowser(); cancelAlloc() }
		}
	}
	t.Fatalf("the launched browser has no tab on %s: %s", url, dump(targets))
	return nil, nil
}

func TestHTTP(t *testing.T) {
	page := env.pageA + "/notify.html"
	p := startHTTPProvider(t, "--launch", "--chrome", env.chromePath, page)

	t.Run("reads current and locate", func(t *testing.T) {
		session := p.connect(t, nil)
		var cur *answer
		waitFor(t, "the launched page in current", func() bool {
			raw, err := readSession(t, session, currentURI)
			if err != nil {
				t.Fatalf("read %s over HTTP: %v", currentURI, err)
			}
			cur = &answer{Current: checkCurrent(t, raw), raw: raw}
			return len(elemtest.FindAll(cur.Root, "Button", "Go")) == 1
		})
		elemtest.FindDoc(t, cur.Root, page)
		raw, err := readSession(t, session, locatePrefix+elemtest.Find(t, cur.Root, "Button", "Go").ID)
		if err != nil {
			t.Fatalf("locate over HTTP: %v", err)
		}
		if loc := checkLocation(t, raw); loc.State != "onscreen" {
			t.Errorf("locate of the page's button: %s, want onscreen", raw)
		}
		raw, err = readSession(t, session, descriptorURI)
		if err != nil {
			t.Fatalf("read %s over HTTP: %v", descriptorURI, err)
		}
		checkDescriptor(t, raw)
	})

	t.Run("refuses requests without the token, with a wrong one, from web pages", func(t *testing.T) {
		for _, tt := range []struct {
			name   string
			host   string
			header map[string]string
			want   int
		}{
			{"no token", "", nil, http.StatusUnauthorized},
			{"a wrong token", "", map[string]string{"Authorization": "Bearer " + p.token[1:] + "0"}, http.StatusUnauthorized},
			{"the token as basic auth", "", map[string]string{"Authorization": "Basic " + p.token}, http.StatusUnauthorized},
			{"a foreign Origin", "", map[string]string{"Authorization": "Bearer " + p.token, "Origin": "http://evil.example"}, http.StatusForbidden},
			{"a foreign Origin, no token", "", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
			{"a rebound Host", "evil.example", map[string]string{"Authorization": "Bearer " + p.token}, http.StatusForbidden},
			{"a loopback Origin", "", map[string]string{"Authorization": "Bearer " + p.token, "Origin": "http://localhost:5173"}, http.StatusOK},
		} {
			status, auth := p.request(t, tt.host, tt.header)
			if status != tt.want {
				t.Errorf("%s: status %d, want %d", tt.name, status, tt.want)
			}
			if (status == http.StatusUnauthorized) != (auth == "Bearer") {
				t.Errorf("%s: status %d with WWW-Authenticate %q; want Bearer with 401 only", tt.name, status, auth)
			}
		}
	})

	t.Run("each subscribed client is notified, no other", func(t *testing.T) {
		ua, ub, uc := newUpdates(), newUpdates(), newUpdates()
		// Sessions, subscribed with resources/subscribe (TestSubscribeOverHTTP
		// has 2026-07-28's subscriptions/listen).
		a, b := p.connectAt(t, ua.handler(), "2025-11-25"), p.connectAt(t, ub.handler(), "2025-11-25")
		c := p.connectAt(t, uc.handler(), "2025-11-25") // connected, never subscribed
		for _, s := range []*mcp.ClientSession{a, b} {
			if err := s.Subscribe(context.Background(), &mcp.SubscribeParams{URI: currentURI}); err != nil {
				t.Fatalf("subscribe over HTTP: %v", err)
			}
		}
		tab, done := p.launchedTab(t, page)
		defer done()
		quiet(t, ua)
		quiet(t, ub)

		t0 := time.Now()
		eval[bool](t, tab, `document.getElementById('status').textContent = 'Status 1', true`)
		if ua.next(t0, waitLimit).IsZero() || ub.next(t0, waitLimit).IsZero() {
			t.Fatalf("a change was not told to both subscribed clients: a %d, b %d notifications", len(ua.since(t0)), len(ub.since(t0)))
		}
		quiet(t, ua)
		quiet(t, ub)
		if got := uc.since(time.Time{}); len(got) != 0 {
			t.Errorf("the client that never subscribed got %d notifications", len(got))
		}

		// c, never subscribed, unsubscribes, then b does: a is still
		// told, b no more.
		if err := c.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: currentURI}); err != nil {
			t.Fatalf("unsubscribe over HTTP: %v", err)
		}
		if err := b.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: currentURI}); err != nil {
			t.Fatalf("unsubscribe over HTTP: %v", err)
		}
		t1 := time.Now()
		eval[bool](t, tab, `document.getElementById('status').textContent = 'Status 2', true`)
		if ua.next(t1, waitLimit).IsZero() {
			t.Fatalf("a change after b unsubscribed was not told to a")
		}
		quiet(t, ua)
		if got := ub.since(t1); len(got) != 0 {
			t.Errorf("the client that unsubscribed got %d notifications", len(got))
		}
		if got := uc.since(time.Time{}); len(got) != 0 {
			t.Errorf("the client that never subscribed got %d notifications", len(got))
		}

		// An interrupt stops the provider cleanly while the three hold
		// their streams open.
		done()
		if err := p.stop(); err != nil {
			t.Error(err)
		}
		if strings.Contains(p.stderr.String(), "still under way") {
			t.Error("stopping waited for the clients' open streams")
		}
	})
}
