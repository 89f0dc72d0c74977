package cdp

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/warm"
	"github.com/cdpprovider/cdpprovider/cdp/wire"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// The provider and the entry of a read: Current takes the lock, connects
// and reads (read.go; doc.go has the map).

// Options configure a Provider.
type Options struct {
	// Connect is the browser's debugging address: "auto" or empty (find
	// a running browser by its DevToolsActivePort or its command line's
	// --remote-debugging-port: browsers.FindBrowsers), http://host:port,
	// host:port, or the ws(s):// URL of the browser endpoint.
	Connect string
	// UserDataDir is where auto looks for DevToolsActivePort, or a
	// running browser on it with a debugging port (and where an http
	// address that answers 404 finds its websocket path); empty means
	// the default directories of every Chromium-family browser and the
	// running browsers.
	UserDataDir string
	// Header is sent with the websocket handshake and /json requests,
	// for browser services that want a token. Never logged.
	Header http.Header
	// AllowRemote permits a Connect address that is not on loopback.
	AllowRemote bool
	// Session is the browser service's session to read (--session), by
	// its browser id: at a service's bare address, the session of that
	// id in its list rather than the one whose browser has pages.
	Session string
	// HoldSession keeps a service's session connected after its other
	// clients (the agent) left, so that the service does not end it
	// (service.go). Off, the provider lets go and the service ends it.
	HoldSession bool
	// Launched says the browser at Connect is the one cdpprovider
	// started (--launch): the messages of a failed read say so.
	Launched bool
	// BundleID overrides the bundle identifier derived from the product.
	BundleID string
	// Budget bounds every answer (5.6); zero fields take the defaults.
	Budget mapping.Budget
	// Logger receives diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// RestAfter is how long after a host's last read, with no host
	// subscribed, the provider rests: it stops its background work in
	// the browser until the next read (rest.go). 0 means
	// DefaultRestAfter; a negative value, never.
	RestAfter time.Duration
	// WalkFrom is the fewest accessibility nodes a document must have
	// for the provider to keep its tree current node by node (a walk,
	// then events); a smaller one is read whole when it changed. 0 means
	// DefaultWalkFrom; a negative value walks every document (tests of
	// the walk use it on small pages).
	WalkFrom int
	// ScreenFirstFrom is the fewest elements a page that loads after a
	// host has read the screen must have for its first reads of the
	// screen to ask Chrome for what is on screen alone, while its whole
	// tree is walked in the background, rather than fetch the whole tree
	// at its load (warm.Activity's ScreenFirst). 0 means
	// DefaultScreenFirstFrom; a negative value, never.
	ScreenFirstFrom int
	// ScreenHostFrom is ScreenFirstFrom while the host's last read was
	// of the screen (Screen, not Current): a host that reads the screen
	// is answered before the whole tree from pages this large, and pays
	// for it when it reads a whole page right after a load (a page under
	// WaitWalkFrom fetches its tree then, not at its load). 0 means
	// DefaultScreenHostFrom; a negative value, or one above
	// ScreenFirstFrom, ScreenFirstFrom. Never when ScreenFirstFrom is
	// negative.
	ScreenHostFrom int
	// WaitWalkFrom is the fewest elements a page read screen first
	// must have for a read of the whole page during its walk to wait
	// for the walk (up to a second), rather than fetch the whole tree at
	// once (warm.Activity's ReadWhole). 0 means DefaultWaitWalkFrom; a
	// negative value, never: a page read always fetches the whole tree.
	WaitWalkFrom int
}

// readTimeout bounds one read of the browser: a huge page's tree takes
// many seconds on a busy machine. A page that cannot answer never holds a
// read this long (the session's health, wire.Session.FirstCall).
const readTimeout = 45 * time.Second

