// Package mcp is the MCP binding of the protocol (docs/protocol.md §7, §8
// and §10), built on github.com/modelcontextprotocol/go-sdk. Section
// numbers in this package's comments are those of docs/protocol.md.
//
// It owns the wire: the resources uicontext://current and
// uicontext://descriptor, the resource template uicontext://locate/{id},
// the extension declared at initialize, the descriptor document, and the
// mapping of every failure to an MCP error. It offers no tools and no
// prompts: the operations are reads performed by the host's code, so they
// are resources (§4).
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
// The URI scheme and the extension identifier are spelled once, in
// binding.go, because a later text of the protocol may rename them.
package mcp
