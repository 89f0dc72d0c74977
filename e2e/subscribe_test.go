package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
)

// Both ways of subscribing to current (docs/protocol.md §7.4), on both
// transports, in the raw JSON-RPC a host's own code sends: under
// 2026-07-28 a subscriptions/listen request, acknowledged and then
// answered by one notification per change that names it, until it is
// cancelled (stdio) or its response closed (HTTP); under the older
// revisions resources/subscribe and resources/unsubscribe in a session.

// newestMeta is the _meta of every request under 2026-07-28.
const newestMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"cdpprovider-e2e","version":"0"}}`

// listen is a subscriptions/listen to current under 2026-07-28.
func listen(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{%s,"notifications":{"resourceSubscriptions":["uicontext://current"]}}}`, id, newestMeta)
}

// acked is the server's acknowledgement of listen(id).
func acked(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%d},"notifications":{"resourceSubscriptions":["uicontext://current"]}}}`, id)
}

// updated is the notification of a change of current to listen(id); to
// a session subscribed with resources/subscribe when id is 0.
func updated(id int) string {
	if id == 0 {
		return `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"uicontext://current"}}`
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%d},"uri":"uicontext://current"}}`, id)
}

// rpcMessage is what the tests look at in a message from the server.
type rpcMessage struct {
	ID     *int            `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func decode(t *testing.T, msg string) rpcMessage {
	t.Helper()
	var m rpcMessage
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatalf("not JSON-RPC: %v: %s", err, msg)
	}
	return m
}

// wantDiscovered checks a server/discover answer: every revision go-sdk
// serves, 2026-07-28 first, and the subscribe capability.
func wantDiscovered(t *testing.T, msg string) {
	t.Helper()
	var m struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
			Capabilities      struct {
				Resources struct{ Subscribe bool }
			}
		}
	}
	if err := json.Unmarshal([]byte(msg), &m); err != nil {
		t.Fatalf("server/discover: %v: %s", err, msg)
	}
	if want := mcp.SupportedProtocolVersions(); !slices.Equal(m.Result.SupportedVersions, want) || want[0] != "2026-07-28" || !m.Result.Capabilities.Resources.Subscribe {
		t.Errorf("server/discover answered %s\nwant the revisions %q, 2026-07-28 first, and resources.subscribe", msg, want)
	}
}

// wantListenEnded checks the answer that ends listen(id).
func wantListenEnded(t *testing.T, msg string, id int) {
	t.Helper()
	var m struct {
		ID     int
		Result struct {
			ResultType string
			Meta       map[string]any `json:"_meta"`
		}
	}
	if err := json.Unmarshal([]byte(msg), &m); err != nil || m.ID != id || m.Result.ResultType != "complete" || m.Result.Meta["io.modelcontextprotocol/subscriptionId"] != float64(id) {
		t.Errorf("the listen %d ended with %s, want its result, complete, naming it in _meta", id, msg)
	}
}

// rawStdio is `cdpprovider serve ARGS...` spoken to in raw JSON-RPC over
// its stdin and stdout.
type rawStdio struct {
	stdin  io.WriteCloser
	lines  chan string // stdout's lines; closed when it ends
	stderr *syncbuf.Buffer
}

func startRawStdio(t *testing.T, args ...string) *rawStdio {
	t.Helper()
	needEnv(t)
	cmd := exec.Command(env.bin, append([]string{"serve"}, args...)...)
	setProcAttr(cmd)
	h := &rawStdio{lines: make(chan string, 1000), stderr: &syncbuf.Buffer{}}
	cmd.Stderr = h.stderr
	var err error
	if h.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		h.stdin.Close() // a host that goes away: serve ends
		select {
		case <-exited:
		case <-time.After(waitLimit):
			killGroup(cmd)
			<-exited
			t.Errorf("serve still ran %v after its stdin closed; killed", waitLimit)
		}
		t.Logf("provider stderr:\n%s", h.stderr.String())
	})
	return h
}

func (h *rawStdio) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := io.WriteString(h.stdin, msg+"\n"); err != nil {
		t.Fatalf("write %s: %v", msg, err)
	}
}

// next returns the next message from the provider.
func (h *rawStdio) next(t *testing.T, what string) string {
	t.Helper()
	return nextOf(t, h.lines, what)
}

// nextOf returns the next message on c, failing when none comes within
// waitLimit or c ends.
func nextOf(t *testing.T, c <-chan string, what string) string {
	t.Helper()
	select {
	case msg, ok := <-c:
		if !ok {
			t.Fatalf("%s: the provider's messages ended", what)
		}
		return msg
	case <-time.After(waitLimit):
		t.Fatalf("%s: no message within %v", what, waitLimit)
	}
	return ""
}

// answerTo waits for the answer to request id and returns it; the
// messages before it must all be the notification skip.
func answerTo(t *testing.T, c <-chan string, id int, skip string) string {
	t.Helper()
	for {
		msg := nextOf(t, c, fmt.Sprintf("the answer to %d", id))
		if msg == skip {
			continue
		}
		if m := decode(t, msg); m.ID == nil || *m.ID != id {
			t.Fatalf("waiting for the answer to %d: %s, want only %s before it", id, msg, skip)
		}
		return msg
	}
}

// quietOn waits until no message has come on c for 500 ms; every message
// meanwhile must be the notification allowed.
func quietOn(t *testing.T, c <-chan string, allowed string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		select {
		case msg, ok := <-c:
			if !ok {
				t.Fatal("the provider's messages ended")
			}
			if msg != allowed {
				t.Fatalf("while waiting for quiet: %s, want nothing but %s", msg, allowed)
			}
			if time.Now().After(deadline) {
				t.Fatalf("notifications kept coming for 15 s on a page that does nothing")
			}
		case <-time.After(500 * time.Millisecond):
			return
		}
	}
}

// readCurrent is a resources/read of current; meta is "" under the
// older revisions.
func readCurrent(id int, meta string) string {
	if meta != "" {
		meta += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{%s"uri":"uicontext://current"}}`, id, meta)
}