// Provider reads a browser for the protocol. It connects lazily on the
// first read, over one websocket for its whole life, and reconnects after
// the browser goes away (finding it again, on a new port if need be); ids
// issued before a reconnect answer gone. It is safe for concurrent use:
// reads are serialised.
type Provider struct {
	opts Options
	ep   browsers.Endpoint
	ids  *mapping.IDs
	log  *slog.Logger

	// life ends when the provider closes: the dial under way and the
	// watcher's reads stop with it.
	life context.Context
	stop context.CancelFunc

	// watcher is told when what current answers may have changed; nil
	// when nobody watches. Read on the connection's read loop, so it is
	// atomic rather than under mu.
	watcher atomic.Pointer[func()]

	// reading counts the reads under way, for the walks to give way.
	reading atomic.Int32

	// pages is what its page sessions' health needs of the provider,
	// for the provider's life (it numbers their dialogs).
	pages *wire.Owner

	// answers counts how the warm trees answered each document's read.
	answers warm.Counts
	// reused counts the tabs' documents answered with the element a read
	// before had mapped (memo.go).
	reused atomic.Int64
	// leftToLoad counts the reads in the background that stopped at a
	// shown document still loading (errLeftToLoad).
	leftToLoad atomic.Int64
	// screenWalks counts the answers of the screen script in a document
	// that looked at its elements (screen.go), screenScrolls those of
	// them that took the last walk shifted by the page's scroll,
	// screenReuses the reads that took the last answer again (without
	// running the script, or as the script sent ahead said: "same");
	// screenAheads counts the answers of the script sent ahead that a
	// read took (sendScreen); screenPartials counts the
	// documents whose screen was read before their whole tree, from the
	// nodes on screen alone (partialFetch), partialReuses the reads that
	// took those nodes again.
	screenWalks, screenScrolls, screenReuses, screenPartials, partialReuses, screenAheads atomic.Int64
	// screenFresh counts the elements the screen script's answers
	// numbered (returned with their DOM ids), screenNear those its near
	// numbered after a read (sendNear).
	screenFresh, screenNear atomic.Int64
	// screenCalls counts the finds of a document's screen made as a
	// call of the function screen.js kept in its world, not the script
	// itself (screenExpr).
	screenCalls atomic.Int64
	// screenAsked says a host has read the screen: the reads in the
	// background then find what is on screen too (readBehind), so that
	// the host's next read of the screen after a load takes their walk.
	screenAsked atomic.Bool
	// screenLast says the host's last read was of the screen
	// (Options.ScreenHostFrom).
	screenLast atomic.Bool
	// watchID names the provider in the page watchers, which the
	// providers attached to one browser share (state.js), and in the
	// tokens of the chains it keeps there (readChain): random, so that
	// two providers, in two processes, tell themselves apart.
	watchID int64
	// screenMemo is what the last screen read made of each window's
	// Document (mapping.Screen); guarded by mu.
	screenMemo mapping.ScreenMemo
	// aheadUsed counts the frame trees a read used that were sent behind
	// the tab's state script (sendAhead).
	aheadUsed atomic.Int64
	// askedEarly counts the tabs a read asked for their state beside the
	// list of targets, and found listed (readTabs).
	askedEarly atomic.Int64
	// scansKept counts the documents a read did not scan again, their
	// nodes the same as at the read before (scanOf).
	scansKept atomic.Int64
	// textsKept counts the documents whose value texts a read took from
	// the read before, their nodes the same (valueTextsOf).
	textsKept atomic.Int64

	// ahead starts a read in the background when a tab is opened, shown
	// or hidden, or a page loaded in a tab a read asked for (watch.go).
	ahead aheadReads

	// rest is when a host last read, and whether the provider rests
	// (rest.go).
	rest restState
	// watchRetry, when not 0, is watchRetry's stand-in in tests
	// (watch.go).
	watchRetry time.Duration
	// dials counts the websocket dials started (connect): a browser
	// that asks its person asks at each.
	dials atomic.Int64

	mu      readLock // serialises reads; guards the fields below
	dialing *dialing // the connection being opened, if any (connect)
	conn    *wire.Conn
	state   *connState // what this connection has learned; nil when not connected
	keys    counter    // numbers of windows, tabs and documents; never reset
	// hadConn says a connection worked in this run: a browser that does
	// not answer after it is restarting (browser-restarting), not
	// unreachable.
	hadConn bool
	// lastProduct names the browser of the last connection, for the
	// messages of a read after it ended.
	lastProduct string
	// session is the browser service's session this run reads, once a
	// connection reached one (service.go): its id is guarded by mu, its
	// end is atomic.
	session serviceSession
	// sessionPollEvery, when not 0, is sessionPoll's stand-in in tests.
	sessionPollEvery time.Duration
}

