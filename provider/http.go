package provider

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cdpprovider/cdpprovider/mcp"
)

// MCPPath is the path of the MCP endpoint of serve --http.
const MCPPath = "/mcp"

// shutdownWait bounds how long serve --http waits, when stopped, for the
// reads under way to be answered.
const shutdownWait = 5 * time.Second

// endpoint is what serve --http listens on: the listener, opened before
// the browser is launched so that a taken port fails at once, and the
// token its clients must send.
type endpoint struct {
	ln    net.Listener
	token string
	// random says the token was made at start (no --token-file): it is
	// printed, once.
	random bool
}

// listen reads or makes the token of cfg and listens on cfg.HTTP.
func listen(cfg Config) (*endpoint, error) {
	token, random, err := loadToken(cfg.TokenFile)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.HTTP)
	if err != nil {
		return nil, fmt.Errorf("--http %s: %w", cfg.HTTP, err)
	}
	return &endpoint{ln: ln, token: token, random: random}, nil
}

// loadToken reads the token in file, or makes a random one (32 bytes,
// hex) when file is "".
func loadToken(file string) (token string, random bool, err error) {
	if file == "" {
		b := make([]byte, 32)
		rand.Read(b) // never fails (crypto/rand)
		return hex.EncodeToString(b), true, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", false, fmt.Errorf("--token-file: %w", err)
	}
	token = strings.TrimSpace(string(b))
	if token == "" {
		return "", false, fmt.Errorf("--token-file %s is empty: put the token in it (for example 32 random bytes in hex: openssl rand -hex 32)", file)
	}
	if strings.ContainsAny(token, "\r\n") {
		return "", false, fmt.Errorf("--token-file %s holds more than one line: put the token alone in it", file)
	}
	return token, false, nil
}

// url is the endpoint's URL, with the port it got.
func (e *endpoint) url() string { return "http://" + e.ln.Addr().String() + MCPPath }

// unusedConns closes, once serve --http stops, the connections that have
// sent no request yet (http.StateNew). http.Server.Shutdown waits for
// them as for a read under way, up to 5 s, and Go's own HTTP client
// leaves such connections behind: a request that waits for a connection
// dials one, and when another frees up first it keeps the new one, never
// used, for later. Stopping would then wait the whole shutdownWait.
type unusedConns struct {
	mu       sync.Mutex
	conns    map[net.Conn]bool // guarded by mu
	stopping bool              // guarded by mu
}

// state is the server's ConnState hook.
func (u *unusedConns) state(c net.Conn, s http.ConnState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case s == http.StateNew && u.stopping: // accepted as the listener closed
		c.Close()
	case s == http.StateNew:
		u.conns[c] = true
	default:
		delete(u.conns, c)
	}
}

// stop closes the connections that have sent nothing, and any accepted
// from now on.
func (u *unusedConns) stop() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopping = true
	for c := range u.conns {
		c.Close()
	}
	clear(u.conns)
}

// serveHTTP serves MCP at e until ctx ends, then stops: it takes no new
// connections, ends every session (a client's open stream of
// notifications among them) and waits up to shutdownWait for the reads
// under way. Once it serves, it writes the URL, and nothing else, to
// stdout, and a random token with the URL to stderr.
func serveHTTP(ctx context.Context, cfg Config, e *endpoint, src mcp.Source, stdout, stderr io.Writer, log *slog.Logger) error {
	server := mcp.NewServer(src, mcpOptions(cfg, log))
	mux := http.NewServeMux()
	mux.Handle(MCPPath, server.Handler())
	hs := &http.Server{
		Handler:           guard(mux, e.token, cfg.AllowRemote, log),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
	}
	unused := &unusedConns{conns: map[net.Conn]bool{}}
	hs.ConnState = unused.state
	hs.RegisterOnShutdown(server.CloseSessions)
	hs.RegisterOnShutdown(unused.stop)
	served := make(chan error, 1)
	go func() { served <- hs.Serve(e.ln) }()

	url := e.url()
	log.Info("serving MCP over HTTP", "url", url, "locate", !cfg.NoLocate, "tools", cfg.Tools)
	if e.random {
		fmt.Fprintf(stderr, "cdpprovider: serving MCP at %s\ncdpprovider: clients must send the header \"Authorization: Bearer %s\" (a new token at each start; --token-file FILE keeps one)\n", url, e.token)
	}
	fmt.Fprintln(stdout, url)

	select {
	case err := <-served:
		return fmt.Errorf("serve --http: %w", err)
	case <-ctx.Done():
	}
	log.Info("stopping", "cause", context.Cause(ctx))
	sctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		log.Warn("reads still under way after "+shutdownWait.String()+"; closing their connections", "err", err)
		hs.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve --http: %w", err)
	}
	return nil
}
