package e2e

import (
	"bytes"
	"io"
	"net"
	"sync"
	"testing"
)

// relay passes TCP connections from its own address to a browser's
// debugging port, both ways, so that a test can reach the browser at
// another address (the IPv6 loopback) and see what the browser says to
// the provider: once told a marker, it holds back the first data from the
// browser that contains it, and everything the browser sends after, so
// that the provider's call is left waiting, and says so.
type relay struct {
	ln       net.Listener
	upstream string

	mu      sync.Mutex
	conns   []net.Conn    // guarded by mu
	marker  []byte        // what to hold back at; guarded by mu
	held    chan struct{} // closed when the marker passed; guarded by mu
	holding bool          // guarded by mu
}

// startRelay listens on listen and relays each connection to upstream
// (host:port) until the test ends.
func startRelay(t testing.TB, listen, upstream string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatalf("relay: listen on %s: %v", listen, err)
	}
	r := &relay{ln: ln, upstream: upstream}
	go r.serve()
	t.Cleanup(r.close)
	return r
}

// addr is the relay's own host:port.
func (r *relay) addr() string { return r.ln.Addr().String() }

// holdAt arms the relay: the first data from the browser that contains
// marker, and all after it, is not passed on. The channel is closed when
// that happens.
func (r *relay) holdAt(marker string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.marker, r.held, r.holding = []byte(marker), make(chan struct{}), false
	return r.held
}

// release disarms the relay: from now on it passes everything on again
// (what it held back stays dropped).
func (r *relay) release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.marker, r.holding = nil, false
}

func (r *relay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", r.upstream)
		if err != nil {
			c.Close()
			continue
		}
		r.mu.Lock()
		r.conns = append(r.conns, c, u)
		r.mu.Unlock()
		go func() {
			io.Copy(u, c)
			u.Close()
		}()
		go r.down(u, c)
	}
}

// down passes what the browser sends to the client until either ends,
// holding back from the marker on.
func (r *relay) down(u, c net.Conn) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	var tail []byte // the end of the data before, for a marker split across reads
	for {
		n, err := u.Read(buf)
		if n > 0 {
			window := append(tail, buf[:n]...)
			if !r.hold(window) {
				if _, err := c.Write(buf[:n]); err != nil {
					return
				}
			}
			tail = append([]byte(nil), window[max(0, len(window)-64):]...)
		}
		if err != nil {
			return
		}
	}
}

// hold says whether data is to be held back.
func (r *relay) hold(data []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holding {
		return true
	}
	if len(r.marker) > 0 && bytes.Contains(data, r.marker) {
		r.holding = true
		close(r.held)
		return true
	}
	return false
}

func (r *relay) close() {
	r.ln.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.conns {
		c.Close()
	}
}