// connState is what the provider knows while one connection lasts. A new
// connection starts it anew, so nothing of a previous browser survives.
//
// What it keeps of each thing is in one place, made and forgotten in one
// place each, so that nothing outlives what it is of: of a window, its
// windowInfo (windows: made in groupWindows, forgotten there when the
// window is gone, or by a locate that finds it gone); of a target, its
// session and, for a tab, its tabInfo (sessions and tabs: made in attach
// and groupWindows, both forgotten in forgetDead when the target is
// gone); of a document, its docInfo (docs: made by numberDoc, forgotten
// by forgetDoc alone). The rest is what the last read left for the next,
// replaced whole by each read: readLast, budgets and scans. sizes counts
// it all.
//
// Every field is guarded by Provider.mu, which a read, a locate and a
// picture hold from begin to their end; the goroutines of a read's fetch
// phase read sessions and scans while the read holds it, and nothing
// writes them meanwhile (attach runs before the fetch, or in the
// assembly's own goroutine, fetchLate).
type connState struct {
	target   browsers.Resolved      // how this connection was reached
	sessions map[target.ID]*session // attached flat sessions by target, each with its warm trees (ax)
	product  string                 // "Chromium", "Google Chrome", …
	version  string                 // "156.0.8078.108"
	windows  map[int64]*windowInfo  // by the browser's window id
	tabs     map[target.ID]*tabInfo // by the page target
	docs     map[uint64]*docInfo    // by the document's number (docKey)
	readLast []target.ID            // the tabs whose documents the last read read (readTabs asks them first)
	budgets  mapping.BudgetCache    // the measures of the last warm read's Documents (applyBudget)
	scans    map[uint64]nodeScan    // the node scans of the last warm read's documents, by version (scanOf)
	ids      *mapping.IDs           // the provider's, told of each document forgotten (forgetDoc)
}

// tabInfo is what the provider keeps of a tab while it is open
// (connState has the lock rule).
type tabInfo struct {
	key uint64 // its number; never reused
	// unread is the marks logged of it while reads cannot read it
	// (noteUnread), "" once one does.
	unread string
}

// windowInfo is what the provider keeps of a browser window while it is
// open (connState has the lock rule).
type windowInfo struct {
	key    uint64    // its number; never reused
	active target.ID // its active tab when last read (pickActive)
}

// stateSizes counts what a connState keeps (sizes), for the tests that
// check it is no more than what is open.
type stateSizes struct {
	Windows, Tabs, Sessions, Docs int
	// Mapped, Shown and Held count the documents with an element kept
	// for the next read (reuseMapped), shown in the last answer
	// (rememberShown), and answered as last shown (readDown).
	Mapped, Shown, Held int
	Scans               int // the last read's node scans (scanOf)
	ReadLast            int // the tabs the last read read
	// Worlds and Chains count the sessions' isolated worlds and element
	// chains, by frame; Warm the frames their warm trees hold anything
	// of, Signals the documents whose watchers' signals they keep
	// (warm.Trees.Held).
	Worlds, Chains, Warm, Signals int
	// IDs counts the documents whose issued elements the ids record
	// (mapping.IDs.Remembered).
	IDs int
}

// sizes counts what the provider keeps of the browser on this
// connection: zero when not connected.
func (p *Provider) sizes() stateSizes {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.state
	if st == nil {
		return stateSizes{}
	}
	k := stateSizes{Windows: len(st.windows), Tabs: len(st.tabs), Sessions: len(st.sessions), Docs: len(st.docs), Scans: len(st.scans), ReadLast: len(st.readLast), IDs: p.ids.Remembered()}
	for _, d := range st.docs {
		if d.mapped.el != nil {
			k.Mapped++
		}
		if d.shown != nil {
			k.Shown++
		}
		if d.held {
			k.Held++
		}
	}
	for _, s := range st.sessions {
		s.worldsMu.Lock()
		k.Worlds += len(s.worlds)
		s.worldsMu.Unlock()
		s.chainsMu.Lock()
		k.Chains += len(s.chains)
		s.chainsMu.Unlock()
		if a := s.ax.Load(); a != nil {
			h := a.Held()
			k.Warm += h.Frames
			k.Signals += h.Signals
		}
	}
	return k
}

// counter hands out numbers that are never reused in a run.
type counter struct{ n uint64 }

func (c *counter) next() uint64 { c.n++; return c.n }

