package cdp

import (
	"context"
	"errors"
	"strings"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
)

// Step 1 of a read: connect (once per connection: dial, learn the
// browser, attach to its tabs, turn on the target events).

// connect returns the live connection, dialling a new one when there is
// none or the last one ended. Called with p.mu held.
func (p *Provider) connect(ctx context.Context) (*conn, error) {
	if p.conn != nil && p.conn.alive() {
		return p.conn, nil
	}
	if p.conn != nil {
		p.log.Warn("lost the browser; reconnecting", "err", p.conn.cause())
		p.conn.close()
		p.conn, p.state = nil, nil
	}
	if p.dialing == nil {
		t, err := p.ep.Resolve(ctx, p.log)
		if err != nil {
			return nil, p.unreachable(err, nil)
		}
		p.dialing = p.startDial(t)
	}
	c, t, err := p.awaitDial(ctx)
	if errors.Is(err, ErrConsentPending) || errors.Is(err, ErrConsentDeclined) {
		return nil, err
	}
	if err != nil {
		return nil, p.unreachable(err, &t)
	}
	st := &connState{
		target:     t,
		sessions:   make(map[target.ID]*cdpSession),
		windows:    make(map[int64]uint64),
		tabs:       make(map[target.ID]uint64),
		docs:       make(map[docKey]uint64),
		docInfo:    make(map[uint64]*docInfo),
		lastActive: make(map[int64]target.ID),
		mapped:     make(map[uint64]memo),
		held:       make(map[uint64]bool),
	}
	if err := p.identify(ctx, c, st); err != nil {
		c.close()
		return nil, p.unreachable(err, &t)
	}
	if err := p.discover(ctx, c); err != nil {
		c.close()
		return nil, p.unreachable(err, &t)
	}
	p.conn, p.state = c, st
	p.hadConn, p.lastProduct = true, st.product
	p.log.Info("connected to the browser", "product", st.product, "version", st.version)
	go p.followConn(c)
	return c, nil
}

// identify learns the browser's product name and version.
func (p *Provider) identify(ctx context.Context, c *conn, st *connState) error {
	v, err := cdp.Call(ctx, c.browser(), browser.GetVersion, cdp.Empty{})
	if err != nil {
		return err
	}
	name, ver, _ := strings.Cut(v.Product, "/")
	st.version = ver
	st.product = browsers.ProductName(name, v.UserAgent, nil)
	// The brands a page sees tell Chrome from Chromium, Edge and Brave,
	// which the product string does not.
	infos, err := cdp.Call(ctx, c.browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return err
	}
	for _, ti := range infos.TargetInfos {
		if !isPage(ti) {
			continue
		}
		s, err := p.attach(ctx, c, st, ti.TargetID)
		if err != nil {
			continue
		}
		var brands []struct{ Brand string }
		// A page that cannot answer (a dialog, a long script) must not
		// hold the connection up: another page can tell.
		err = p.firstCall(ctx, s, func(ctx context.Context) error {
			return evalIn(ctx, s, cdp.FrameID(ti.TargetID), brandsScript, &brands)
		})
		if err == nil {
			names := make([]string, len(brands))
			for i, b := range brands {
				names[i] = b.Brand
			}
			st.product = browsers.ProductName(name, v.UserAgent, names)
			break
		}
	}
	return nil
}

// brandsScript returns the brands a page sees (navigator.userAgentData).
var brandsScript = fill(jsTemplate("brands.js"))

// isPage reports whether a target is a tab a person sees: a page, not
// DevTools, not browser UI, not a worker.
func isPage(ti *target.Info) bool {
	return ti.Type == "page" && !strings.HasPrefix(ti.URL, "devtools://")
}

// attach returns the flat session of a target, attaching once per
// connection.
func (p *Provider) attach(ctx context.Context, c *conn, st *connState, id target.ID) (*cdpSession, error) {
	if s, ok := st.sessions[id]; ok {
		return s, nil
	}
	r, err := cdp.Call(ctx, c.browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: ptr(true)})
	if err != nil {
		return nil, err
	}
	s := c.session(r.SessionID)
	st.sessions[id] = s
	c.handle(s.id, func(method string, params jsonv2.Value) { p.onSessionEvent(s, method, params) })
	// The Page domain says when a JavaScript dialog opens and closes
	// (read3_health.go). Posted: a page that shows a dialog already does not
	// answer until it closes.
	if err := s.post(ctx, page.CommandEnable, page.EnableParams{}); err != nil {
		return nil, err
	}
	return s, nil
}
