package mcp

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// watchingFake is a fake source that can watch: the test calls change to
// say current changed.
type watchingFake struct {
	*fakeSource
	mu      sync.Mutex
	changed func()
	watches int           // calls of Watch
	stops   int           // calls of the stops it returned
	flipped chan struct{} // closed (and dropped) when a watch starts or stops
}

func (w *watchingFake) Watch(changed func()) (stop func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changed = changed
	w.watches++
	w.flipLocked()
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.changed = nil
		w.stops++
		w.flipLocked()
	}
}

func (w *watchingFake) flipLocked() {
	if w.flipped != nil {
		close(w.flipped)
		w.flipped = nil
	}
}

func (w *watchingFake) change() {
	w.mu.Lock()
	f := w.changed
	w.mu.Unlock()
	if f != nil {
		f()
	}
}

func (w *watchingFake) watching() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed != nil
}

// await waits until the source is watched (want true) or not.
func (w *watchingFake) await(t *testing.T, want bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		w.mu.Lock()
		if (w.changed != nil) == want {
			w.mu.Unlock()
			return
		}
		if w.flipped == nil {
			w.flipped = make(chan struct{})
		}
		flipped := w.flipped
		w.mu.Unlock()
		select {
		case <-flipped:
		case <-deadline:
			t.Fatalf("the source is not watched = %v after 10 s", want)
		}
	}
}

// counts returns how many watches were started and stopped.
func (w *watchingFake) counts() (watches, stops int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.watches, w.stops
}

// fakeSession is a session for the notifier alone; it ends when the test
// does.
type fakeSession struct{ done chan struct{} }

func newFakeSession(t *testing.T) *fakeSession {
	s := &fakeSession{done: make(chan struct{})}
	t.Cleanup(func() { close(s.done) })
	return s
}

func (s *fakeSession) Wait() error {
	<-s.done
	return nil
}

// connectWatching serves src in memory and returns a client session whose
// resource-updated notifications arrive on the channel, and the server's
// log.
func connectWatching(t *testing.T, src Source, version string) (*sdk.ClientSession, <-chan string, *recorder) {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	rec := newRecorder()
	ss, err := NewServer(src, Options{Locate: true, Logger: slog.New(rec)}).mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	updates := make(chan string, 100)
	client := sdk.NewClient(&sdk.Implementation{Name: "test-host", Version: "0"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			updates <- req.Params.URI
		},
	})
	cs, err := client.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, updates, rec
}

// subscribedLogged waits until the SDK has recorded a subscription, which
// it logs: it records it after our SubscribeHandler returns (the watch
// starts there), and under the newest MCP it does so after Subscribe has
// returned, so a change made as soon as the source is watched can come
// before it and be notified to no one. (A host that reads after
// subscribing sees such a change in what it reads.)
func subscribedLogged(t *testing.T, rec *recorder) {
	t.Helper()
	if rec.logged("resource subscribed", 10*time.Second) == nil {
		t.Fatal("the SDK did not record the subscription in 10 s")
	}
}

func TestSubscribeToCurrentNotifiesOnChange(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := &watchingFake{fakeSource: newFake()}
			cs, updates, rec := connectWatching(t, src, version)
			if caps := cs.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
				t.Fatalf("resources capability %+v: want subscribe", caps.Resources)
			}
			ctx := context.Background()
			if src.watching() {
				t.Fatal("the source is watched before anyone subscribed")
			}
			if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: CurrentURI}); err != nil {
				t.Fatal(err)
			}
			// Under the newest MCP a subscription is a listening request
			// the server acknowledges asynchronously.
			src.await(t, true)
			subscribedLogged(t, rec)
			src.change()
			select {
			case uri := <-updates:
				if uri != CurrentURI {
					t.Fatalf("notification for %q, want %q", uri, CurrentURI)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no notification after a change")
			}
			if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: CurrentURI}); err != nil {
				t.Fatal(err)
			}
			// Likewise an unsubscribe cancels the listening request.
			src.await(t, false)
			src.mu.Lock()
			defer src.mu.Unlock()
			if src.changed != nil || src.stops != 1 {
				t.Fatalf("unsubscribing the last subscription: watching %v, stops %d; want the watch stopped once", src.changed != nil, src.stops)
			}
		})
	}
}