// NewProvider returns a provider for the browser at opts.Connect. It
// checks the address (loopback unless AllowRemote) but does not connect.
func NewProvider(opts Options) (*Provider, error) {
	var dirs []browsers.UserDataDir
	if opts.UserDataDir != "" {
		dirs = []browsers.UserDataDir{browsers.NamedUserDataDir(opts.UserDataDir)}
	}
	ep, err := browsers.ParseEndpoint(opts.Connect, opts.AllowRemote, dirs, opts.Header)
	if err != nil {
		return nil, err
	}
	ep = ep.ForSession(opts.Session)
	opts.Budget = opts.Budget.WithDefaults()
	switch {
	case opts.RestAfter == 0:
		opts.RestAfter = DefaultRestAfter
	case opts.RestAfter < 0:
		opts.RestAfter = -1
	}
	switch {
	case opts.WalkFrom == 0:
		opts.WalkFrom = DefaultWalkFrom
	case opts.WalkFrom < 0:
		opts.WalkFrom = 0
	}
	if opts.ScreenFirstFrom == 0 {
		opts.ScreenFirstFrom = DefaultScreenFirstFrom
	}
	if opts.WaitWalkFrom == 0 {
		opts.WaitWalkFrom = DefaultWaitWalkFrom
	}
	if opts.ScreenHostFrom == 0 {
		opts.ScreenHostFrom = DefaultScreenHostFrom
	}
	if opts.ScreenHostFrom < 0 || opts.ScreenHostFrom > opts.ScreenFirstFrom {
		opts.ScreenHostFrom = opts.ScreenFirstFrom
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	life, stop := context.WithCancel(context.Background())
	p := &Provider{opts: opts, ep: ep, ids: mapping.NewIDs(), log: log, life: life, stop: stop, watchID: newWatchID()}
	p.rest.after = opts.RestAfter
	p.pages = &wire.Owner{Life: life, Log: log, Changed: p.changed}
	return p, nil
}

// newWatchID returns a provider's watchID: at most 2^52, which a
// script's number holds exactly.
func newWatchID() int64 { return 1 + rand.Int64N(1<<52-1) }

// Instance returns the instance string of this run.
func (p *Provider) Instance() string { return p.ids.Instance() }

// Current reads what the user has open now: a host's read, which wakes
// a resting provider and keeps it awake RestAfter more (rest.go).
func (p *Provider) Current(ctx context.Context) (*mapping.Current, error) {
	p.heard()
	defer p.heard()
	p.screenLast.Store(false)
	return p.current(ctx, readWarm)
}

// Screen reads what the user sees now: Current, but in each window's
// Document only the elements on screen, with their ancestors
// (mapping.Screen); a host's read, as Current is.
func (p *Provider) Screen(ctx context.Context) (*mapping.Current, error) {
	p.heard()
	defer p.heard()
	p.screenAsked.Store(true)
	p.screenLast.Store(true)
	return p.current(ctx, readScreen)
}

// current reads what the user has open for a host: begin (the lock, the
// connection: connect.go), wake (rest.go), then read (read.go); the
// walks the read asked for start once it is over. A cold read reads every
// document with getFullAXTree, bypassing the warm trees (the tests
// compare the two).
func (p *Provider) current(ctx context.Context, how readHow) (*mapping.Current, error) {
	ctx, c, done, err := p.begin(ctx)
	defer done()
	if err != nil {
		return nil, err
	}
	p.wake(ctx)
	defer p.startWalks()
	cur, _, err := p.read(ctx, c, how, false)
	return cur, err
}

// readBehind reads in the background (readAhead), for no host: it does
// not wake a resting provider, and reads nothing when the provider went
// to rest while it waited for the lock. Once a host has read the screen,
// it finds what is on screen too, for that host's next read.
func (p *Provider) readBehind(ctx context.Context) error {
	ctx, c, done, err := p.begin(ctx)
	defer done()
	if err != nil {
		return err
	}
	if p.resting() {
		return nil
	}
	defer p.startWalks()
	how := readWarm
	if p.screenAsked.Load() {
		how = readScreen // what the read keeps is the same; its walk is kept too
	}
	_, _, err = p.read(ctx, c, how, true)
	return err
}

// begin starts a read: its time limit, the lock that serialises reads,
// and the connection. done ends it, whatever the error. A read that
// waits for another gives up when its context ends, or at its time limit.
func (p *Provider) begin(ctx context.Context) (_ context.Context, _ *wire.Conn, done func(), _ error) {
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	p.reading.Add(1)
	if err := p.mu.lockContext(ctx); err != nil {
		p.reading.Add(-1)
		cancel()
		return ctx, nil, func() {}, fail(ReasonReadFailed, "Another read of the browser did not end in time.", err)
	}
	done = func() { p.mu.Unlock(); p.reading.Add(-1); cancel() }
	c, err := p.connect(ctx)
	return ctx, c, done, err
}

// readLock is a mutex whose lock can also give up when a context ends:
// a read that waits for another has the same time limit, and a host that
// cancels its request gets its answer at once. The zero value is
// unlocked.
type readLock struct {
	once sync.Once
	ch   chan struct{} // holds a value while locked
}

func (l *readLock) slot() chan struct{} {
	l.once.Do(func() { l.ch = make(chan struct{}, 1) })
	return l.ch
}

// Lock locks l, waiting as long as it takes.
func (l *readLock) Lock() { l.slot() <- struct{}{} }

// lockContext locks l, or returns ctx's error if it ends first.
func (l *readLock) lockContext(ctx context.Context) error {
	select {
	case l.slot() <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock unlocks l; it panics when l is not locked, as sync.Mutex does.
func (l *readLock) Unlock() {
	select {
	case <-l.slot():
	default:
		panic("cdp: unlock of an unlocked readLock")
	}
}

// App describes the browser for the descriptor.
func (p *Provider) App(ctx context.Context) (mapping.App, error) {
	_, _, done, err := p.begin(ctx)
	defer done()
	if err != nil {
		return mapping.App{}, err
	}
	bundle := p.opts.BundleID
	if bundle == "" {
		bundle = mapping.BundleFor(p.state.product)
	}
	return mapping.App{Title: p.state.product, Bundle: bundle, Version: p.state.version}, nil
}

// Close disconnects from the browser. It does not close the browser, and
// leaves the user's tabs as they were.
func (p *Provider) Close() error {
	p.stop()
	p.rest.mu.Lock()
	if p.rest.timer != nil {
		p.rest.timer.Stop()
	}
	p.rest.mu.Unlock()
	// A background read started before the stop ends with it (its
	// context is the provider's life), and is waited for; one asked for
	// after it never starts (readAhead). Taking the lock orders this after
	// a readAhead that saw the provider alive and counted its read.
	p.ahead.mu.Lock()
	//lint:ignore SA2001 the empty section is the ordering described above
	p.ahead.mu.Unlock()
	p.ahead.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dialing != nil {
		p.dialing.dial.Stop()
		p.dialing = nil
	}
	if p.conn != nil {
		// The page watchers it shares with other providers no longer
		// stay awake for it (state.js); sent, not waited for.
		if p.state != nil && !p.resting() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			for _, s := range p.state.sessions {
				s.tellWatchers(ctx, quietWatchers)
			}
			cancel()
		}
		p.dropConn()
	}
	return nil
}

// dropConn closes the connection and forgets what was kept of it, its
// documents too (forgetAll): a new connection numbers them anew. Called
// with p.mu held.
func (p *Provider) dropConn() {
	p.conn.Close()
	p.state.forgetAll()
	p.conn, p.state = nil, nil
}

// readUnderWay says a read or locate is under way, for the warm trees'
// walks to give way.
func (p *Provider) readUnderWay() bool { return p.reading.Load() > 0 }

// Answers tells how the documents of every read so far were answered:
// from the kept accessibility trees, or whole (warm.Counts).
func (p *Provider) Answers() warm.Tally { return p.answers.Tally() }

// Reused tells how many of the tabs' documents the reads so far answered
// with the element an earlier read had mapped, not mapping them again
// (memo.go): for tests and benchmarks that must know that path
// answered.
func (p *Provider) Reused() int64 { return p.reused.Load() }

// Walking reports whether the walk of a document is under way: until it
// ends, a read of that document right after a change reads it whole. For
// benchmarks that measure the kept trees.
func (p *Provider) Walking() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == nil {
		return false
	}
	for _, s := range p.state.sessions {
		if a := s.ax.Load(); a != nil && a.Walking() {
			return true
		}
	}
	return false
}
