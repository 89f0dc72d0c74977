package mapping

import "errors"

// ErrCannotPlace is returned by locate for an element that exists but has
// no geometry of its own (the Application, a Tab, an accessibility-only
// node). Section 6 answers it like a never-issued id.
var ErrCannotPlace = errors.New("element cannot be placed on screen")
