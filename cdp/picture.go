package cdp

import (
	"context"
	"errors"
	"fmt"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// Beside the read: a screenshot of the tab a top Document is shown in, for
// a picture of what locate says (package picture draws it).

// ErrNotShown is Screenshot's error for a document that is not a tab's
// top document now: navigated away, its tab closed, or an iframe's.
var ErrNotShown = errors.New("the document is not shown in a tab")

// shotWithin bounds one screenshot: Chrome waits for a frame of the page
// to draw, and a tab that is not shown may never give one.
const shotWithin = 10 * time.Second

// Screenshot returns a PNG of what the tab showing the top Document with
// the id shows: its page area, scrollbars included, in the window's
// device pixels (so its width over the Document's frame width from
// locate is the pixels per screen point). It is Page.captureScreenshot of
// that tab's visible area and nothing else: it does not bring the tab to
// the front, scroll, resize or run script. Take it of a tab that is shown
// (its Document locates onscreen): Chrome draws no frame for a hidden
// one. It fails with ErrNotShown for a document that is no tab's top
// document now, and at once, saying why, for a page that cannot answer
// (crashed, behind a dialog, not responding).
func (p *Provider) Screenshot(ctx context.Context, docID string) ([]byte, error) {
	ref, err := p.ids.Parse(docID)
	if err != nil {
		return nil, err
	}
	if ref.Kind != mapping.KindDocument {
		return nil, fmt.Errorf("%w: %s is not a Document", ErrNotShown, docID)
	}
	p.heard()
	defer p.heard()
	ctx, c, done, err := p.begin(ctx)
	defer done()
	if err != nil {
		return nil, err
	}
	p.wake(ctx)
	info := p.state.docs[uint64(ref.A)]
	if info == nil || info.parent != 0 {
		return nil, ErrNotShown
	}
	s, err := p.attach(ctx, c, p.state, info.tab)
	if err != nil {
		return nil, p.failure("take a screenshot", err)
	}
	if err := s.Unavailable(); err != nil {
		return nil, fmt.Errorf("cannot take a screenshot of the tab: %w", err)
	}
	if ok, err := isCurrent(ctx, s, info); err != nil || !ok {
		if err != nil && !c.Alive() {
			return nil, p.failure("take a screenshot", err)
		}
		return nil, ErrNotShown
	}
	ctx, cancel := context.WithTimeout(ctx, shotWithin)
	defer cancel()
	r, err := cdproto.Call(ctx, s, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, p.failure("take a screenshot", err)
	}
	if len(r.Data) == 0 {
		return nil, fmt.Errorf("the browser's screenshot of the tab is empty")
	}
	return r.Data, nil
}
