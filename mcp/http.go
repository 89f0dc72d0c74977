package mcp

import (
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves the server over MCP's Streamable HTTP transport, with
// go-sdk's own handler: each client that initializes gets a session of
// its own, and every session reads the one Source, so that any number of
// clients share one browser connection. Subscriptions are per session
// (notify.go). Beyond go-sdk's own check that a request reaching a
// loopback address names a loopback Host, the handler checks no
// credentials and no Origin: its caller puts it behind those checks, and
// listens.
func (s *Server) Handler() http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		Logger: s.sdkLog,
	})
}

// CloseSessions ends every session of the server, waiting for the reads
// under way. An HTTP client's session holds a request open to receive
// notifications on; closing the sessions lets an http.Server that is
// shutting down find its connections idle.
func (s *Server) CloseSessions() {
	var wg sync.WaitGroup
	for ss := range s.mcp.Sessions() {
		wg.Go(func() { ss.Close() })
	}
	wg.Wait()
}
