package mapping

import "errors"

// ErrCannotPlace is returned by locate for an element that exists but has
// no geometry of its own (the Application, a Tab, an accessibility-only
// node). Section 6 answers it like a never-issued id. A locate that knows
// why returns a *PlaceError, which matches it with errors.Is.
var ErrCannotPlace = errors.New("element cannot be placed on screen")

// Why an element cannot be placed: the PlaceError's Why, one stable word
// a host's code can act on (docs/protocol.md §7.2).
const (
	// PlaceApplication: the Application is the browser itself, not a
	// thing on screen; its Windows have places.
	PlaceApplication = "application"
	// PlaceTabList: the tab strip is drawn by the browser, not by a page.
	PlaceTabList = "tab-list"
	// PlaceTab: a Tab is drawn by the browser; its Document, while it is
	// the window's active tab, has a place.
	PlaceTab = "tab"
	// PlaceNoGeometry: an accessibility-only node has no DOM node, so no
	// box.
	PlaceNoGeometry = "no-geometry"
	// PlaceDialog: a JavaScript dialog is drawn by the browser, not by
	// the page.
	PlaceDialog = "dialog"
	// PlaceCrashed: the Document of a page that crashed has nothing to
	// measure.
	PlaceCrashed = "crashed"
	// PlaceNotAnswering: the element's page cannot be asked now (it waits
	// for its JavaScript dialog, or is not responding); a locate after
	// it answers again may place it.
	PlaceNotAnswering = "page-not-answering"
	// PlaceWindowUnknown: the Window of the tabs whose window the browser
	// did not say (WindowUnknown) stands for no window of the browser's.
	PlaceWindowUnknown = "window-unknown"
)

// PlaceError is locate's error for an element it cannot place, saying
// why. errors.Is(err, ErrCannotPlace) holds for it.
type PlaceError struct {
	// Why is one of the Place constants.
	Why string
	// Err is the cause, when there is more to say (the page's state);
	// nil otherwise.
	Err error
}

// CannotPlace is the error of an element that cannot be placed for the
// reason why; err (may be nil) is the cause.
func CannotPlace(why string, err error) error { return &PlaceError{Why: why, Err: err} }

func (e *PlaceError) Error() string {
	msg := ErrCannotPlace.Error() + " (" + e.Why + ")"
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is makes a PlaceError match ErrCannotPlace.
func (e *PlaceError) Is(target error) bool { return target == ErrCannotPlace }

func (e *PlaceError) Unwrap() error { return e.Err }
