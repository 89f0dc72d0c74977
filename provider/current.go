package provider

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// LoadWait bounds how long current waits for the pages a launched browser
// opened to finish loading.
const LoadWait = 10 * time.Second

// ConsentWait bounds how long current waits for the person to allow
// remote debugging, when the browser asks them.
const ConsentWait = 2 * time.Minute

// loadPoll is how often current reads again while it waits.
const loadPoll = 100 * time.Millisecond

// current reads current once and prints it: the outline a person reads,
// or with cfg.JSON the compact JSON answer and a newline, either cut to
// cfg.Depth when it is set; with cfg.PNG it
// then writes the picture of what locate says of it. With --launch
// and URLs it first waits, up to LoadWait, until the pages look loaded
// (settled) in two reads in a row, and prints the second, so it prints
// the pages it was asked for rather than the empty documents of their
// first moments. (The demo page is waited for in launch; with --connect
// the browser is read as it is.)
func current(ctx context.Context, cfg Config, src source, stdout io.Writer, log *slog.Logger) error {
	cur, err := readOnce(ctx, cfg, src, log)
	if err != nil {
		return err
	}
	printed := cfg.printed(cur)
	if cfg.JSON { // the resource's text, byte for byte (but for what --depth cuts)
		if _, err := stdout.Write(append(printed.AppendJSON(nil), '\n')); err != nil {
			return err
		}
	} else if err := mapping.Outline(stdout, printed.Root); err != nil {
		return fmt.Errorf("print current: %w", err)
	}
	if cfg.PNG != "" {
		drawn, err := writePicture(ctx, src, cur, cfg.PNG)
		if err != nil {
			return fmt.Errorf("--png %s: %w", cfg.PNG, err)
		}
		logPicture(log, cfg.PNG, drawn, slog.LevelInfo)
	}
	return nil
}

// readOnce is the one read of current and find: it waits for a person
// asked to allow remote debugging (up to ConsentWait) and, with --launch
// and URLs, for the pages to load (up to LoadWait). A failure has the
// command line's advice.
func readOnce(ctx context.Context, cfg Config, src source, log *slog.Logger) (*mapping.Current, error) {
	read := cfg.reader(src)
	cur, err := read(ctx)
	// A browser that asks its person first: tell them to click Allow, and
	// wait for that (each read waits a moment for the answer).
	if cdp.ReasonOf(err) == cdp.ReasonConsentPending {
		log.Warn(err.Error())
	}
	for deadline := time.Now().Add(ConsentWait); cdp.ReasonOf(err) == cdp.ReasonConsentPending && time.Now().Before(deadline); {
		cur, err = read(ctx)
	}
	if err != nil {
		return nil, withAdvice(fmt.Errorf("read current: %w", err), cfg)
	}
	if cfg.Launch && len(cfg.URLs) > 0 {
		// A read takes each page's state (its focus, its hover) before its
		// tree, so the first read whose tree shows the pages loaded may
		// have taken their focus while their scripts still ran: the read
		// printed is the one after it, begun once they were seen loaded.
		deadline := time.Now().Add(LoadWait)
		for seenLoaded := false; ; {
			loaded := settled(cur.Root)
			if loaded && seenLoaded {
				break
			}
			if !loaded {
				if time.Now().After(deadline) {
					log.Warn("the pages have not finished loading after " + LoadWait.String() + "; printing them as they are")
					break
				}
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(loadPoll):
				}
			}
			seenLoaded = loaded
			if cur, err = read(ctx); err != nil {
				return nil, withAdvice(fmt.Errorf("read current: %w", err), cfg)
			}
		}
	}
	return cur, nil
}

// settled reports whether the pages of root look loaded: no Document is
// busy (Chrome's tree says so until the load event) or reported as not
// responding (on a busy machine a page just launched can keep the first
// call of a read waiting past the provider's patience, 5.5), and every window
// that is not minimised shows a document of its selected tab's own: right
// after a launch a tab can already have its URL while its frame still
// holds the initial empty document (no URL, or about:blank), which is
// not busy. Any other address counts as the tab's: a redirect's target,
// or Chrome's error page for a page that cannot be reached.
func settled(root *mapping.Element) bool {
	ok := true
	var visit func(e *mapping.Element)
	visit = func(e *mapping.Element) {
		switch e.Role {
		case "Document":
			ok = ok && !slices.Contains(e.States, "busy") && e.Description != mapping.NotResponding
		case "Window":
			var tab, doc *mapping.Element
			for _, c := range e.Children {
				switch c.Role {
				case "TabList":
					for _, t := range c.Children {
						if slices.Contains(t.States, "selected") {
							tab = t
						}
					}
				case "Document":
					doc = c
				}
			}
			if tab != nil && !slices.Contains(e.States, "minimized") {
				ok = ok && doc != nil && (doc.URL != "" && doc.URL != "about:blank" || doc.URL == tab.URL)
			}
		}
		for _, c := range e.Children {
			visit(c)
		}
	}
	visit(root)
	return ok
}
