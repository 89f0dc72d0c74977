package provider

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// serve starts its MCP server whatever happens to the browser: a host
// that started the provider learns why it cannot read the browser from
// the reads themselves (a *cdp.Failure), not from a connection that
// closed at start. failedSource answers when only a new setting mends
// it; relaunching when another try may (a display that comes up, a
// browser installed).

// retryLaunch is how long after a failed try to launch the browser of
// --launch a read launches it again. Reads in between answer the last
// failure at once.
const retryLaunch = 10 * time.Second

// failedSource answers every read with err, the reason serve cannot read
// the browser (a *cdp.Failure). A subscription is accepted and never
// told of a change.
type failedSource struct{ err error }

// Current answers the failure.
func (f failedSource) Current(context.Context) (*mapping.Current, error) { return nil, f.err }
func (f failedSource) Screen(context.Context) (*mapping.Current, error)  { return nil, f.err }

// Locate answers the failure.
func (f failedSource) Locate(context.Context, string) (*mapping.Location, error) { return nil, f.err }

// App answers the failure.
func (f failedSource) App(context.Context) (mapping.App, error) { return mapping.App{}, f.err }

// Screenshot answers the failure.
func (f failedSource) Screenshot(context.Context, string) ([]byte, error) { return nil, f.err }

// At answers the failure.
func (f failedSource) At(context.Context, float64, float64) (*mapping.Hit, error) { return nil, f.err }

// Watch never calls changed.
func (f failedSource) Watch(changed func()) (stop func()) { return func() {} }

// Close does nothing.
func (f failedSource) Close() error { return nil }

// relaunching is serve's source while the browser of --launch has not
// started. A read answers the last try's failure; a read retryLaunch or
// more after the last try ended tries again (one try at a time: a read
// that comes while one runs waits for that one, not for another). Once a
// try starts the browser, every read goes to the source it opened. While
// a host is subscribed it also tries every retryLaunch by itself, and
// tells the subscription when the browser has started.
type relaunching struct {
	// try launches the browser and opens the source on it; its error is
	// a *cdp.Failure.
	try   func(context.Context) (source, error)
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
	log   *slog.Logger
	// life bounds the tries; end cancels it, at Close.
	life context.Context
	end  context.CancelFunc

	mu      sync.Mutex
	src     source        // what a try opened; nil until then
	err     error         // the last try's failure
	last    time.Time     // when the last try ended
	trying  chan struct{} // closed when the try under way ends; nil when none
	changed func()        // the watcher's, while watched and not started
	unwatch func()        // stops src's watch made for changed
	quit    chan struct{} // ends the retries while watched; nil when none
	closed  bool
}

// newRelaunching is the source of serve --launch after its first try
// failed with err at now(): try is called again, in the background of
// the read that asks, never after ctx ends.
func newRelaunching(ctx context.Context, err error, try func(context.Context) (source, error), now func() time.Time, after func(time.Duration) <-chan time.Time, log *slog.Logger) *relaunching {
	life, end := context.WithCancel(ctx)
	return &relaunching{try: try, now: now, after: after, log: log, life: life, end: end, err: err, last: now()}
}

// get returns the started source, or the last failure. When it is time,
// it tries again first; when a try is under way it waits for it (or for
// ctx, then answers the last failure).
func (r *relaunching) get(ctx context.Context) (source, error) {
	r.mu.Lock()
	wait := r.trying
	if wait == nil && r.src == nil && !r.closed && r.now().Sub(r.last) >= retryLaunch {
		wait = r.startTry()
	}
	r.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.src != nil {
		return r.src, nil
	}
	return nil, r.err
}

// startTry launches in the background; the channel it returns is closed
// when the try has ended. r.mu is held.
func (r *relaunching) startTry() chan struct{} {
	done := make(chan struct{})
	r.trying = done
	r.log.Debug("trying to launch the browser again")
	go func() {
		src, err := r.try(r.life)
		r.mu.Lock()
		r.trying, r.last = nil, r.now()
		closed := r.closed
		var notify func()
		switch {
		case err != nil:
			r.err = err
			r.log.Debug("the browser did not start", "err", err)
		case !closed:
			r.src, r.err = src, nil
			r.log.Info("the browser started; reads answer from it")
			if r.changed != nil {
				r.unwatch, notify = src.Watch(r.changed), r.changed
			}
		}
		r.mu.Unlock()
		if err == nil && closed {
			src.Close()
		}
		close(done)
		if notify != nil {
			notify() // current answers differently now
		}
	}()
	return done
}

// Current reads the started source, or answers why there is none.
func (r *relaunching) Current(ctx context.Context) (*mapping.Current, error) {
	src, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return src.Current(ctx)
}

// Screen reads the started source's screen, or answers why there is
// none.
func (r *relaunching) Screen(ctx context.Context) (*mapping.Current, error) {
	src, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return src.Screen(ctx)
}

// Locate locates through the started source, or answers why there is
// none.
func (r *relaunching) Locate(ctx context.Context, id string) (*mapping.Location, error) {
	src, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return src.Locate(ctx, id)
}

// App describes the started browser, or answers why there is none.
func (r *relaunching) App(ctx context.Context) (mapping.App, error) {
	src, err := r.get(ctx)
	if err != nil {
		return mapping.App{}, err
	}
	return src.App(ctx)
}

// Screenshot asks the started source, or answers why there is none.
func (r *relaunching) Screenshot(ctx context.Context, doc string) ([]byte, error) {
	src, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return src.Screenshot(ctx, doc)
}

// At asks the started source, or answers why there is none.
func (r *relaunching) At(ctx context.Context, x, y float64) (*mapping.Hit, error) {
	src, err := r.get(ctx)
	if err != nil {
		return nil, err
	}
	return src.At(ctx, x, y)
}

// Watch watches the started source. Before it has started, it keeps
// changed, tries to launch every retryLaunch while watched, and calls
// changed once a try has started the browser (then hands it to the
// source's own watch).
func (r *relaunching) Watch(changed func()) (stop func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.src != nil {
		return r.src.Watch(changed)
	}
	if r.quit != nil { // one watch at a time: the newest wins
		close(r.quit)
	}
	quit := make(chan struct{})
	r.changed, r.quit = changed, quit
	go r.retryWhileWatched(quit)
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.quit != quit {
			return
		}
		close(quit)
		r.quit, r.changed = nil, nil
		if r.unwatch != nil {
			r.unwatch()
			r.unwatch = nil
		}
	}
}

// retryWhileWatched tries to launch whenever retryLaunch has passed since
// the last try, until quit is closed or the browser has started.
func (r *relaunching) retryWhileWatched(quit chan struct{}) {
	for {
		r.mu.Lock()
		started, wait := r.src != nil, retryLaunch-r.now().Sub(r.last)
		r.mu.Unlock()
		if started {
			return
		}
		select {
		case <-quit:
			return
		case <-r.life.Done():
			return
		case <-r.after(max(wait, 0)):
		}
		r.get(r.life)
	}
}

// Close ends a try under way (closing what it started) and the source
// a try opened.
func (r *relaunching) Close() error {
	r.mu.Lock()
	r.closed = true
	r.end()
	if r.quit != nil {
		close(r.quit)
		r.quit = nil
	}
	wait, src := r.trying, r.src
	r.mu.Unlock()
	if wait != nil {
		<-wait
	}
	if src != nil {
		return src.Close()
	}
	return nil
}
