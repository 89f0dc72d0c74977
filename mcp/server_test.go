package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeSource answers from fields set by the test. Locate answers ids in
// locations, fails with the error in locateErrs, and otherwise answers
// like a provider that never issued the id.
type fakeSource struct {
	mu         sync.Mutex
	current    *mapping.Current
	currentErr error
	screen     *mapping.Current // Screen's answer; nil: current's
	screens    int              // the reads of Screen
	app        mapping.App
	appErr     error
	locations  map[string]*mapping.Location
	locateErrs map[string]error
	located    []string // the ids Locate was asked about
}

func (f *fakeSource) Current(context.Context) (*mapping.Current, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current, f.currentErr
}

func (f *fakeSource) Screen(context.Context) (*mapping.Current, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.screens++
	if f.screen != nil {
		return f.screen, f.currentErr
	}
	return f.current, f.currentErr
}

func (f *fakeSource) Locate(_ context.Context, id string) (*mapping.Location, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.located = append(f.located, id)
	if err, ok := f.locateErrs[id]; ok {
		return nil, err
	}
	if loc, ok := f.locations[id]; ok {
		return loc, nil
	}
	return nil, fmt.Errorf("locate %q: %w", id, mapping.ErrNotIssued)
}

func (f *fakeSource) App(context.Context) (mapping.App, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.app, f.appErr
}

func (f *fakeSource) setCurrentErr(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.currentErr = err
}

// newFake returns a source with a small browser: one window, one tab, a
// focused document holding a hovered button.
func newFake() *fakeSource {
	el := func(id, role, title string, states []string, children ...*mapping.Element) *mapping.Element {
		return &mapping.Element{ID: id, Role: role, Title: title, States: states, Children: children}
	}
	focused := []string{"focused"}
	tab := el("t1_AAAAAAAA", "Tab", "Fish & <Chips>", []string{"selected"})
	tab.URL = "https://example.com/?a=1&b=2"
	return &fakeSource{
		current: &mapping.Current{
			Protocol: mapping.Protocol,
			Instance: "4b3f0c2e-8d1a-4e57-9f3b-2a6c1d0e9b77",
			Root: el("a0_AAAAAAAA", "Application", "Chromium", focused,
				el("w1_AAAAAAAA", "Window", "Fish & <Chips>", focused,
					el("l1_AAAAAAAA", "TabList", "", nil, tab),
					el("d1_AAAAAAAA", "Document", "Fish & <Chips>", focused,
						el("n1.5_AAAAAAAA", "Button", "Order", []string{"hovered"})))),
		},
		app: mapping.App{Title: "Chromium", Bundle: "org.chromium.Chromium", Version: "156.0.8078.108"},
		// The Application cannot be placed, as the cdp package says.
		locateErrs: map[string]error{"a0_AAAAAAAA": mapping.CannotPlace(mapping.PlaceApplication, nil)},
		locations: map[string]*mapping.Location{
			"n1.5_AAAAAAAA": {
				State:   mapping.OnScreen,
				Frame:   &mapping.Rect{X: 10, Y: 20, Width: 80, Height: 24},
				Visible: &mapping.Rect{X: 10, Y: 20, Width: 80, Height: 12.5},
			},
			"n1.6_AAAAAAAA": {State: mapping.OffScreen},
			"n1.7_AAAAAAAA": {State: mapping.Gone},
		},
	}
}

// protocolVersions are the MCP versions the tests run under: the legacy
// initialize handshake and the SDK's latest (server/discover).
var protocolVersions = []string{"2025-11-25", ""}

// connect serves src in memory and returns a client session speaking the
// MCP version (empty: the SDK's latest).
func connect(t *testing.T, src Source, opts Options, version string) *sdk.ClientSession {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(src, opts).mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: "test-host", Version: "0"}, nil)
	cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// forEach runs f for each protocol version and each setting of Locate.
