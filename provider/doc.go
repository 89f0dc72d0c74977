// Package provider wires the cdp, mapping and mcp packages into the
// cdpprovider program. It owns the program's Config and its one Run
// function: it checks the settings, sets up logging, launches a browser
// when asked, and then serves MCP on stdio, serves it over HTTP, or prints
// one read of current.
//
// Over HTTP (Config.HTTP) it owns the listening and who may come in:
// the address (loopback unless AllowRemote), the bearer token, the checks
// of Host and Origin (guard.go), and stopping gracefully. The MCP sessions
// themselves, and their subscriptions, are the mcp package's: every
// client is a session of one mcp.Server on the one browser connection.
//
// It exists because Run needs a home that imports both cdp (which must
// not import mcp) and mcp (which knows the browser only as a Source),
// while cmd/cdpprovider only parses flags. It makes no CDP calls of its
// own. Section numbers in comments are those of docs/protocol.md.
//
//	cfg := provider.Config{Command: provider.Serve, Connect: "http://127.0.0.1:9222"}
//	err := provider.Run(ctx, cfg, os.Stdin, os.Stdout, os.Stderr)
package provider
