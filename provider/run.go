package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/cdp/browsers"
	"github.com/cdpprovider/cdpprovider/cdp/demo"
	"github.com/cdpprovider/cdpprovider/mcp"
)

// source is what Run reads the browser through: the mcp package's Source
// and Watcher, a screenshot of a tab for --png, and a Close.
// *cdp.Provider is the real one.
type source interface {
	mcp.Source
	mcp.Watcher
	// Screenshot is a PNG of what the tab of a top Document shows
	// (cdp.Provider.Screenshot).
	Screenshot(ctx context.Context, doc string) ([]byte, error)
	mcp.Pointer
	Close() error
}

// openSource makes the source for a config; tests replace it with a fake.
type openSource func(cdp.Options) (source, error)

// The contracts where cdp and mcp meet: a renamed method of Provider
// must fail the build, not silently stop the notifications.
var (
	_ mcp.Source  = (*cdp.Provider)(nil)
	_ mcp.Watcher = (*cdp.Provider)(nil)
	_ source      = (*cdp.Provider)(nil)
)

// openCDP opens the real source.
func openCDP(opts cdp.Options) (source, error) { return cdp.NewProvider(opts) }

// browser is a launched browser as Run needs it (*browsers.Launched).
type browser interface {
	// DebugURL is the address to read it at.
	DebugURL() string
	// Done is closed when it has exited.
	Done() <-chan struct{}
}

// world is what run reaches outside itself through; tests replace parts.
type world struct {
	// open opens the source on a browser's address.
	open openSource
	// launch starts the browser of --launch; stop ends it.
	launch func(ctx context.Context, cfg Config, log *slog.Logger) (b browser, stop func(), err error)
	// now and after are the clock of serve's tries to launch again.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// Run runs the command of cfg: it validates cfg, logs to stderr (or
// cfg.LogFile), launches a browser when cfg.Launch (closed again before
// Run returns), and then serves MCP on stdin/stdout until the client
// disconnects or ctx ends (Serve), or with cfg.HTTP over HTTP until ctx
// ends, prints one read of current to stdout (Current), the elements of
// one read that match a text and/or a role (Find; ErrNoMatch when none
// does), prints current again on every change until ctx ends (Watch), or
// prints the version
// (PrintVersion). With cfg.Server, Current, Find and At ask the provider
// serving there, by its tools, instead of a browser. stdout carries nothing but the protocol, the answers,
// or (serving HTTP) the endpoint's URL.
//
// Serve serves whatever happens to the browser: when the browser of
// --launch does not start, or the browser's address or headers cannot be
// used, its reads answer why (a *cdp.Failure), and a failed launch is
// tried again on a read retryLaunch or more after the last try.
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout, stderr io.Writer) error {
	// A provider sits beside the user's browser for hours: keep its heap
	// near what is live rather than letting garbage double it (a 50,000
	// node page's tree arrives as tens of MB of JSON). GOMEMLIMIT wins.
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
	return run(ctx, cfg, stdin, stdout, stderr, openCDP)
}

// memoryLimit is the provider's soft memory limit (runtime/debug).
const memoryLimit = 96 << 20

// run is Run with the source's constructor as a parameter.
func run(ctx context.Context, cfg Config, stdin io.Reader, stdout, stderr io.Writer, open openSource) error {
	return runIn(ctx, cfg, stdin, stdout, stderr, world{open: open, launch: launchBrowser, now: time.Now, after: time.After})
}

// runIn is Run in the world w.
func runIn(ctx context.Context, cfg Config, stdin io.Reader, stdout, stderr io.Writer, w world) (err error) {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.Command == PrintVersion {
		_, err := fmt.Fprintf(stdout, "%s %s\n", Name, Version)
		return err
	}
	if cfg.Command == Doctor {
		return doctor(ctx, cfg, stdout)
	}
	var scr *screen
	logTo := stderr
	if cfg.Command == Watch {
		// On a terminal the log waits while the screen is redrawn in
		// place, and follows it when watch ends.
		scr = newScreen(stdout, stderr, cfg)
		logTo = scr.logWriter()
	}
	log, closeLog, err := newLogger(cfg, logTo)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, closeLog()) }()

	if cfg.Server != "" { // another provider reads the browser
		return remote(ctx, cfg, stdout, log)
	}

	// serve --http listens first: a taken port or an unreadable token
	// file fails before a browser is launched.
	var ep *endpoint
	if cfg.Command == Serve && cfg.HTTP != "" {
		if ep, err = listen(cfg); err != nil {
			return err
		}
		defer ep.ln.Close()
	}

	// The provider has nothing to report without its launched browser:
	// it ends when the browser does (a crash, or its last window closed).
	var cancel context.CancelCauseFunc
	ctx, cancel = context.WithCancelCause(ctx)
	defer cancel(nil)
	src, err := openBrowser(ctx, cancel, cfg, w, log)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, src.Close()) }()

	switch cfg.Command {
	case Serve:
		ignoreSIGPIPE()
		if ep != nil {
			err = serveHTTP(ctx, cfg, ep, src, stdout, stderr, log)
		} else {
			err = serve(ctx, cfg, src, stdin, stdout, log)
		}
	case Current:
		err = current(ctx, cfg, src, stdout, log)
	case Find:
		err = find(ctx, cfg, src, stdout, log)
	case At:
		err = at(ctx, cfg, src, stdout, log)
	case Watch:
		ignoreSIGPIPE()
		err = watch(ctx, cfg, src, scr, log)
	}
	if errors.Is(context.Cause(ctx), errBrowserExited) {
		return errors.Join(err, errBrowserExited)
	}
	return err
}

