package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/bearer"
	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/internal/syncbuf"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The errors a host meets (docs/protocol.md §7.2), through the built
// binary over stdio and over Streamable HTTP: each one's code, message
// and data (uri, reason, why); the tools' errors (--tools); and every
// read and list marked private, never public.

// hostError reads uri in session, which must fail, and checks the error:
// its code, the start of its message, and its data exactly.
func hostError(t *testing.T, what string, session *mcp.ClientSession, uri string, code int64, msg, reason, why string) *jsonrpc.Error {
	t.Helper()
	_, err := readSession(t, session, uri)
	return wantHostError(t, what+": read "+uri, err, uri, code, msg, reason, why)
}

// wantHostError checks that err is the JSON-RPC error of code, whose
// message starts with msg and whose data is {uri, reason, why}.
func wantHostError(t *testing.T, what string, err error, uri string, code int64, msg, reason, why string) *jsonrpc.Error {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("%s: %v (%T), want a JSON-RPC error", what, err, err)
	}
	t.Logf("%s: %d %s %s", what, we.Code, we.Message, we.Data)
	if we.Code != code || !strings.HasPrefix(we.Message, msg) {
		t.Errorf("%s: error %d %q, want %d starting %q", what, we.Code, we.Message, code, msg)
	}
	var data map[string]any
	if err := json.Unmarshal(we.Data, &data); err != nil {
		t.Errorf("%s: data %s: %v", what, we.Data, err)
	}
	want := map[string]any{"uri": uri, "reason": reason}
	if why != "" {
		want["why"] = why
	}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("%s: data (-want +got):\n%s", what, diff)
	}
	if code == jsonrpc.CodeInternalError && strings.Contains(we.Message, "--") {
		t.Errorf("%s: message %q gives command-line flags to a host", what, we.Message)
	}
	return we
}

// toolError calls a tool, which must fail: isError, a text that starts
// with the reason and a colon, then msg, naming no resource; _meta with
// the reason (and why).
func toolError(t *testing.T, session *mcp.ClientSession, name string, args any, reason, why, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	text := ""
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	t.Logf("tools/call %s %v: isError %v %q _meta %v", name, args, res.IsError, text, res.Meta)
	if !res.IsError || !strings.HasPrefix(text, reason+": "+msg) {
		t.Errorf("tools/call %s %v: isError %v %q, want isError and %q", name, args, res.IsError, text, reason+": "+msg)
	}
	if strings.Contains(text, "uicontext://") {
		t.Errorf("tools/call %s %v: %q names a resource", name, args, text)
	}
	data := map[string]any{"reason": reason}
	if why != "" {
		data["why"] = why
	}
	if diff := cmp.Diff(data, asJSON(t, res.Meta["uicontext/error"])); diff != "" {
		t.Errorf("tools/call %s %v: _meta[uicontext/error] (-want +got):\n%s", name, args, diff)
	}
}

// wantPrivate reads current, the descriptor and the locate of id, and
// lists the resources and templates: each result says cacheScope
// private, ttlMs 0.
func wantPrivate(t *testing.T, session *mcp.ClientSession, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, uri := range []string{currentURI, descriptorURI, locatePrefix + id} {
		res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("read %s: %v", uri, err)
		}
		if res.CacheScope != "private" || res.TTLMs != 0 {
			t.Errorf("read %s: cacheScope %q ttlMs %d, want private and 0", uri, res.CacheScope, res.TTLMs)
		}
	}
	if res, err := session.ListResources(ctx, nil); err != nil || res.CacheScope != "private" {
		t.Errorf("resources/list: %v, cacheScope %q; want private", err, res.CacheScope)
	}
	if res, err := session.ListResourceTemplates(ctx, nil); err != nil || res.CacheScope != "private" {
		t.Errorf("resources/templates/list: %v, cacheScope %q; want private", err, res.CacheScope)
	}
}

// legacyStdio is an MCP session, over stdio, with `cdpprovider serve
// ARGS...` under the legacy handshake (2025-11-25): under the newest
// revision a subscription is a listening request whose error go-sdk's
// client does not return.
func legacyStdio(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(env.bin, append([]string{"serve"}, args...)...)
	setProcAttr(cmd)
	stderr := &syncbuf.Buffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpprovider-e2e", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("initialize over stdio: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		session.Close()
		t.Logf("provider stderr:\n%s", stderr.String())
	})
	return session
}

// legacyHTTP is an MCP session with p under the legacy handshake.
func (p *httpProvider) legacyHTTP(t *testing.T) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "cdpprovider-e2e", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   p.url,
		HTTPClient: &http.Client{Transport: bearer.Transport{Token: p.token}},
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("initialize over HTTP at %s: %v\nstderr:\n%s", p.url, err, p.stderr.String())
	}
	t.Cleanup(func() { session.Close() })
	return session
}

