package mcp

import (
	"context"
	"log/slog"
	"sync"

	"github.com/cdpprovider/cdpprovider/mapping"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a Server.
type Options struct {
	// Locate offers the locate operation. Off (7.3), there is no locate
	// template, neither the descriptor nor the extension names locate, and
	// every locate URI is an unknown resource. Turn it off when the
	// provider cannot report positions.
	Locate bool
	// ProviderName and ProviderVersion name the provider in the descriptor
	// and in the MCP server info. Empty, they are "cdpprovider" and "devel".
	ProviderName, ProviderVersion string
	// Tools also offers current and locate as the read-only tools
	// ui_current and ui_locate (tools.go), ui_find (find.go) and, with
	// locate and a source that is a Pointer, ui_at (at.go), for hosts
	// whose model is given tools only. Off, the server has no tools and declares no tools
	// capability. The descriptor and the extension never name them.
	Tools bool
	// Logger receives diagnostics: every failed read, and the SDK's own
	// logs (its Info as Debug). Nil means slog.Default().
	Logger *slog.Logger
}

// Server is the provider's MCP server: the SDK server with the binding's
// resources, change notifications for current (7.4) when the source is a
// Watcher, and the tool mirror when asked for; nothing else. One Server
// serves any number of sessions (Run for one over stdio, Handler for
// many over HTTP), all reading the one Source.
type Server struct {
	src  Source
	opts Options

	failMu      sync.Mutex
	lastFailure string // the message of the last internal error; guarded by failMu

	ops []string // the operations offered, for the descriptor and the extension
	// docs writes answers of current, keeping each document's JSON for
	// the next answer: an unchanged document's is copied.
	docs mapping.DocumentCache
	mcp  *sdk.Server
	// sdkLog is opts.Logger with the SDK's Info lowered to Debug, for the
	// SDK's server and HTTP handler.
	sdkLog *slog.Logger
	// notify sends the change notifications of 7.4; nil when the source
	// cannot watch.
	notify *notifier
}

// NewServer returns a server that answers from src.
func NewServer(src Source, opts Options) *Server {
	if opts.ProviderName == "" {
		opts.ProviderName = "cdpprovider"
	}
	if opts.ProviderVersion == "" {
		opts.ProviderVersion = "devel"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Server{src: src, opts: opts, ops: []string{opCurrent}}
	if opts.Locate {
		s.ops = append(s.ops, opLocate)
	}

	// Only resources (and tools, when mirrored), and an unchanging list
	// of them; no logging capability either (the SDK's default).
	caps := &sdk.ServerCapabilities{Resources: &sdk.ResourceCapabilities{}}
	if opts.Tools {
		caps.Tools = &sdk.ToolCapabilities{}
	}
	caps.AddExtension(ExtensionID, map[string]any{
		"protocol":   mapping.Protocol,
		"operations": s.ops,
		"descriptor": DescriptorURI,
	})
	s.sdkLog = slog.New(sdkHandler{opts.Logger.Handler()})
	sopts := &sdk.ServerOptions{Logger: s.sdkLog, Capabilities: caps, SetCacheable: private}
	s.watch(sopts, caps)
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: opts.ProviderName, Version: opts.ProviderVersion}, sopts)
	s.mcp.AddReceivingMiddleware(s.screenReads)
	s.mcp.AddResource(&sdk.Resource{
		URI:         CurrentURI,
		Name:        opCurrent,
		Title:       "What the user has open",
		Description: "The app as a tree of elements; the focus path, the hovered and the selected elements are marked with states.",
		MIMEType:    MIMEType,
	}, s.readCurrent)
	s.mcp.AddResource(&sdk.Resource{
		URI:         ScreenURI,
		Name:        "screen",
		Title:       "What the user sees on screen",
		Description: "current's tree with only the elements on screen in each page, with their ancestors; omitted counts what was left out.",
		MIMEType:    MIMEType,
	}, s.readCurrent)
	s.mcp.AddResource(&sdk.Resource{
		URI:         DescriptorURI,
		Name:        "descriptor",
		Title:       "Provider descriptor",
		Description: "The protocol version, the app, the provider and the operations it offers.",
		MIMEType:    MIMEType,
	}, s.readDescriptor)
	if opts.Locate {
		s.mcp.AddResourceTemplate(&sdk.ResourceTemplate{
			URITemplate: LocateTemplate,
			Name:        opLocate,
			Title:       "Where an element is on screen",
			Description: "The location of an element by the id current gave it: onscreen, offscreen or gone, with its frame in screen points.",
			MIMEType:    MIMEType,
		}, s.readLocation)
	}
	if opts.Tools {
		s.addTools()
	}
	return s
}

// Run serves one MCP session over t until the client disconnects or ctx
// is done. A failed read never ends the session.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.mcp.Run(ctx, t)
}

// screenReads answers a resources/read of a URI that names nothing, or a
// malformed locate id, before the SDK looks for a handler, so that the
// error says which case it was.
func (s *Server) screenReads(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if r, ok := req.(*sdk.ReadResourceRequest); ok && r.Params != nil {
			if id, err := route(r.Params.URI, s.opts.Locate); err != nil {
				return nil, s.readError(r.Params.URI, id, err).rpc()
			}
		}
		return next(ctx, method, req)
	}
}

// private marks every result that can say how it may be cached (reads,
// lists, server/discover) as the requesting user's only: what a person
// sees in their browser is theirs, and no shared cache may keep it. The
// time-to-live stays what it was: 0 for a read, which asks the browser
// again each time (7.1).
func private(_ context.Context, _ sdk.Request, c *sdk.Cacheable) {
	c.CacheScope = "private"
}

// sdkHandler passes on the SDK's own logs with Info lowered to Debug: the
// SDK logs every notification, subscription and session at Info, which is
// chatter for a provider that may notify ten times a second. Warnings and
// errors pass as they are.
type sdkHandler struct{ slog.Handler }

func (h sdkHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, lowered(l))
}

func (h sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lowered(r.Level)
	return h.Handler.Handle(ctx, r)
}

func (h sdkHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkHandler{h.Handler.WithAttrs(attrs)}
}

func (h sdkHandler) WithGroup(name string) slog.Handler { return sdkHandler{h.Handler.WithGroup(name)} }

func lowered(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}