func forEach(t *testing.T, f func(t *testing.T, locate bool, version string)) {
	for _, version := range protocolVersions {
		for _, locate := range []bool{true, false} {
			name := fmt.Sprintf("mcp=%s/locate=%v", versionName(version), locate)
			t.Run(name, func(t *testing.T) { f(t, locate, version) })
		}
	}
}

func TestCapabilities(t *testing.T) {
	forEach(t, func(t *testing.T, locate bool, version string) {
		cs := connect(t, newFake(), Options{Locate: locate, ProviderName: "cdpprovider", ProviderVersion: "0.1.0"}, version)
		init := cs.InitializeResult()
		ops := []any{"current"}
		if locate {
			ops = append(ops, "locate")
		}
		want := &sdk.ServerCapabilities{
			Resources: &sdk.ResourceCapabilities{},
			Extensions: map[string]any{ExtensionID: map[string]any{
				"protocol":   "0.2.0",
				"operations": ops,
				"descriptor": "uicontext://descriptor",
			}},
		}
		if diff := cmp.Diff(want, init.Capabilities); diff != "" {
			t.Errorf("capabilities (-want +got):\n%s", diff)
		}
		if got := init.ServerInfo; got == nil || got.Name != "cdpprovider" || got.Version != "0.1.0" {
			t.Errorf("server info = %+v, want cdpprovider 0.1.0", got)
		}
		// No tools and no prompts: the SDK answers the lists, empty.
		if res, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Errorf("tools/list: %v; want an empty list", err)
		} else if len(res.Tools) != 0 {
			t.Errorf("tools/list = %v; the provider offers no tools", res.Tools)
		}
		if res, err := cs.ListPrompts(context.Background(), nil); err != nil {
			t.Errorf("prompts/list: %v; want an empty list", err)
		} else if len(res.Prompts) != 0 {
			t.Errorf("prompts/list = %v; the provider offers no prompts", res.Prompts)
		}
	})
}

func TestLists(t *testing.T) {
	forEach(t, func(t *testing.T, locate bool, version string) {
		cs := connect(t, newFake(), Options{Locate: locate}, version)
		ctx := context.Background()

		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		type entry struct{ Name, URI, MIMEType string }
		var got []entry
		for _, r := range res.Resources {
			got = append(got, entry{r.Name, r.URI, r.MIMEType})
		}
		want := []entry{
			{"current", "uicontext://current", "application/json"},
			{"screen", "uicontext://current?scope=screen", "application/json"},
			{"descriptor", "uicontext://descriptor", "application/json"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("resources/list (-want +got):\n%s", diff)
		}

		tres, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = nil
		for _, r := range tres.ResourceTemplates {
			got = append(got, entry{r.Name, r.URITemplate, r.MIMEType})
		}
		want = nil
		if locate {
			want = []entry{{"locate", "uicontext://locate/{id}", "application/json"}}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("resources/templates/list (-want +got):\n%s", diff)
		}
	})
}

func TestDefaults(t *testing.T) {
	s := NewServer(newFake(), Options{})
	if s.opts.ProviderName != "cdpprovider" || s.opts.ProviderVersion != "devel" || s.opts.Logger == nil {
		t.Errorf("defaults: %+v", s.opts)
	}
}

// A source error that is not about an id: the host gets it as an internal
// error with the source's message, and the next read is served afresh.
func TestSourceFailure(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := newFake()
			cs := connect(t, src, Options{Locate: true}, version)
			const msg = "cannot reach the browser at http://127.0.0.1:9222: start it with --remote-debugging-port=9222"
			src.setCurrentErr(errors.New(msg))
			if err := wantError(t, cs, CurrentURI, -32603, msg); err.Message != msg {
				t.Errorf("message %q, want the source's %q", err.Message, msg)
			}
			src.setCurrentErr(nil)
			readCurrent(t, cs)
		})
	}
}

func versionName(version string) string {
	if version == "" {
		return "latest"
	}
	return version
}
