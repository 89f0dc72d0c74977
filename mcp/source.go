package mcp

import (
	"context"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// Source answers the protocol's reads. The cdp package's Provider is the
// real one; tests use fakes.
//
// Errors: Locate returns an error wrapping mapping.ErrMalformedID,
// mapping.ErrNotIssued or mapping.ErrCannotPlace (a *mapping.PlaceError
// says why) for ids the host must be told are unknown (resource not
// found). Any other error is a failure to read the browser: the first
// error in its chain with a Reason() string method (the cdp package's
// Failure) gives the host its reason and message, which says what
// happened and what the person can do; an error without one is
// read-failed, with its own message.
type Source interface {
	// Current reads what the user has open now (section 4.1).
	Current(ctx context.Context) (*mapping.Current, error)
	// Screen reads what is on screen now: Current's answer with, in each
	// window's Document, only the elements on screen and their ancestors
	// (mapping.Screen).
	Screen(ctx context.Context) (*mapping.Current, error)
	// Locate says where the element with the id is (section 6).
	Locate(ctx context.Context, id string) (*mapping.Location, error)
	// App describes the browser for the descriptor (section 8).
	App(ctx context.Context) (mapping.App, error)
}
