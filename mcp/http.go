package mcp

import (
	"net/http"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionless is the first MCP revision without sessions (SEP-2575):
// each request stands alone, carrying its revision in its _meta and, over
// HTTP, in the Mcp-Protocol-Version header (SEP-2243), and a subscription
// is a request of its own (subscriptions/listen) whose response streams
// the notifications.
const sessionless = "2026-07-28"

// Handler serves the server over MCP's Streamable HTTP transport, with
// go-sdk's own handlers, under every revision go-sdk serves (7.5). A
// handler of go-sdk's either keeps sessions or serves each request alone
// (stateless), and serves 2026-07-28 only when stateless: so a request
// whose Mcp-Protocol-Version header names 2026-07-28 or later goes to a
// stateless one, which makes it a session that lasts as long as the
// request (a subscriptions/listen lasts until the client closes it), and
// every other request to one with sessions: a client of an older
// revision initializes without the header and gets a session of its own,
// with its stream of notifications. Both read the one Source, so that any
// number of clients share one browser connection, and subscriptions are
// per session either way (notify.go).
//
// Beyond go-sdk's own check that a request reaching a loopback address
// names a loopback Host, the handler checks no credentials and no
// Origin: its caller puts it behind those checks, and listens.
func (s *Server) Handler() http.Handler {
	server := func(*http.Request) *sdk.Server { return s.mcp }
	sessions := sdk.NewStreamableHTTPHandler(server, &sdk.StreamableHTTPOptions{Logger: s.sdkLog})
	alone := sdk.NewStreamableHTTPHandler(server, &sdk.StreamableHTTPOptions{Logger: s.sdkLog, Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Revisions are dates, so they compare as strings (go-sdk does
		// the same). Without the header a request that carries the
		// revision in its _meta is refused by the session handler
		// (-32022), as go-sdk's stateless one would refuse it (-32020):
		// SEP-2243 makes the header part of every such request.
		if r.Header.Get("Mcp-Protocol-Version") >= sessionless {
			alone.ServeHTTP(w, r)
			return
		}
		sessions.ServeHTTP(w, r)
	})
}

// CloseSessions ends every session of the server, waiting for the reads
// under way. An HTTP client's session holds a request open to receive
// notifications on (under 2026-07-28, its subscriptions/listen); closing
// the sessions lets an http.Server that is shutting down find its
// connections idle.
func (s *Server) CloseSessions() {
	var wg sync.WaitGroup
	for ss := range s.mcp.Sessions() {
		wg.Go(func() { ss.Close() })
	}
	wg.Wait()
}
