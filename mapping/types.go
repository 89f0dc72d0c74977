package mapping

import (
	"github.com/chromedp/cdproto/accessibility"
	cdproto "github.com/chromedp/cdproto/cdp"
)

// Protocol is the version of the protocol this package builds answers for.
const Protocol = "0.2.0"

// Current is the answer of the current operation (section 4.1): exactly
// these three fields.
type Current struct {
	Protocol string   `json:"protocol"`
	Instance string   `json:"instance"`
	Root     *Element `json:"root"`
}

// Element is one element of the answer (5.1). Empty fields are omitted.
type Element struct {
	ID          string     `json:"id"`
	Role        string     `json:"role"`
	Title       string     `json:"title,omitempty"`
	Value       string     `json:"value,omitempty"`
	Description string     `json:"description,omitempty"`
	URL         string     `json:"url,omitempty"`
	Level       int        `json:"level,omitempty"`
	States      []string   `json:"states,omitempty"`
	Omitted     int        `json:"omitted,omitempty"`
	Children    []*Element `json:"children,omitempty"`
	// Off says where the elements a screen answer left out below this
	// one are (Screen); nil in other answers. Not in the JSON, whose
	// Omitted counts them; the outline writes a line for each way.
	Off *Off `json:"-"`
	// Unfetched marks the stand-in for a node of a partial tree
	// (Frame.Partial) that was not asked for: never on screen, one
	// element where a screen answer counts what it left out. Not in the
	// JSON: no answer holds one.
	Unfetched bool `json:"-"`
}

// Location is the answer of the locate operation (section 6).
type Location struct {
	State   string `json:"state"`
	Frame   *Rect  `json:"frame,omitempty"`
	Visible *Rect  `json:"visible,omitempty"`
}

// Location states.
const (
	OnScreen  = "onscreen"
	OffScreen = "offscreen"
	Gone      = "gone"
)

// Rect is a rectangle in screen points.
type Rect struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Browser is what the cdp package gathered about the browser for one read
// of current: its windows, their tabs, and the content of each window's
// active tab.
type Browser struct {
	// Product is the browser's name as a person knows it ("Chromium",
	// "Google Chrome"); it becomes the root's title.
	Product string
	// Windows in the browser's order. The focused window carries Focused.
	Windows []*Window
}

// Window is one browser window.
type Window struct {
	// Key is the provider's number for this window (never reused in a run).
	Key       uint64
	Minimized bool
	// Unknown marks the window that holds the tabs whose window the
	// browser did not tell: it says so in its description
	// (WindowUnknown), and has no active tab.
	Unknown bool
	// Focused marks the one window on the focus path.
	Focused bool
	// Tabs are the window's page tabs in tab-strip order.
	Tabs []*Tab
	// Dialog is the JavaScript dialog the active tab's page shows, if
	// any: it is drawn above the page, and while it is open the keyboard
	// focus is in it.
	Dialog *Dialog
}

// Dialog is a page's JavaScript dialog: alert, confirm, prompt or the
// "Leave site?" of beforeunload.
type Dialog struct {
	// Key is the provider's number for this dialog (never reused in a
	// run): each dialog opened is a new one.
	Key uint64
	// Type is alert, confirm, prompt or beforeunload.
	Type string
	// Title is the dialog's heading as the browser shows it: "ORIGIN
	// says", or "Leave site?" for beforeunload.
	Title string
	// Message is the text the page gave.
	Message string
	// DefaultPrompt is a prompt's default value, the field's text.
	DefaultPrompt string
}

// The parts of a dialog, each an element with an id of its own (the
// dialog's key and the part).
const (
	DialogSelf = iota
	DialogMessage
	DialogField
	DialogOK
	DialogCancel
	dialogParts
)

// Unavailable says why a document's content could not be read: the
// Document element says so in its description, with the title and url
// last known, and no children unless they were kept from a read before.
const (
	Crashed       = "This page crashed."
	NotResponding = "This page is not responding."
	BehindDialog  = "This page waits for its dialog to be answered."
	// The page answers, but not the provider's state script in its
	// isolated world (PageNoScript), or the read of its content failed
	// (PageReadFailed): the provider's failure, not the page's health.
	PageNoScript   = "This page could not be read: it did not answer the provider's script."
	PageReadFailed = "This page could not be read: reading its content failed."
)

// A Tab that could not be read says why in its description (Tab.Unread),
// one of these; the Window of tabs whose window is not known says so in
// its description (Window.Unknown).
const (
	TabNoScript   = "This tab could not be read: its page did not answer the provider's script."
	TabNoWindow   = "This tab could not be read: the browser did not say which window it is in."
	TabNoAttach   = "This tab could not be read: the browser did not let the provider attach to it."
	WindowUnknown = "The browser did not say which window these tabs are in."
)

// Tab is one page tab.
type Tab struct {
	// Key is the provider's number for this tab (never reused in a run).
	Key    uint64
	Title  string
	URL    string
	Active bool
	// Unread, when set (TabNoScript, TabNoWindow, TabNoAttach), says
	// what of the tab could not be read: its description.
	Unread string
	// Doc is the content of the active tab; nil for background tabs.
	Doc *Frame
}

