package mcp

import (
	"context"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// Source answers the protocol's reads. The cdp package's Provider is the
// real one; tests use fakes.
//
// Errors: Locate returns an error wrapping mapping.ErrMalformedID,
// mapping.ErrNotIssued or mapping.ErrCannotPlace for ids the host must be
// told are unknown (resource not found). Any other error is a failure to
// read the browser; its message says what failed and what to do.
type Source interface {
	// Current reads what the user has open now (section 4.1).
	Current(ctx context.Context) (*mapping.Current, error)
	// Locate says where the element with the id is (section 6).
	Locate(ctx context.Context, id string) (*mapping.Location, error)
	// App describes the browser for the descriptor (section 8).
	App(ctx context.Context) (mapping.App, error)
}
