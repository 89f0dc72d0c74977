package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The screen through the binary: ui_current's scope "screen" answers the
// elements on screen of a long page with the lines of what it left out,
// the same JSON as the resource uicontext://current?scope=screen; a host
// subscribed to that resource is told when the page scrolls, and the
// next read shows the new screen.
func TestScreen(t *testing.T) {
	needEnv(t)
	tb := openTab(t, env.rootCtx, env.pageA+"/long.html")
	u := newUpdates()
	p := startProviderWith(t, env.browser.httpURL(), u.handler(), "--tools")
	const screenURI = currentURI + "?scope=screen"

	outline, isError := callText(t, p.session, "ui_current", map[string]any{"scope": "screen", "format": "outline"})
	if isError || !strings.Contains(outline, `Heading Part 0`) || strings.Contains(outline, `Heading Part 59 `) ||
		!strings.Contains(outline, " below\n") || !strings.Contains(outline, `Link Top`) {
		t.Fatalf("the screen at the page's top (isError %v):\n%s\nwant Part 0, the header's link, a … below line, and not Part 59", isError, outline)
	}
	whole, _ := callText(t, p.session, "ui_current", map[string]any{"format": "outline"})
	if len(outline)*4 > len(whole) {
		t.Errorf("the screen's outline is %d bytes, the page's %d: want the screen a small part of it", len(outline), len(whole))
	}
	js, _ := callText(t, p.session, "ui_current", map[string]any{"scope": "screen"})
	raw, err := p.readRaw(t, screenURI)
	if err != nil || string(raw) != js {
		t.Errorf("read %s: %v\n%s\nwant the tool's text\n%s", screenURI, err, raw, js)
	}
	if !strings.Contains(js, `"omitted":`) {
		t.Errorf("the screen's JSON says nothing of what it left out: %s", js)
	}

	if err := p.session.Subscribe(context.Background(), &mcp.SubscribeParams{URI: screenURI}); err != nil {
		t.Fatalf("subscribe to %s: %v", screenURI, err)
	}
	quiet(t, u)
	t0 := time.Now()
	eval[bool](t, tb.ctx, `document.getElementById('p-40').scrollIntoView(), true`)
	if u.next(t0, waitLimit).IsZero() {
		t.Fatalf("no notification within %v of a scroll", waitLimit)
	}
	u.mu.Lock()
	uri := u.uris[len(u.uris)-1]
	u.mu.Unlock()
	if uri != screenURI {
		t.Errorf("notified of %s, want %s", uri, screenURI)
	}
	outline, _ = callText(t, p.session, "ui_current", map[string]any{"scope": "screen", "format": "outline"})
	if !strings.Contains(outline, `Heading Part 40`) || strings.Contains(outline, `Heading Part 0`) ||
		!strings.Contains(outline, " above\n") || !strings.Contains(outline, `Link Top`) {
		t.Errorf("the screen scrolled to part 40:\n%s\nwant Part 40, the sticky header's link, a … above line, and not Part 0", outline)
	}
}
