package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// watch shows what current answers, and again after every change the
// source's Watcher tells of (the signal behind MCP's change
// notifications), until ctx ends; then it gives the terminal back and
// returns nil. Notifications that come while a read is under way lead
// to one more read after it, not one each; an answer equal to the one
// shown before is not shown again (Chrome tells of some changes twice:
// the page's watchers at once, its accessibility events up to 250 ms
// later). With cfg.PNG every read also rewrites the picture. A read that
// fails is logged (on a terminal, shown) and watch goes on: the Watcher
// tells when the browser is back, or when its person allowed the
// connection. A reader of stdout that went away ends watch cleanly. A
// console that cannot show the screen (a Windows console that refuses
// virtual-terminal processing) gets plain blocks, as a pipe does.
func watch(ctx context.Context, cfg Config, src source, scr *screen, log *slog.Logger) error {
	var changedAt atomic.Int64
	kick := make(chan struct{}, 1)
	stop := src.Watch(func() {
		changedAt.Store(time.Now().UnixNano())
		select {
		case kick <- struct{}{}:
		default: // a read is due already, and will see this change too
		}
	})
	defer stop()
	w := &watching{cfg: cfg, src: src, scr: scr, log: log}
	err := scr.begin()
	defer scr.end()
	if err != nil {
		return w.ended(err)
	}
	if scr.plain != nil {
		log.Info("the console cannot show watch's screen; printing each answer as lines", "err", scr.plain)
	}
	at, read := time.Now(), true
	for {
		if read {
			if err := w.read(ctx, at); err != nil {
				return w.ended(err)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-kick:
			at, read = time.Unix(0, changedAt.Load()), true
		case <-scr.resized:
			read = false
			if err := scr.show(w.shown); err != nil {
				return w.ended(err)
			}
		}
	}
}

// watching is the state of a watch.
type watching struct {
	cfg Config
	src source
	scr *screen
	log *slog.Logger

	last    []byte // the JSON of the answer shown last; nil after a failure
	shown   view   // what the screen shows
	failure string // the message of the last failed read, logged once
}

// read reads current and shows it when it differs from what is shown,
// then writes the picture. changed is when the change it follows was
// told.
func (w *watching) read(ctx context.Context, changed time.Time) error {
	t0 := time.Now()
	cur, err := w.cfg.reader(w.src)(ctx)
	took := time.Since(t0)
	if ctx.Err() != nil {
		return nil // stopping
	}
	if err != nil {
		if msg := err.Error(); msg != w.failure {
			w.failure = msg
			args := []any{"err", err}
			if a := Advice(err, w.cfg); a != "" {
				args = append(args, "advice", a)
			}
			w.log.Warn("could not read current; waiting for the browser to tell of a change", args...)
		}
		w.last, w.shown = nil, view{failure: err.Error()}
		if a := Advice(err, w.cfg); a != "" {
			w.shown.failure += " " + a
		}
		return w.scr.show(w.shown)
	}
	w.failure = ""
	// With --depth, a change below the cut prints nothing new.
	b, err := json.Marshal(w.cfg.printed(cur))
	if err != nil {
		return fmt.Errorf("encode current: %w", err)
	}
	if !bytes.Equal(b, w.last) {
		w.last = b
		if w.cfg.JSON {
			if _, err := w.scr.w.Write(append(b, '\n')); err != nil {
				return err
			}
		} else {
			w.shown = viewOf(cur, w.cfg.Depth, took, changed)
			if err := w.scr.show(w.shown); err != nil {
				return err
			}
		}
	}
	if w.cfg.PNG != "" {
		drawn, err := writePicture(ctx, w.src, cur, w.cfg.PNG)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			w.log.Warn("could not write the picture", "file", w.cfg.PNG, "err", err)
		default:
			logPicture(w.log, w.cfg.PNG, drawn, slog.LevelDebug)
		}
	}
	return nil
}

// ended is watch's error for a failed write: nil when the reader of stdout
// went away (a pipe closed: watch | head), which ends watch as Ctrl-C
// does.
func (w *watching) ended(err error) error {
	if readerGone(err) {
		return nil
	}
	return fmt.Errorf("watch: %w", err)
}

// viewOf makes the view of an answer read in took, after a change told
// at changed: its outline cut to depth when depth is set.
func viewOf(cur *mapping.Current, depth *int, took time.Duration, changed time.Time) view {
	v := view{focused: -1, hovered: -1}
	root := cur.Root
	product, tab := "", "no tab shown"
	if root != nil {
		product = root.Title
	}
	if d := activeDocument(root); d != nil {
		tab = strings.TrimSpace(orNone(d.Title, "(untitled)") + " <" + d.URL + ">")
	}
	v.status = fmt.Sprintf("%s · %s · %d elements · read %d ms · changed %s",
		orNone(product, "the browser"), tab, elements(root), took.Milliseconds(), changed.Format("15:04:05.000"))

	focused, hovered := pointedAt(root)
	v.pointing = "» focused: " + describe(focused) + "   » hovered: " + describe(hovered)

	var b strings.Builder
	if depth != nil { // the status and the pointing line are of the whole answer
		mapping.Outline(&b, mapping.Cut(root, *depth))
	} else {
		mapping.Outline(&b, root)
	}
	v.outline = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if root == nil {
		v.outline = nil
	}
	for i, l := range v.outline {
		switch {
		case focused != nil && strings.HasSuffix(l, " #"+focused.ID):
			v.focused = i
		case hovered != nil && strings.HasSuffix(l, " #"+hovered.ID):
			v.hovered = i
		}
	}
	return v
}

// describe names an element for the status: Role title #id, the title
// as the outline writes it.
func describe(e *mapping.Element) string {
	if e == nil {
		return "nothing"
	}
	if e.Title != "" {
		return e.Role + " " + mapping.Title(e.Title) + " #" + e.ID
	}
	return e.Role + " #" + e.ID
}

// elements counts the elements of e's tree.
func elements(e *mapping.Element) int {
	if e == nil {
		return 0
	}
	n := 1
	for _, c := range e.Children {
		n += elements(c)
	}
	return n
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