// Only current can be subscribed to. Another resource of the provider
// answers not-subscribable, whose message is not "resource not found"
// (the resource is there to be read); a URI that names nothing, or a
// malformed locate id, answers resource not found as a read does. Each
// error's data has the uri and the reason; unsubscribing answers alike.
// (Under the newest MCP a subscription is a listening request whose
// error go-sdk's client does not return, so this runs under the legacy
// handshake.)
func TestSubscribeToAnythingElse(t *testing.T) {
	src := &watchingFake{fakeSource: newFake()}
	cs, _, _ := connectWatching(t, src, "2025-11-25")
	for _, tt := range []struct{ uri, reason, msg string }{
		{DescriptorURI, "not-subscribable", "uicontext://descriptor cannot be subscribed to: " +
			"the descriptor never changes while the provider runs; only uicontext://current and uicontext://current?scope=screen send change notifications"},
		{"uicontext://locate/n1.5_AAAAAAAA", "not-subscribable", "uicontext://locate/n1.5_AAAAAAAA cannot be subscribed to: " +
			"a location is read when it is needed; only uicontext://current and uicontext://current?scope=screen send change notifications"},
		{"uicontext://nope", "no-such-resource", `resource not found: no resource matches "uicontext://nope"`},
		{"uicontext://locate/a@b", "malformed", `resource not found: malformed element id "a@b"`},
	} {
		for _, op := range []string{"subscribe", "unsubscribe"} {
			var err error
			if op == "subscribe" {
				err = cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: tt.uri})
			} else {
				err = cs.Unsubscribe(context.Background(), &sdk.UnsubscribeParams{URI: tt.uri})
			}
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) {
				t.Errorf("%s %s: got %v (%T), want a JSON-RPC error", op, tt.uri, err, err)
				continue
			}
			if werr.Code != jsonrpc.CodeInvalidParams || !strings.HasPrefix(werr.Message, tt.msg) {
				t.Errorf("%s %s: error %d %q, want %d starting %q", op, tt.uri, werr.Code, werr.Message, jsonrpc.CodeInvalidParams, tt.msg)
			}
			wantData(t, op+" "+tt.uri, werr, tt.uri, tt.reason, "")
		}
		if src.watching() {
			t.Errorf("subscribe to %s started the watch", tt.uri)
		}
	}
	// The same session can subscribe to current.
	if err := cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: CurrentURI}); err != nil {
		t.Errorf("subscribe to %s: %v", CurrentURI, err)
	}
}

func TestNoSubscribeWithoutAWatcher(t *testing.T) {
	cs := connect(t, newFake(), Options{Locate: true}, "2025-11-25")
	if caps := cs.InitializeResult().Capabilities; caps.Resources != nil && caps.Resources.Subscribe {
		t.Fatal("a source that cannot watch offers subscriptions")
	}
}

// The notifier sends the first change of a quiet spell at once and then
// at most one notification per interval, the last change of a burst
// carried by a trailing one. The clock is the test's, both the time of
// day and the timer: a busy machine cannot make the burst come late.
func TestNotifierCoalesces(t *testing.T) {
	src := &watchingFake{fakeSource: newFake()}
	sent := make(chan struct{}, 100)
	n := newNotifier(src, func() { sent <- struct{}{} })
	tick := make(chan time.Time)
	waited := make(chan time.Duration, 100)
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}
	advance := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(d)
	}
	n.after = func(d time.Duration) <-chan time.Time {
		waited <- d
		return tick
	}
	ss := newFakeSession(t)
	n.subscribe(ss, CurrentURI)
	defer n.unsubscribe(ss, CurrentURI)

	received := func(what string) {
		t.Helper()
		select {
		case <-sent:
		case <-time.After(10 * time.Second):
			t.Fatalf("no notification: %s", what)
		}
	}
	src.change()
	received("the first change goes out at once")
	advance(coalesce / 4)
	for range 50 {
		src.change() // a burst within the interval: held back
	}
	// The notifier holds the burst back: it waits for the rest of the
	// interval, and has sent nothing.
	select {
	case d := <-waited:
		if want := coalesce - coalesce/4; d != want {
			t.Errorf("the notifier waits %v, want %v: the rest of the interval after the first notification", d, want)
		}
	case <-sent:
		t.Fatal("a notification within the interval after the last one")
	case <-time.After(10 * time.Second):
		t.Fatal("the notifier neither sent nor waited after a burst")
	}
	// Every signal of the burst has reached the notifier before the
	// interval ends (a signal is one slot of a channel).
	for deadline := time.Now().Add(10 * time.Second); len(n.kick) > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the notifier does not take its signals")
		}
	}
	select {
	case <-sent:
		t.Fatal("a notification within the interval after the last one")
	default:
	}
	advance(coalesce)
	tick <- clock // the interval ends
	received("one trailing notification for the whole burst")
	select {
	case <-sent:
		t.Fatal("more than one notification for one burst")
	case d := <-waited:
		t.Fatalf("the notifier waits again (%v) with nothing to send", d)
	case <-time.After(50 * time.Millisecond):
	}

	// A change after a quiet interval goes out at once again.
	advance(2 * coalesce)
	src.change()
	received("a change after a quiet spell goes out at once")
}

