package cdp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/browser"
	cdproto "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// Connecting, for a read or a locate (begin in provider.go): once per
// connection, dial, learn the browser, attach to its tabs, turn on the
// target events.

// connect returns the live connection, dialling a new one when there is
// none or the last one ended. Called with p.mu held.
func (p *Provider) connect(ctx context.Context) (*wire.Conn, error) {
	if p.conn != nil && p.conn.Alive() {
		return p.conn, nil
	}
	if p.conn != nil {
		p.log.Warn("lost the browser; reconnecting", "err", p.conn.Cause())
		p.dropConn()
	}
	if err := p.sessionEnded(); err != nil {
		return nil, err
	}
	if p.dialing == nil {
		ep := p.ep
		if p.session.id != "" {
			ep = ep.ForSession(p.session.id) // that session or none
		}
		t, err := ep.Resolve(ctx, p.log)
		if err != nil {
			return nil, p.unreachable(err, nil)
		}
		// In the background, kept until it ends, for the browser may ask
		// its person first (wire.Dial).
		p.dialing = &dialing{target: t, dial: wire.StartDial(p.life, t.WS, t.Header, t.Asks)}
		p.dials.Add(1)
	}
	d, t := p.dialing, p.dialing.target
	c, over, err := d.dial.Wait(ctx)
	if over {
		p.dialing = nil
	}
	switch {
	case errors.Is(err, wire.ErrConsentPending):
		d.asked = true
		return nil, fail(ReasonConsentPending, consentMessage(t.Name), err)
	case errors.Is(err, wire.ErrConsentDeclined):
		msg := fmt.Sprintf("%s did not allow remote debugging (Cancel in its \"Allow remote debugging?\" dialog). "+
			"The next read asks again: click Allow there to let cdpprovider read what you see.", capitalize(t.Name))
		return nil, fail(ReasonConsentDeclined, msg, err)
	case err != nil:
		return nil, p.unreachable(err, &t)
	}
	if d.asked {
		p.log.Info("remote debugging allowed", "browser", t.Name)
	}
	st := &connState{
		target:   t,
		sessions: make(map[target.ID]*session),
		windows:  make(map[int64]*windowInfo),
		tabs:     make(map[target.ID]*tabInfo),
		docs:     make(map[uint64]*docInfo),
		ids:      p.ids,
	}
	if err := p.identify(ctx, c, st); err != nil {
		c.Close()
		return nil, p.unreachable(err, &t)
	}
	if err := p.discover(ctx, c); err != nil {
		c.Close()
		return nil, p.unreachable(err, &t)
	}
	p.conn, p.state = c, st
	p.hadConn, p.lastProduct = true, st.product
	p.log.Info("connected to the browser", "product", st.product, "version", st.version)
	go p.followConn(c, t)
	if t.Session != "" {
		if p.session.id == "" {
			p.session.id = t.Session
		}
		go p.followSession(c, t)
	}
	return c, nil
}

// dialing is the connection being opened in the background, and the
// browser it goes to.
type dialing struct {
	target browsers.Resolved
	dial   *wire.Dial
	asked  bool // a read has answered consent-pending; guarded by Provider.mu
}

// identify learns the browser's product name and version.
func (p *Provider) identify(ctx context.Context, c *wire.Conn, st *connState) error {
	v, err := cdproto.Call(ctx, c.Browser(), browser.GetVersion, cdproto.Empty{})
	if err != nil {
		return err
	}
	name, ver, _ := strings.Cut(v.Product, "/")
	st.version = ver
	st.product = browsers.ProductName(name, v.UserAgent, nil)
	// The brands a page sees tell Chrome from Chromium, Edge and Brave,
	// which the product string does not.
	infos, err := cdproto.Call(ctx, c.Browser(), target.GetTargets, target.GetTargetsParams{})
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
		err = s.FirstCall(ctx, func(ctx context.Context) error {
			return evalIn(ctx, s, cdproto.FrameID(ti.TargetID), brandsScript, &brands)
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
func (p *Provider) attach(ctx context.Context, c *wire.Conn, st *connState, id target.ID) (*session, error) {
	if s, ok := st.sessions[id]; ok {
		return s, nil
	}
	r, err := cdproto.Call(ctx, c.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: ptr(true)})
	if err != nil {
		return nil, err
	}
	s := &session{watchID: p.watchID, stateJS: stateScriptFor(p.watchID)}
	s.Session = c.Session(r.SessionID, p.pages, s.fetchingLoaded)
	st.sessions[id] = s
	s.Handle(func(method string, params jsonv2.Value) { p.onSessionEvent(s, method, params) })
	// The Page domain says when a JavaScript dialog opens and closes
	// (the session's health). Posted: a page that shows a dialog already
	// does not answer until it closes.
	if err := s.Post(ctx, page.CommandEnable, page.EnableParams{}); err != nil {
		return nil, err
	}
	return s, nil
}
