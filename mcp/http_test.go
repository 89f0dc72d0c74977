package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Streamable HTTP as hosts speak it, in raw JSON-RPC: 2026-07-28 without
// sessions (server/discover, subscriptions/listen) and the older
// revisions with them (initialize, resources/subscribe, the GET stream),
// on one endpoint.

// newestMeta is the _meta every request carries under 2026-07-28.
const newestMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"host","version":"0"}}`

// post sends body to url with the headers a Streamable HTTP client sends
// and header, and returns the response, whose body the caller closes.
func post(t *testing.T, ctx context.Context, url, body string, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", body, err)
	}
	return resp
}

// newest is the headers of a 2026-07-28 request of method.
func newest(method string) map[string]string {
	return map[string]string{"Mcp-Protocol-Version": sessionless, "Mcp-Method": method}
}

// events returns the data of each server-sent event of resp's body, in
// order; the channel closes when the body ends.
func events(resp *http.Response) <-chan string {
	c := make(chan string, 100)
	go func() {
		defer close(c)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				c <- data
			}
		}
	}()
	return c
}

// next returns the next event's data, failing when there is none.
func next(t *testing.T, c <-chan string, what string) string {
	t.Helper()
	select {
	case data, ok := <-c:
		if !ok {
			t.Fatalf("%s: the stream ended", what)
		}
		return data
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing on the stream within 10 s", what)
	}
	return ""
}

func TestHTTPServesEveryRevision(t *testing.T) {
	src := &watchingFake{fakeSource: newFake()}
	srv := NewServer(src, Options{Locate: true, Logger: slog.New(slog.DiscardHandler)})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	ctx := context.Background()

	t.Run("server/discover lists 2026-07-28 and the older", func(t *testing.T) {
		resp := post(t, ctx, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+newestMeta+`}}`, newest("server/discover"))
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("server/discover: %s %s", resp.Status, b)
		}
		var msg struct {
			Result struct {
				SupportedVersions []string `json:"supportedVersions"`
			} `json:"result"`
		}
		data := next(t, events(resp), "server/discover")
		if err := json.Unmarshal([]byte(data), &msg); err != nil {
			t.Fatalf("server/discover: %v in %s", err, data)
		}
		if want := sdk.SupportedProtocolVersions(); !slices.Equal(msg.Result.SupportedVersions, want) || want[0] != sessionless {
			t.Errorf("server/discover: supportedVersions %q, want %q, 2026-07-28 first", msg.Result.SupportedVersions, want)
		}
	})

	t.Run("2026-07-28 in _meta without the header is refused", func(t *testing.T) {
		resp := post(t, ctx, hs.URL, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{`+newestMeta+`,"uri":"uicontext://descriptor"}}`, nil)
		defer resp.Body.Close()
		var msg struct{ Error struct{ Code int } }
		b, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(b, &msg); err != nil || resp.StatusCode != http.StatusBadRequest || msg.Error.Code != sdk.CodeUnsupportedProtocolVersion {
			t.Errorf("a read with 2026-07-28 in _meta alone: %s %s, want 400 and -32022", resp.Status, b)
		}
	})

	t.Run("a 2026-07-28 listener is told of each change, until it closes", func(t *testing.T) {
		lctx, closeListen := context.WithCancel(ctx)
		defer closeListen()
		resp := post(t, lctx, hs.URL, `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{`+newestMeta+`,"notifications":{"resourceSubscriptions":["uicontext://current"]}}}`, newest("subscriptions/listen"))
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("subscriptions/listen: %s %s", resp.Status, b)
		}
		stream := events(resp)
		if got, want := next(t, stream, "the acknowledgement"), `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"resourceSubscriptions":["uicontext://current"]}}}`; got != want {
			t.Fatalf("subscriptions/listen answered\n%s\nwant\n%s", got, want)
		}
		src.await(t, true) // the listener keeps the source watched
		for i := range 2 {
			src.change()
			if got, want := next(t, stream, "a change"), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"uri":"uicontext://current"}}`; got != want {
				t.Fatalf("change %d: the listener was sent\n%s\nwant\n%s", i, got, want)
			}
		}
		closeListen()
		src.await(t, false) // and lets it go once it closes
	})

	t.Run("an older revision keeps a session, subscribed with resources/subscribe", func(t *testing.T) {
		resp := post(t, ctx, hs.URL, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"0"}}}`, nil)
		data := next(t, events(resp), "initialize")
		resp.Body.Close()
		id := resp.Header.Get("Mcp-Session-Id")
		if id == "" || !strings.Contains(data, `"protocolVersion":"2025-11-25"`) {
			t.Fatalf("initialize under 2025-11-25: session %q, answer %s; want a session and the revision", id, data)
		}
		session := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-11-25"}
		resp = post(t, ctx, hs.URL, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, session)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("notifications/initialized: %s", resp.Status)
		}

		sctx, closeStream := context.WithCancel(ctx)
		defer closeStream()
		req, err := http.NewRequestWithContext(sctx, "GET", hs.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range session {
			req.Header.Set(k, v)
		}
		get, err := http.DefaultClient.Do(req) // returns once the stream is the session's
		if err != nil || get.StatusCode != http.StatusOK {
			t.Fatalf("GET the session's stream: %v %v", err, get.Status)
		}
		defer get.Body.Close()
		stream := events(get)

		resp = post(t, ctx, hs.URL, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"uicontext://current"}}`, session)
		if got, want := next(t, events(resp), "resources/subscribe"), `{"jsonrpc":"2.0","id":2,"result":{}}`; got != want {
			t.Fatalf("resources/subscribe answered %s, want %s", got, want)
		}
		resp.Body.Close()
		src.await(t, true)
		src.change()
		if got, want := next(t, stream, "a change"), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"uicontext://current"}}`; got != want {
			t.Fatalf("the session's stream carried\n%s\nwant\n%s", got, want)
		}

		req, err = http.NewRequest("DELETE", hs.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Mcp-Session-Id", id)
		del, err := http.DefaultClient.Do(req)
		if err != nil || del.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE the session: %v %v", err, del.Status)
		}
		del.Body.Close()
		src.await(t, false) // the session's end lets the source go
	})
}
