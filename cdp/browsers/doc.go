// Package browsers reaches the browsers on this machine and elsewhere,
// up to the websocket to dial and no further.
//
// It owns: which Chromium-family browsers are installed (installed.go:
// PATH and one table of each system's install places, which FindChrome
// and doctor both read) and running as the provider's user (read from a
// processes source, the OS's through gopsutil on Linux, macOS and
// Windows, with who listens on each port: processes.go, users_*.go,
// listeners_*.go), their
// user-data directories and the DevToolsActivePort each writes (never
// another user's), the chrome://inspect setting in a profile's Local
// State (discover.go), auto discovery over the files and the running
// browsers' debugging ports (findbrowsers.go), the order it reads them
// in, the person's browser before an automation browser (kind.go), the
// cdpprovider-launched marker that keeps a cdpprovider's own browsers
// out of it, launching a browser with a profile of its own (launch.go)
// that dies with the provider however the provider dies (the guard of
// each OS: Pdeathsig on Linux, guard_linux.go; a job object on Windows,
// guard_windows.go; on macOS its process group and a watcher,
// guard_bsd.go and watcher_unix.go), and the address of a browser (endpoint.go): checking a
// --connect address (its forms, the loopback check), parsing --header,
// and resolving the address to the websocket URL to dial now, through
// /json/version or a DevToolsActivePort, with GetJSON for the /json
// documents of a browser that answers them; and a browser service's
// sessions (service.go): its list (Browserless's GET /sessions), the one
// to read among them, and what the list says of it later, the address's
// query (its token) going with every request.
//
// What it never does: it never opens a websocket (every question to a
// port is a TCP connection and a GET of /json/version, so it never makes
// a browser ask its person whether to allow a connection), never speaks
// the DevTools protocol, and never touches a connection, a page or the
// provider: package cdp/wire dials what Resolve finds, and package cdp
// reads through it. The provider package uses it directly for doctor,
// the configuration's checks and --launch.
package browsers