// wantStatus checks that a read's answer shows the status line text.
func wantStatus(t *testing.T, msg, text string) {
	t.Helper()
	m := decode(t, msg)
	var res mcp.ReadResourceResult
	if err := json.Unmarshal(m.Result, &res); err != nil || len(res.Contents) != 1 {
		t.Fatalf("read current: %s", msg)
	}
	if !strings.Contains(res.Contents[0].Text, `"`+text+`"`) {
		t.Errorf("read current after the change does not hold %q: %.500s", text, res.Contents[0].Text)
	}
}

// statusChanger changes the status line of a notify.html tab, each time
// to a text of its own, which it returns.
func statusChanger(tb *tab) func(t *testing.T) string {
	n := 0
	return func(t *testing.T) string {
		n++
		text := fmt.Sprintf("Status %d", n)
		eval[bool](t, tb.ctx, fmt.Sprintf(`document.getElementById('status').textContent = %q, true`, text))
		return text
	}
}

func TestSubscribeOverStdio(t *testing.T) {
	tb := openTab(t, env.rootCtx, env.pageA+"/notify.html")
	change := statusChanger(tb)

	t.Run("2026-07-28: subscriptions/listen until notifications/cancelled", func(t *testing.T) {
		h := startRawStdio(t, "--connect", env.browser.httpURL())
		h.send(t, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+newestMeta+`}}`)
		wantDiscovered(t, h.next(t, "server/discover"))

		h.send(t, `{"jsonrpc":"2.0","id":9,"method":"subscriptions/listen","params":{`+newestMeta+`,"notifications":{"resourceSubscriptions":["uicontext://descriptor"]}}}`)
		if got, want := h.next(t, "a listen to the descriptor"), `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"uicontext://descriptor cannot be subscribed to: the descriptor never changes while the provider runs; only uicontext://current and uicontext://current?scope=screen send change notifications","data":{"uri":"uicontext://descriptor","reason":"not-subscribable"}}}`; got != want {
			t.Errorf("a listen to the descriptor answered\n%s\nwant\n%s", got, want)
		}

		h.send(t, listen(2))
		if got, want := h.next(t, "the acknowledgement"), acked(2); got != want {
			t.Fatalf("subscriptions/listen answered\n%s\nwant\n%s", got, want)
		}
		h.send(t, readCurrent(3, newestMeta)) // as a host reads once subscribed
		answerTo(t, h.lines, 3, updated(2))
		quietOn(t, h.lines, updated(2))
		text := change(t)
		if got, want := h.next(t, "a change"), updated(2); got != want {
			t.Fatalf("after a change\n%s\nwant\n%s", got, want)
		}
		h.send(t, readCurrent(4, newestMeta))
		wantStatus(t, answerTo(t, h.lines, 4, updated(2)), text)

		// Cancelled, the listen ends with its result (notifications sent
		// before it are fine); then nothing of it: the next message after
		// a change is the acknowledgement of a new listen, and its
		// notifications name it.
		h.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"done"}}`)
		wantListenEnded(t, answerTo(t, h.lines, 2, updated(2)), 2)
		change(t)
		h.send(t, listen(5))
		if got, want := h.next(t, "the acknowledgement of a new listen"), acked(5); got != want {
			t.Fatalf("after the listen was cancelled, a change, then a new listen:\n%s\nwant\n%s", got, want)
		}
		quietOn(t, h.lines, updated(5))
		change(t)
		if got, want := h.next(t, "a change"), updated(5); got != want {
			t.Fatalf("after a change\n%s\nwant\n%s", got, want)
		}
	})

	t.Run("2025-11-25: resources/subscribe until resources/unsubscribe", func(t *testing.T) {
		h := startRawStdio(t, "--connect", env.browser.httpURL())
		h.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"cdpprovider-e2e","version":"0"}}}`)
		if got := h.next(t, "initialize"); !strings.Contains(got, `"protocolVersion":"2025-11-25"`) {
			t.Fatalf("initialize under 2025-11-25 answered %s", got)
		}
		h.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
		h.send(t, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"uicontext://current"}}`)
		if got, want := h.next(t, "resources/subscribe"), `{"jsonrpc":"2.0","id":2,"result":{}}`; got != want {
			t.Fatalf("resources/subscribe answered %s, want %s", got, want)
		}
		h.send(t, readCurrent(3, ""))
		answerTo(t, h.lines, 3, updated(0))
		quietOn(t, h.lines, updated(0))
		text := change(t)
		if got, want := h.next(t, "a change"), updated(0); got != want {
			t.Fatalf("after a change\n%s\nwant\n%s", got, want)
		}
		h.send(t, readCurrent(4, ""))
		wantStatus(t, answerTo(t, h.lines, 4, updated(0)), text)

		// Unsubscribed, a change the session reads is not told.
		h.send(t, `{"jsonrpc":"2.0","id":5,"method":"resources/unsubscribe","params":{"uri":"uicontext://current"}}`)
		if got := answerTo(t, h.lines, 5, updated(0)); got != `{"jsonrpc":"2.0","id":5,"result":{}}` {
			t.Fatalf("resources/unsubscribe answered %s", got)
		}
		text = change(t)
		h.send(t, readCurrent(6, ""))
		wantStatus(t, answerTo(t, h.lines, 6, ""), text)
		quietOn(t, h.lines, "")
	})
}

// postRaw sends one JSON-RPC message to the endpoint of p with the token,
// as a host's own code would, and header (which may replace the token,
// and with "Host" the Host); the caller closes the body.
func (p *httpProvider) postRaw(t *testing.T, ctx context.Context, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", p.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+p.token)
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	return resp
}

// newestHeaders are the headers of a 2026-07-28 request of method over
// HTTP (SEP-2243), with more.
func newestHeaders(method string, more map[string]string) map[string]string {
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	for k, v := range more {
		h[k] = v
	}
	return h
}

// sse returns the data of each server-sent event of resp's body; the
// channel closes when the body ends.
func sse(resp *http.Response) <-chan string {
	c := make(chan string, 1000)
	go func() {
		defer close(c)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				c <- data
			}
		}
	}()
	return c
}

// call posts a 2026-07-28 request and returns its one answer.
func (p *httpProvider) call(t *testing.T, method, body string, more map[string]string) string {
	t.Helper()
	resp := p.postRaw(t, context.Background(), body, newestHeaders(method, more))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %s %s", method, resp.Status, b)
	}
	return nextOf(t, sse(resp), method)
}

func TestSubscribeOverHTTP(t *testing.T) {
	tb := openTab(t, env.rootCtx, env.pageA+"/notify.html")
	change := statusChanger(tb)
	p := startHTTPProvider(t, "--connect", env.browser.httpURL(), "--rest-after", "1s", "--log-level", "debug")

	t.Run("2026-07-28 is behind the token and the Host and Origin checks", func(t *testing.T) {
		for _, tt := range []struct {
			name   string
			header map[string]string
			want   int
		}{
			{"no token", map[string]string{"Authorization": ""}, http.StatusUnauthorized},
			{"a wrong token", map[string]string{"Authorization": "Bearer " + p.token[1:] + "0"}, http.StatusUnauthorized},
			{"a foreign Origin", map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
			{"a rebound Host", map[string]string{"Host": "evil.example"}, http.StatusForbidden},
		} {
			resp := p.postRaw(t, context.Background(), listen(1), newestHeaders("subscriptions/listen", tt.header))
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.want)
			}
		}
	})

	t.Run("both ways at once, each told; a listener keeps the provider awake", func(t *testing.T) {
		wantDiscovered(t, p.call(t, "server/discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+newestMeta+`}}`, nil))

		u := newUpdates()
		legacy := p.connectAt(t, u.handler(), "2025-11-25")
		if err := legacy.Subscribe(context.Background(), &mcp.SubscribeParams{URI: currentURI}); err != nil {
			t.Fatalf("resources/subscribe over HTTP: %v", err)
		}

		lctx, closeListen := context.WithCancel(context.Background())
		defer closeListen()
		resp := p.postRaw(t, lctx, listen(2), newestHeaders("subscriptions/listen", nil))
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("subscriptions/listen: %s %s", resp.Status, b)
		}
		stream := sse(resp)
		if got, want := nextOf(t, stream, "the acknowledgement"), acked(2); got != want {
			t.Fatalf("subscriptions/listen answered\n%s\nwant\n%s", got, want)
		}
		p.call(t, "resources/read", readCurrent(3, newestMeta), map[string]string{"Mcp-Name": currentURI})
		quietOn(t, stream, updated(2))
		quiet(t, u)

		t0 := time.Now()
		text := change(t)
		if got, want := nextOf(t, stream, "a change"), updated(2); got != want {
			t.Fatalf("after a change the listener was sent\n%s\nwant\n%s", got, want)
		}
		if u.next(t0, waitLimit).IsZero() {
			t.Fatal("a change was not told to the session subscribed with resources/subscribe")
		}
		wantStatus(t, p.call(t, "resources/read", readCurrent(4, newestMeta), map[string]string{"Mcp-Name": currentURI}), text)
		rests := func() int { return strings.Count(p.stderr.String(), `msg="resting`) }
		rested := rests()

		// The session unsubscribes: the listener alone is told, and it
		// alone keeps the provider from resting (--rest-after 1s).
		if err := legacy.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: currentURI}); err != nil {
			t.Fatalf("resources/unsubscribe over HTTP: %v", err)
		}
		quietOn(t, stream, updated(2))
		quiet(t, u)
		t1 := time.Now()
		change(t)
		if got, want := nextOf(t, stream, "a change"), updated(2); got != want {
			t.Fatalf("after a change the listener was sent\n%s\nwant\n%s", got, want)
		}
		quiet(t, u)
		if got := u.since(t1); len(got) != 0 {
			t.Errorf("the session that unsubscribed was told %d times", len(got))
		}
		time.Sleep(3 * time.Second) // three times --rest-after: nothing must happen
		if rests() != rested {
			t.Fatalf("the provider rested while a 2026-07-28 listener was open:\n%s", p.stderr.String())
		}
		change(t)
		if got, want := nextOf(t, stream, "a change after 3 s"), updated(2); got != want {
			t.Fatalf("after a change the listener was sent\n%s\nwant\n%s", got, want)
		}

		// The listener closes its response: the provider rests a second
		// later, nobody being subscribed.
		closeListen()
		waitFor(t, "the provider to rest once the listener closed", func() bool {
			return rests() > rested
		})
	})

	t.Run("stopping ends an open listen at once", func(t *testing.T) {
		resp := p.postRaw(t, context.Background(), listen(9), newestHeaders("subscriptions/listen", nil))
		defer resp.Body.Close()
		stream := sse(resp)
		if got, want := nextOf(t, stream, "the acknowledgement"), acked(9); got != want {
			t.Fatalf("subscriptions/listen answered\n%s\nwant\n%s", got, want)
		}
		if err := p.stop(); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p.stderr.String(), "still under way") {
			t.Error("stopping waited for the open listen")
		}
		for range stream { // the response ends
		}
	})
}
