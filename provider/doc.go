// Package provider wires the cdp, mapping and mcp packages into the
// cdpprovider program. It owns the program's Config and its one Run
// function: it checks the settings, sets up logging, launches a browser
// when asked, and then serves MCP on stdio, serves it over HTTP, prints
// one read of current, or watches: prints current again on every change
// the browser tells of, on a terminal in place (watch.go, screen.go).
// With --png it also writes a picture of what locate says (picture.go:
// which elements, located through the Source, mapped from screen points
// to the screenshot's pixels; package picture draws).
//
// serve starts its MCP server whatever happens to the browser: a launch
// that fails, or an address or header it cannot use, becomes the answer
// of every read, a *cdp.Failure (failures.go), and a failed launch is
// tried again on a later read (unstarted.go).
//
// Over HTTP (Config.HTTP) it owns the listening and who may come in:
// the address (loopback unless AllowRemote), the bearer token, the checks
// of Host and Origin (guard.go), and stopping gracefully. The MCP sessions
// themselves, and their subscriptions, are the mcp package's: every
// client is a session of one mcp.Server on the one browser connection.
//
// current, find and at with Config.Server read no browser: they are a
// client of such a server, by its tools (remote.go), so the ids they
// print last from one command to the next.
//
// It exists because Run needs a home that imports both cdp (which must
// not import mcp) and mcp (which knows the browser only as a Source),
// while cmd/cdpprovider only parses flags. It makes no CDP calls of its
// own. Section numbers in comments are those of docs/protocol.md.
//
//	cfg := provider.Config{Command: provider.Serve, Connect: "http://127.0.0.1:9222"}
//	err := provider.Run(ctx, cfg, os.Stdin, os.Stdout, os.Stderr)
package provider
