package mcp

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Several clients on one Server (as over HTTP): each subscribed session
// is notified, no other is, and the source is watched once, from the
// first subscription until the last subscribed session unsubscribes or
// ends.

// peer is one client of a shared server.
type peer struct {
	name    string
	cs      *sdk.ClientSession
	updates chan string // the notifications the client received
	sent    *sentLog    // what the server wrote to this client
}

// sentLog counts the resource-updated notifications the server wrote to
// one session. The server writes them one session after another within
// one notification, so once a later notification has reached anyone, an
// earlier one has been written to everyone it went to.
type sentLog struct {
	mu      sync.Mutex
	updated int
}

func (l *sentLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.updated
}

// loggedTransport is a server transport whose writes go to a sentLog.
type loggedTransport struct {
	sdk.Transport
	log *sentLog
}

func (t loggedTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	return loggedConn{c, t.log}, err
}

type loggedConn struct {
	sdk.Connection
	log *sentLog
}

func (c loggedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "notifications/resources/updated" {
		c.log.mu.Lock()
		c.log.updated++
		c.log.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

// join connects a client to srv, in memory, under the MCP version HTTP
// clients speak (a stateful Streamable HTTP session).
func join(t *testing.T, srv *Server, name string) *peer {
	t.Helper()
	ctx := context.Background()
	p := &peer{name: name, updates: make(chan string, 100), sent: &sentLog{}}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.mcp.Connect(ctx, loggedTransport{st, p.sent}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: "0"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			p.updates <- req.Params.URI
		},
	})
	p.cs, err = client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cs.Close() })
	return p
}

func (p *peer) subscribe(t *testing.T) {
	t.Helper()
	if err := p.cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: CurrentURI}); err != nil {
		t.Fatalf("%s: subscribe: %v", p.name, err)
	}
}

func (p *peer) unsubscribe(t *testing.T) {
	t.Helper()
	if err := p.cs.Unsubscribe(context.Background(), &sdk.UnsubscribeParams{URI: CurrentURI}); err != nil {
		t.Fatalf("%s: unsubscribe: %v", p.name, err)
	}
}

// notified says current changed and waits until each of the peers has
// been told.
func notified(t *testing.T, src *watchingFake, peers ...*peer) {
	t.Helper()
	src.change()
	for _, p := range peers {
		select {
		case uri := <-p.updates:
			if uri != CurrentURI {
				t.Fatalf("%s: notification for %q", p.name, uri)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no notification within 10 s of a change", p.name)
		}
	}
}

// wantSent checks how many notifications the server wrote to each peer.
func wantSent(t *testing.T, want map[*peer]int) {
	t.Helper()
	for p, n := range want {
		if got := p.sent.count(); got != n {
			t.Errorf("%s was sent %d notifications, want %d", p.name, got, n)
		}
	}
}

func TestSubscriptionsArePerSession(t *testing.T) {
	src := &watchingFake{fakeSource: newFake()}
	srv := NewServer(src, Options{Locate: true, Logger: slog.New(slog.DiscardHandler)})
	a, b, c := join(t, srv, "a"), join(t, srv, "b"), join(t, srv, "c")

	a.subscribe(t)
	b.subscribe(t)
	src.await(t, true)
	// Two notifications: the second one reaching a and b means the first
	// was written to every session it went to.
	notified(t, src, a, b)
	notified(t, src, a, b)
	wantSent(t, map[*peer]int{c: 0})
	if w, _ := src.counts(); w != 1 {
		t.Errorf("two subscribed sessions: %d watches of the source, want 1", w)
	}

	// b leaves: a is still told, b no longer.
	b.unsubscribe(t)
	notified(t, src, a)
	notified(t, src, a)
	wantSent(t, map[*peer]int{b: 2, c: 0})

	// c, never subscribed, unsubscribes: that changes nothing.
	c.unsubscribe(t)
	if !src.watching() {
		t.Fatal("an unsubscribe of a session that was not subscribed stopped the watch")
	}
	notified(t, src, a)

	// a subscribes again: still one watch, and one notification a change.
	a.subscribe(t)
	notified(t, src, a)
	notified(t, src, a)
	if n := a.sent.count(); n != 7 {
		t.Errorf("a was sent %d notifications for 7 changes", n)
	}
	if w, s := src.counts(); w != 1 || s != 0 {
		t.Errorf("%d watches and %d stops, want one watch, never stopped", w, s)
	}

	// a goes away without unsubscribing: nobody is subscribed any more.
	a.cs.Close()
	src.await(t, false)
	if w, s := src.counts(); w != 1 || s != 1 {
		t.Errorf("after the last subscribed session ended: %d watches and %d stops, want 1 and 1", w, s)
	}

	// A new subscription watches again.
	b.subscribe(t)
	src.await(t, true)
	notified(t, src, b)
}
