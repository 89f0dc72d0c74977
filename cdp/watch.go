package cdp

import (
	"context"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// bindingName is the function stateScript's watchers call, in the
// provider's isolated world only, when something a person sees changed:
// the DOM, a field's value, focus, the element under the pointer, the
// page's visibility (a tab switch), the URL's fragment.
const bindingName = "cdpproviderChanged"

// Watch calls changed whenever what current answers may have changed,
// until stop is called; at most one watcher at a time. What tells it:
// Chrome's target events (tabs opened, closed, navigated, retitled), the
// accessibility events of the documents it keeps warm, and the passive
// watchers its isolated world keeps in every page it has read. changed is
// called on the connection's read loop: it must return at once. Watch
// reads current in the background, until a read succeeds, so that every
// page shown is watched from the start; when the browser goes away it
// tells the watcher, and reads until the browser is back (or its person
// allowed the connection) to tell it again.
func (p *Provider) Watch(changed func()) (stop func()) {
	f := &changed
	p.watcher.Store(f)
	go p.readWhileWatched(f, false)
	return func() { p.watcher.CompareAndSwap(f, nil) }
}

// changed tells the watcher, if any, that the answer may have changed.
func (p *Provider) changed() {
	if f := p.watcher.Load(); f != nil {
		(*f)()
	}
}

// onSessionEvent sees every event of an attached target's session, on the
// read loop.
func (p *Provider) onSessionEvent(s *cdpSession, method string, params jsonv2.Value) {
	if p.onHealthEvent(s, method, params) {
		return
	}
	switch method {
	case accessibility.NodesUpdated.Method, accessibility.LoadComplete.Method:
		if a := s.ax.Load(); a != nil {
			a.OnEvent(method, params)
		}
		p.changed()
	case "Runtime.bindingCalled":
		if !strings.Contains(string(params), `"`+bindingName+`"`) {
			return
		}
		if a := s.ax.Load(); a != nil {
			if watcher, count, ok := parseSignal(params); ok {
				a.OnSignal(watcher, count)
			}
		}
		p.changed()
	}
}

// parseSignal reads the "id count" the page's watchers pass the binding.
func parseSignal(params jsonv2.Value) (watcher, count int64, ok bool) {
	var b struct {
		Payload string `json:"payload"`
	}
	if jsonv2.Unmarshal(params, &b, chromedp.DefaultUnmarshalOptions) != nil {
		return 0, 0, false
	}
	id, n, found := strings.Cut(b.Payload, " ")
	if !found {
		return 0, 0, false
	}
	w, err1 := strconv.ParseInt(id, 10, 64)
	c, err2 := strconv.ParseInt(n, 10, 64)
	return w, c, err1 == nil && err2 == nil
}

// onBrowserEvent sees the browser session's events: the target events
// that Target.setDiscoverTargets turns on.
func (p *Provider) onBrowserEvent(method string, params jsonv2.Value) {
	switch method {
	case target.TargetCreated.Method, target.TargetDestroyed.Method, target.TargetInfoChanged.Method:
		if method == target.TargetDestroyed.Method || strings.Contains(string(params), `"type":"page"`) {
			p.changed()
		}
	}
}

// discover turns on the target events for a new connection.
func (p *Provider) discover(ctx context.Context, c *conn) error {
	c.handle("", p.onBrowserEvent)
	_, err := cdp.Call(ctx, c.browser(), target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true})
	return err
}
