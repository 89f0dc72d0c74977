package cdp

import (
	"errors"
	"net/url"

	cdproto "github.com/chromedp/cdproto/cdp"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// A tab whose page cannot answer now (crashed, behind a JavaScript
// dialog, not responding: its session's health, wire.Session.Unavailable)
// is reported all the same, without asking the page; so is one whose page
// answers but could not be read (errNoState, errNoDocument), the same
// way, its Document saying so.

// dialogElement is the mapping's Dialog of an open dialog.
func dialogElement(d *wire.Dialog) *mapping.Dialog {
	title := "Leave site?"
	if d.Type != "beforeunload" {
		title = "This page says"
		if u, err := url.Parse(d.URL); err == nil && u.Host != "" {
			title = u.Host + " says"
		}
	}
	return &mapping.Dialog{Key: d.Key, Type: d.Type, Title: title, Message: d.Message, DefaultPrompt: d.DefaultPrompt}
}

// crashedLoader stands for the loader of a crashed page's document: what
// it showed is gone, and a reload makes a new document.
const crashedLoader cdproto.LoaderID = "crashed"

// readDown gives a window whose active tab cannot be read (down says why)
// its content without asking the page: its Document as last read (when
// kept), with nothing on it focused or hovered, saying why in its
// description; and the JavaScript dialog the page waits on, where the
// person sees it (the window's; focused: the window is the focused one). A
// crashed page's Document is new and empty: its old elements are gone.
// So is the Document of a page that navigated since it was last read
// (Page.frameNavigated told of a document no read has seen): the person
// sees the new page, not the one before.
func (p *Provider) readDown(t *tabState, down error, focused bool) (document *mapping.Frame, dialog *mapping.Dialog) {
	st := p.state
	top := cdproto.FrameID(t.info.TargetID)
	crashed := errors.Is(down, wire.ErrCrashed)
	shown := t.sess.ShownDocument()
	if crashed {
		shown = ""
	}
	var last *docInfo
	for _, d := range st.docs {
		if d.key.target == t.info.TargetID && d.key.frame == top && (last == nil || d.n > last.n) && (shown == "" || d.key.loader == shown) {
			last = d
		}
	}
	if last == nil || crashed && last.key.loader != crashedLoader {
		key := docKey{t.info.TargetID, top, shown}
		if crashed {
			key.loader = crashedLoader
			for m, d := range st.docs { // the page's documents are gone
				if d.key.target == key.target && d.key.frame == top {
					st.forgetDoc(m)
				}
			}
		}
		last = p.numberDoc(key, t.info.TargetID, 0, 0)
	}
	n := last.n
	open := t.sess.OpenDialog()
	f := &mapping.Frame{Doc: n, URL: t.info.URL, Title: t.info.Title, HasFocus: focused && open == nil}
	switch {
	case crashed:
		f.Unavailable = mapping.Crashed
	case open != nil:
		f.Unavailable = mapping.BehindDialog
		dialog = dialogElement(open)
	case errors.Is(down, errNoState), errors.Is(down, errNoDocument):
		_, f.Unavailable, _ = unreadMarks(t)
	default:
		f.Unavailable = mapping.NotResponding
	}
	if el := last.shown; el != nil && !crashed {
		f.Mapped = el
		last.held = true
	}
	return f, dialog
}