// openBrowser opens the source of cfg: on the browser it launches
// (--launch; closing the source stops it, and its exit cancels ctx with
// errBrowserExited), or at cfg.Connect. For current and watch a failure
// is returned; for serve it is logged once and becomes the answer of
// every read: a failedSource for an address or header that cannot be
// used, relaunching for a browser that did not start.
func openBrowser(ctx context.Context, cancel context.CancelCauseFunc, cfg Config, w world, log *slog.Logger) (source, error) {
	opts := func(connect string) cdp.Options {
		header, _ := browsers.ParseHeader(cfg.Headers) // checked before
		return cdp.Options{
			Connect:     connect,
			UserDataDir: cfg.UserDataDir,
			Header:      header,
			AllowRemote: cfg.AllowRemote,
			Session:     cfg.Session,
			HoldSession: cfg.HoldSession,
			Launched:    cfg.Launch,
			BundleID:    cfg.BundleID,
			Budget:      cfg.Budget(),
			RestAfter:   cfg.RestAfter,
			Logger:      log,
		}
	}
	serving := cfg.Command == Serve
	if !cfg.Launch {
		err := cfg.checkBrowser() // Validate left it to us for serve
		var src source
		if err == nil {
			src, err = w.open(opts(cfg.Connect))
		}
		if err != nil && serving {
			f := badSetting(err)
			log.Error("serving MCP without a browser: every read answers why", "why", f)
			return failedSource{f}, nil
		}
		return src, err
	}
	start := func(launchCtx context.Context) (source, error) {
		b, stop, err := w.launch(launchCtx, cfg, log)
		if err != nil {
			return nil, err
		}
		src, err := w.open(opts(b.DebugURL()))
		if err != nil {
			stop()
			return nil, err
		}
		go func() {
			select {
			case <-b.Done():
				cancel(errBrowserExited)
			case <-ctx.Done():
			}
		}()
		return stopping{src, stop}, nil
	}
	src, err := start(ctx)
	if err == nil || !serving {
		return src, err
	}
	f := launchFailed(cfg, err)
	log.Error("serving MCP without a browser: every read answers why until it starts", "why", f, "err", err)
	return newRelaunching(ctx, f, func(ctx context.Context) (source, error) {
		src, err := start(ctx)
		if err != nil {
			return nil, launchFailed(cfg, err)
		}
		return src, nil
	}, w.now, w.after, log), nil
}

// stopping is a source on a launched browser: closing it stops the
// browser too.
type stopping struct {
	source
	stop func()
}

// Close closes the source, then stops the browser.
func (s stopping) Close() error {
	err := s.source.Close()
	s.stop()
	return err
}

// errBrowserExited ends Run when the browser of --launch exits first.
var errBrowserExited = errors.New("the launched browser exited")

// launchBrowser is launch as a world's.
func launchBrowser(ctx context.Context, cfg Config, log *slog.Logger) (browser, func(), error) {
	b, stop, err := launch(ctx, cfg, log)
	if err != nil {
		return nil, nil, err // not a nil *browsers.Launched in a browser
	}
	return b, stop, nil
}

// launch starts the browser of --launch on cfg.URLs or, when there are
// none, on the built-in demo page. stop closes both.
func launch(ctx context.Context, cfg Config, log *slog.Logger) (*browsers.Launched, func(), error) {
	urls := cfg.URLs
	var page *demo.Server
	if len(urls) == 0 {
		var err error
		if page, err = demo.Start(); err != nil {
			return nil, nil, err
		}
		urls = []string{page.URL()}
		log.Info("serving the demo page", "url", page.URL())
	}
	b, err := browsers.Launch(ctx, browsers.LaunchOptions{
		Path:   cfg.Chrome,
		Headed: cfg.Headed,
		URLs:   urls,
		Logger: log,
	})
	if err != nil {
		if page != nil {
			page.Close()
		}
		return nil, nil, err
	}
	if page != nil {
		// Read the demo page complete, not half loaded.
		select {
		case <-page.Loaded():
		case <-b.Done():
		case <-ctx.Done():
		case <-time.After(LoadWait):
			log.Warn("the demo page did not report its load in " + LoadWait.String() + "; reading it anyway")
		}
	}
	stop := func() {
		if err := b.Close(); err != nil {
			log.Warn("closing the launched browser", "err", err)
		}
		if page != nil {
			page.Close()
		}
	}
	return b, stop, nil
}

// newLogger makes the program's logger: text to stderr, or to cfg.LogFile.
func newLogger(cfg Config, stderr io.Writer) (*slog.Logger, func() error, error) {
	level, err := cfg.logLevel()
	if err != nil {
		return nil, nil, err
	}
	w, closeLog := stderr, func() error { return nil }
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("--log-file: %w", err)
		}
		w, closeLog = f, f.Close
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), closeLog, nil
}
