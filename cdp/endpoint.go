package cdp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// endpoint is a browser's debugging address, checked.
type endpoint struct {
	// http is the http://host:port base for /json/*, empty when only a
	// ws:// URL without a usable host is known.
	http string
	// ws is the browser's websocket URL when it was given; otherwise it is
	// read from /json/version on each connect.
	ws string
}

// parseEndpoint checks a --connect address: http://host:port,
// host:port, or ws://host:port/devtools/browser/ID. Only loopback hosts
// are accepted unless allowRemote.
func parseEndpoint(addr string, allowRemote bool) (endpoint, error) {
	if addr == "" {
		return endpoint{}, fmt.Errorf("no browser address: give --connect http://127.0.0.1:9222 (a browser started with --remote-debugging-port=9222) or use --launch")
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil {
		return endpoint{}, fmt.Errorf("browser address %q: %w", addr, err)
	}
	host := u.Hostname()
	if host == "" || u.Port() == "" {
		return endpoint{}, fmt.Errorf("browser address %q: want host and port, as in http://127.0.0.1:9222", addr)
	}
	if !allowRemote && !isLoopback(host) {
		return endpoint{}, fmt.Errorf("browser address %q is not on this machine: a debugging endpoint is as powerful as the browser itself; pass --allow-remote to connect anyway", addr)
	}
	ep := endpoint{http: "http://" + u.Host}
	switch u.Scheme {
	case "http", "https":
	case "ws", "wss":
		ep.ws = addr
		if u.Scheme == "wss" {
			ep.http = "https://" + u.Host
		}
	default:
		return endpoint{}, fmt.Errorf("browser address %q: scheme must be http or ws", addr)
	}
	return ep, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// version is the answer of /json/version.
type version struct {
	Browser string `json:"Browser"` // "Chrome/156.0.8078.108", "HeadlessChrome/…", "Edg/…"
	WS      string `json:"webSocketDebuggerUrl"`
}

// getJSON reads one /json/* document of the endpoint.
func (ep endpoint) getJSON(ctx context.Context, path string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ep.http+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", ep.http+path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// wsURL returns the browser websocket URL to dial. The host of an URL read
// from /json/version is replaced by the one the user gave, since Chrome
// builds it from the request's Host header.
func (ep endpoint) wsURL(ctx context.Context) (string, error) {
	if ep.ws != "" {
		return ep.ws, nil
	}
	var v version
	if err := ep.getJSON(ctx, "/json/version", &v); err != nil {
		return "", err
	}
	u, err := url.Parse(v.WS)
	if err != nil || v.WS == "" {
		return "", fmt.Errorf("the browser at %s gave no websocket address", ep.http)
	}
	base, _ := url.Parse(ep.http)
	u.Host = base.Host
	return u.String(), nil
}
