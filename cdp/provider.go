package cdp

import (
	"context"
	"errors"
	"log/slog"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// Options configure a Provider.
type Options struct {
	// Connect is the browser's debugging address: http://host:port or a
	// ws:// URL of the browser endpoint.
	Connect string
	// AllowRemote permits a Connect address that is not on loopback.
	AllowRemote bool
	// BundleID overrides the bundle identifier derived from the product.
	BundleID string
	// Budget bounds every answer (5.6).
	Budget mapping.Budget
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
}

// Provider reads a browser for the protocol. It connects lazily on the
// first read and reconnects after the browser goes away. It is safe for
// concurrent use.
type Provider struct {
	opts Options
	ids  *mapping.IDs
}

// NewProvider returns a provider for the browser at opts.Connect. It
// checks the address (loopback unless AllowRemote) but does not connect.
func NewProvider(opts Options) (*Provider, error) {
	return &Provider{opts: opts, ids: mapping.NewIDs()}, nil
}

// Current reads what the user has open now.
func (p *Provider) Current(ctx context.Context) (*mapping.Current, error) {
	return nil, errors.New("cdp: not implemented yet")
}

// Locate says where the element with the id is.
func (p *Provider) Locate(ctx context.Context, id string) (*mapping.Location, error) {
	return nil, errors.New("cdp: not implemented yet")
}

// App describes the browser for the descriptor.
func (p *Provider) App(ctx context.Context) (mapping.App, error) {
	return mapping.App{}, errors.New("cdp: not implemented yet")
}

// Close disconnects from the browser. It does not close the browser.
func (p *Provider) Close() error { return nil }