// Frame is one document's accessibility tree, with the documents of its
// iframes.
type Frame struct {
	// Doc is the provider's number for this document (a frame with a given
	// loader: a navigation makes a new document). Never reused in a run.
	Doc uint64
	// URL of the document.
	URL string
	// NodeBase is subtracted from a DOM node's backend id in its element
	// id. Chrome numbers DOM nodes for a renderer process's whole life, so
	// a page read after others in the same process has large numbers; from
	// the document's own node they stay about as small as the page. The
	// caller fixes it for the document's life (the provider: the document
	// node's backend id at its first read with a tree), or ids change.
	NodeBase cdproto.BackendNodeID
	// Nodes is the document's accessibility tree exactly as
	// Accessibility.getFullAXTree returned it (the root first).
	Nodes []*accessibility.Node
	// Frames holds the child documents, keyed by the backend DOM node id of
	// the <iframe> (or <frame>, <object>) element that owns each.
	Frames map[cdproto.BackendNodeID]*Frame
	// HasFocus marks the frames on the focus path: this document holds the
	// keyboard focus or contains the frame that does.
	HasFocus bool
	// FocusLive says the focus was read live from the page: Focus is then
	// the chain of the element with keyboard focus in this document,
	// deepest first (empty when the document itself has it, or when a
	// child frame holds it). Without it the mapping falls back to Chrome's
	// focused property, which goes stale on blur.
	FocusLive bool
	Focus     []cdproto.BackendNodeID
	// Unavailable, when set (Crashed, NotResponding, BehindDialog,
	// PageNoScript, PageReadFailed), says the document
	// could not be read: it is a Document titled Title with that
	// description, and Mapped's children when Mapped is set (kept from
	// an earlier read, with nothing on them marked focused or hovered).
	Unavailable string
	// Title is the document's title when Nodes do not give it.
	Title string
	// Mapped, when set, is what MapFrame returned for this frame on an
	// earlier read whose input was the same in every respect (the caller
	// vouches for that), to be answered again as it is; so an unchanged
	// page is not mapped again. ApplyBudgetOnScreen leaves it as it is (a cut
	// tree has copies where it differs), so an answer that holds it is
	// not changed by a later read's cut.
	Mapped *Element
	// Pointer marks the one document the mouse pointer is in (the deepest
	// frame under it). It is false everywhere when the provider has not
	// seen the pointer.
	Pointer bool
	// Hover is, in the document that has the pointer, the chain of hovered
	// DOM elements, deepest first. The hovered element is the first of them
	// that is reported, or an ancestor of it; the Document itself when none.
	Hover []cdproto.BackendNodeID
	// ValueText holds the aria-valuetext attribute of the range widgets
	// (slider, spinbutton, progressbar, meter, scrollbar) that have one,
	// keyed by backend DOM node id: Chrome leaves it out of the
	// accessibility tree's valuetext property, and it is the value a
	// person reads (5.4: value text before the number).
	ValueText map[cdproto.BackendNodeID]string
	// OnScreen holds the DOM elements of this document a person sees in
	// its viewport, in any order; nil when not looked for, which the
	// caller does only when an answer must be cut (see OverBudget) or the
	// screen asked for (Screen). ApplyBudgetOnScreen keeps them after the
	// selected elements and before the rest (5.6).
	OnScreen []cdproto.BackendNodeID
	// ScreenUnknown says what is on screen of this document could not be
	// found: Screen keeps it whole rather than leave out what may be
	// there.
	ScreenUnknown bool
	// Partial says Nodes are only the part of the document's tree that
	// places its elements on screen (the provider's first read of a large
	// page's screen, before it holds the whole tree): a child a node
	// names that is not in Nodes stands in the answer as one element
	// not on screen, which Screen counts in Omitted as one, and its Off
	// says the counts are not known (Off.Unknown).
	Partial bool
}

// App is what the descriptor says of the browser (section 8).
type App struct {
	Title   string `json:"title"`
	Bundle  string `json:"bundle,omitempty"`
	Version string `json:"version,omitempty"`
}

// ProviderInfo names the provider in the descriptor.
type ProviderInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Descriptor is the answer of uicontext://descriptor (section 8).
type Descriptor struct {
	Protocol   string       `json:"protocol"`
	App        App          `json:"app"`
	Provider   ProviderInfo `json:"provider"`
	Operations []string     `json:"operations"`
}

// Budget holds the limits of 5.6.
type Budget struct {
	// MaxText is the most characters of one string; a cut string ends in "…".
	MaxText int
	// MaxElements is the most elements of one answer.
	MaxElements int
	// MaxBytes is the most bytes of one answer's JSON.
	MaxBytes int
}

// DefaultBudget is the budget of 5.6.
var DefaultBudget = Budget{MaxText: 4096, MaxElements: 50000, MaxBytes: 8 << 20}

// WithDefaults returns b with each field that is zero or less taken from
// DefaultBudget. It is the one place the defaults are filled in.
func (b Budget) WithDefaults() Budget {
	if b.MaxText <= 0 {
		b.MaxText = DefaultBudget.MaxText
	}
	if b.MaxElements <= 0 {
		b.MaxElements = DefaultBudget.MaxElements
	}
	if b.MaxBytes <= 0 {
		b.MaxBytes = DefaultBudget.MaxBytes
	}
	return b
}
