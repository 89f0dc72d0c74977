package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/mapping"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// withScreen is the fake with a screen answer of its own: the Document
// with its Button left out, below.
func withScreen() *fakeSource {
	src := newFake()
	scr := *src.current
	app := *scr.Root
	win := *app.Children[0]
	doc := *win.Children[1]
	doc.Children, doc.Omitted, doc.Off = nil, 1, &mapping.Off{Below: 1}
	win.Children = []*mapping.Element{win.Children[0], &doc}
	app.Children = []*mapping.Element{&win}
	scr.Root = &app
	src.screen = &scr
	return src
}

// scope "screen" reads the source's screen, in both formats, as the
// resource uicontext://current?scope=screen does; "page" and no scope
// read current; any other scope is refused.
func TestToolCurrentScope(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := withScreen()
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			res := string(read(t, cs, ScreenURI))
			if !strings.Contains(res, `"omitted":1`) || strings.Contains(res, "Order") {
				t.Errorf("%s: %s, want the screen answer", ScreenURI, res)
			}
			if text, isError := call(t, cs, ToolCurrent, map[string]any{"scope": "screen"}); isError || text != res {
				t.Errorf("%s scope screen (isError %v): %s, want the resource's text %s", ToolCurrent, isError, text, res)
			}
			text, isError := call(t, cs, ToolCurrent, map[string]any{"scope": "screen", "format": "outline"})
			if isError || !strings.Contains(text, "\n   … 1 below\n") || strings.Contains(text, "Order") {
				t.Errorf("%s scope screen outline (isError %v):\n%s\nwant the Document's … 1 below line", ToolCurrent, isError, text)
			}
			src.mu.Lock()
			screens := src.screens
			src.mu.Unlock()
			if screens != 3 {
				t.Errorf("the source's screen was read %d times, want 3", screens)
			}
			for _, args := range []map[string]any{{}, {"scope": "page"}} {
				if text, _ := call(t, cs, ToolCurrent, args); text != string(read(t, cs, CurrentURI)) {
					t.Errorf("%s %v: %s, want current", ToolCurrent, args, text)
				}
			}
			for _, scope := range []any{"Screen", "viewport", "", 1, nil} {
				wantToolError(t, cs, ToolCurrent, map[string]any{"scope": scope}, "invalid-arguments", "", `ui_current's scope is "screen" or "page"`)
			}
			// A root the screen left out is off screen: read it in the page.
			src.mu.Lock()
			src.locations["n1.5_AAAAAAAA"] = &mapping.Location{State: mapping.OffScreen}
			src.mu.Unlock()
			wantToolError(t, cs, ToolCurrent, map[string]any{"scope": "screen", "root": "n1.5_AAAAAAAA"}, "invalid-arguments", "",
				`element "n1.5_AAAAAAAA" is not on screen: call ui_current with root and scope "page"`)
			if text, isError := call(t, cs, ToolCurrent, map[string]any{"root": "n1.5_AAAAAAAA"}); isError || !strings.Contains(text, "Order") {
				t.Errorf("the root in the page: %s (isError %v)", text, isError)
			}
		})
	}
}

// A session subscribed to the screen and to current is told of a change
// for each; unsubscribing one keeps the watch for the other.
func TestSubscribeToTheScreen(t *testing.T) {
	src := &watchingFake{fakeSource: withScreen()}
	cs, updates, rec := connectWatching(t, src, "2025-11-25")
	ctx := context.Background()
	for _, uri := range []string{ScreenURI, CurrentURI} {
		if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	src.await(t, true)
	subscribedLogged(t, rec)
	src.change()
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case uri := <-updates:
			got[uri] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("notified for %v after a change, want both URIs", got)
		}
	}
	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: CurrentURI}); err != nil {
		t.Fatal(err)
	}
	if !src.watching() {
		t.Fatal("unsubscribing current stopped the watch the screen's subscription needs")
	}
	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: ScreenURI}); err != nil {
		t.Fatal(err)
	}
	src.await(t, false)
}