// With a browser on a debugging port, then without it: every error a
// host meets, over stdio and over HTTP, with the tools offered.
func TestHostErrors(t *testing.T) {
	needEnv(t)
	port := freePort(t)
	br := chromeFor(t, port)
	addr := fmt.Sprintf("http://127.0.0.1:%d", port)
	tb := openTab(t, userOf(t, br), env.pageA+"/plain.html")
	hp := startHTTPProvider(t, "--connect", addr, "--tools")
	sessions := []struct {
		name            string
		session, legacy *mcp.ClientSession
	}{
		{"stdio", startProvider(t, addr, "--tools").session, legacyStdio(t, "--connect", addr)},
		{"http", hp.connect(t, nil), hp.legacyHTTP(t)},
	}
	const notFound, internal = jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) {
			var cur *answer
			waitFor(t, "the tab in current", func() bool {
				raw, err := readSession(t, s.session, currentURI)
				if err != nil {
					t.Fatalf("read current: %v", err)
				}
				cur = &answer{Current: checkCurrent(t, raw), raw: raw}
				return len(elemtest.FindAll(cur.Root, "Button", "Plain button")) == 1
			})
			app, btn := cur.Root.ID, elemtest.Find(t, elemtest.FindDoc(t, cur.Root, tb.url), "Button", "Plain button").ID
			forged := btn[:len(btn)-1] + map[bool]string{true: "b", false: "a"}[strings.HasSuffix(btn, "a")]

			wantPrivate(t, s.session, btn)

			hostError(t, "a URI of nothing", s.session, "uicontext://nope", notFound,
				`resource not found: no resource matches "uicontext://nope"`, "no-such-resource", "")
			hostError(t, "a malformed id", s.session, locatePrefix+"a@b", notFound,
				`resource not found: malformed element id "a@b"`, "malformed", "")
			hostError(t, "an id never issued", s.session, locatePrefix+forged, notFound,
				fmt.Sprintf(`resource not found: element id %q was not issued by this run of the provider: read uicontext://current for the ids of this run`, forged),
				"not-issued", "")
			hostError(t, "the Application", s.session, locatePrefix+app, notFound,
				fmt.Sprintf(`resource not found: element %q cannot be placed on screen: the Application is the browser itself`, app),
				"cannot-be-placed", "application")

			err := s.legacy.Subscribe(context.Background(), &mcp.SubscribeParams{URI: descriptorURI})
			we := wantHostError(t, "subscribe to the descriptor", err, descriptorURI, notFound,
				"uicontext://descriptor cannot be subscribed to: the descriptor never changes while the provider runs", "not-subscribable", "")
			if we != nil && strings.HasPrefix(we.Message, "resource not found") {
				t.Errorf("subscribe to the descriptor: %q, want no resource-not-found: the descriptor is there", we.Message)
			}
			if err := s.legacy.Subscribe(context.Background(), &mcp.SubscribeParams{URI: currentURI}); err != nil {
				t.Errorf("subscribe to current: %v", err)
			}

			toolError(t, s.session, "ui_locate", map[string]any{"id": forged}, "not-issued", "",
				fmt.Sprintf(`element id %q was not issued by this run of the provider: call ui_current for the ids of this run`, forged))
			toolError(t, s.session, "ui_locate", map[string]any{"id": app}, "cannot-be-placed", "application",
				fmt.Sprintf(`element %q cannot be placed on screen: the Application is the browser itself`, app))
			toolError(t, s.session, "ui_locate", map[string]any{"id": btn, "x": 1}, "invalid-arguments", "",
				`ui_locate takes only {"id": …}; unknown argument "x"`)
			toolError(t, s.session, "ui_current", map[string]any{"x": 1}, "invalid-arguments", "",
				`ui_current takes only {"scope": …, "format": …, "root": …, "depth": …}; unknown argument "x"`)
		})
	}

	// The browser goes away after reads that worked: restarting.
	br.stop()
	for _, s := range sessions {
		t.Run(s.name+" after the browser stopped", func(t *testing.T) {
			for _, uri := range []string{currentURI, descriptorURI} {
				hostError(t, "the browser gone", s.session, uri, internal, "", "browser-restarting", "")
			}
			toolError(t, s.session, "ui_current", nil, "browser-restarting", "", "")
		})
	}
}

// A debugging port where nothing listens, before any read worked:
// browser-unreachable, saying so in the host's words, over stdio and
// over HTTP; the provider keeps serving.
func TestHostErrorUnreachable(t *testing.T) {
	needEnv(t)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	hp := startHTTPProvider(t, "--connect", addr, "--tools")
	want := "Nothing answers at " + addr + ": the browser started with a debugging port is not running, or uses another port."
	for name, session := range map[string]*mcp.ClientSession{
		"stdio": startProvider(t, addr, "--tools").session,
		"http":  hp.connect(t, nil),
	} {
		t.Run(name, func(t *testing.T) {
			for range 2 {
				we := hostError(t, "no browser", session, currentURI, jsonrpc.CodeInternalError, want, "browser-unreachable", "")
				if we.Message != want {
					t.Errorf("no browser: %q, want %q", we.Message, want)
				}
			}
			hostError(t, "no browser", session, descriptorURI, jsonrpc.CodeInternalError, want, "browser-unreachable", "")
			toolError(t, session, "ui_current", nil, "browser-unreachable", "", want)
		})
	}
}
