// Package mcp is the MCP binding of the protocol (docs/protocol.md §7, §8
// and §10), built on github.com/modelcontextprotocol/go-sdk. Section
// numbers in this package's comments are those of docs/protocol.md.
//
// It owns the wire: the resources uicontext://current and
// uicontext://descriptor, the resource template uicontext://locate/{id},
// the extension declared at initialize, the descriptor document, the
// mapping of every failure to an MCP error, and the change notifications
// of each session subscribed. The operations are reads performed by the
// host's code, so they are resources (§4); it offers no prompts, and no
// tools unless asked for the tool mirror (Options.Tools: ui_current and
// ui_locate, whose text is the resources' text, for hosts whose model is
// given tools only). The mirror is outside the protocol's binding:
// neither the descriptor nor the extension names it.
//
// One Server serves one session over a transport (Run, for stdio) or any
// number of them over Streamable HTTP (Handler), all reading one Source.
// Listening, and checking who may connect (tokens, Origin), are its
// caller's.
//
// It does not touch the browser. Everything it reports comes from a
// [Source] (the cdp package's Provider, or a fake in tests); it makes no
// CDP calls, builds no elements and mints no ids. It only checks that a
// locate id has the form of §5.2 before asking the Source about it.
//
// Wiring, with the provider as the source:
//
//	srv := mcp.NewServer(provider, mcp.Options{Locate: true, ProviderName: "cdpprovider", ProviderVersion: version})
//	err := srv.Run(ctx, &sdk.StdioTransport{})
//
// or, for HTTP clients, behind the caller's checks:
//
//	http.Handle("/mcp", checks(srv.Handler()))
//
// The URI scheme and the extension identifier are spelled once, in
// binding.go, because a later text of the protocol may rename them.
package mcp