func TestNotifierIsQuietWithoutChanges(t *testing.T) {
	// In a synctest bubble: the quiet spell is the bubble's clock, exact
	// on a loaded machine, and synctest.Wait lets every goroutine of the
	// notifier run before a check.
	synctest.Test(t, func(t *testing.T) {
		src := &watchingFake{fakeSource: newFake()}
		sent := make(chan struct{}, 8)
		n := newNotifier(src, func() { sent <- struct{}{} })
		ss := newFakeSession(t)
		n.subscribe(ss, CurrentURI)
		defer n.unsubscribe(ss, CurrentURI)
		time.Sleep(3 * coalesce)
		synctest.Wait()
		if len(sent) != 0 {
			t.Fatalf("%d notifications in %v with no change", len(sent), 3*coalesce)
		}
		// The same notifier, given a change, tells it once: the quiet
		// was for want of a change, not a notifier that never sends.
		src.change()
		synctest.Wait()
		time.Sleep(3 * coalesce)
		synctest.Wait()
		if len(sent) != 1 {
			t.Fatalf("%d notifications for one change, want 1", len(sent))
		}
	})
}

// recorder keeps the messages of the records it is given; a test waits
// for a message with logged.
type recorder struct {
	mu   sync.Mutex
	msgs map[slog.Level][]string
	kick chan struct{} // a record came; holds one
}

func newRecorder() *recorder {
	return &recorder{msgs: map[slog.Level][]string{}, kick: make(chan struct{}, 1)}
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.msgs[rec.Level] = append(r.msgs[rec.Level], rec.Message)
	r.mu.Unlock()
	select {
	case r.kick <- struct{}{}:
	default:
	}
	return nil
}

// logged waits until msg has been logged at some level and returns the
// levels it was logged at; none when it was not within the limit.
func (r *recorder) logged(msg string, limit time.Duration) []slog.Level {
	deadline := time.After(limit)
	for {
		r.mu.Lock()
		var levels []slog.Level
		for l, msgs := range r.msgs {
			if slices.Contains(msgs, msg) {
				levels = append(levels, l)
			}
		}
		r.mu.Unlock()
		if len(levels) > 0 {
			return levels
		}
		select {
		case <-r.kick:
		case <-deadline:
			return nil
		}
	}
}
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *recorder) WithGroup(string) slog.Handler      { return r }

// The SDK logs each notification it sends at Info; at ten a second that
// would flood a host's log of the provider's stderr. It reaches the
// provider's logger at Debug.
func TestNotificationsAreNotLoggedAtInfo(t *testing.T) {
	rec := newRecorder()
	src := &watchingFake{fakeSource: newFake()}
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := NewServer(src, Options{Logger: slog.New(rec)}).mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	updates := make(chan string, 10)
	client := sdk.NewClient(&sdk.Implementation{Name: "test-host", Version: "0"}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) { updates <- req.Params.URI },
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: CurrentURI}); err != nil {
		t.Fatal(err)
	}
	src.await(t, true)
	subscribedLogged(t, rec)
	src.change()
	select {
	case <-updates:
	case <-time.After(5 * time.Second):
		t.Fatal("no notification after a change")
	}
	// The client can have the notification before the server has logged
	// it: wait for the record itself.
	const sent = "resource updated notification sent"
	levels := rec.logged(sent, 10*time.Second)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !slices.Equal(levels, []slog.Level{slog.LevelDebug}) {
		t.Errorf("%q logged at %v, want at Debug only; Debug has %q", sent, levels, rec.msgs[slog.LevelDebug])
	}
	if info := rec.msgs[slog.LevelInfo]; len(info) > 0 {
		t.Errorf("logged at Info: %q", info)
	}
}
