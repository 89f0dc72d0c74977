package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/cdpprovider/cdpprovider/picture"
)

// A picture of what locate says (--png): a screenshot of the focused
// window's active tab with the frame of every element of the answer that
// is on screen drawn on it (package picture draws).

// maxLocated bounds the elements one picture locates. A locate costs
// about a millisecond (docs/locations.md), so a picture of a page of
// 10,000 elements would otherwise take many seconds: past the bound the
// rest of the page has no frames, and the log says how many were left.
const maxLocated = 1000

// strokePoints is the width of a frame's line, in screen points.
const strokePoints = 2

// pictureSource is what a picture needs of the browser: locate, and a
// screenshot of a tab. *cdp.Provider is one.
type pictureSource interface {
	Locate(ctx context.Context, id string) (*mapping.Location, error)
	Screenshot(ctx context.Context, doc string) ([]byte, error)
}

// pictureDrawn says what a picture shows: how many frames it has, how
// many elements were located for it, and how many were left unlocated by
// maxLocated.
type pictureDrawn struct {
	framed, located, left int
}

// takePicture takes the picture of cur: the screenshot of the focused
// window's active tab (of the first window with a tab when none is
// focused), with the frame locate gives each element of that tab's
// Document that locates onscreen, mapped from screen points to the
// screenshot's pixels: less the Document's frame origin (its page area
// on screen), times the screenshot's pixels per point (its width over
// that frame's width). The focused element is located first, then the
// hovered one, then the rest in reading order, at most maxLocated of
// them; the elements of an iframe's Document that does not locate
// onscreen are not located.
func takePicture(ctx context.Context, src pictureSource, cur *mapping.Current) (image.Image, pictureDrawn, error) {
	var drawn pictureDrawn
	doc := activeDocument(cur.Root)
	if doc == nil {
		return nil, drawn, errors.New("no tab is shown to take a picture of")
	}
	area, err := src.Locate(ctx, doc.ID)
	if err != nil {
		return nil, drawn, fmt.Errorf("locate the active tab's Document: %w", err)
	}
	if area.State != mapping.OnScreen || area.Frame == nil || area.Frame.Width <= 0 || area.Frame.Height <= 0 {
		return nil, drawn, fmt.Errorf("the active tab is not on screen (%s)", area.State)
	}
	data, err := src.Screenshot(ctx, doc.ID)
	if err != nil {
		return nil, drawn, err
	}
	shot, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, drawn, fmt.Errorf("decode the screenshot: %w", err)
	}
	size := shot.Bounds().Size()
	sx, sy := float64(size.X)/area.Frame.Width, float64(size.Y)/area.Frame.Height
	toPixels := func(r *mapping.Rect) image.Rectangle {
		px := func(v, origin, scale float64) int { return int(math.Round((v - origin) * scale)) }
		return image.Rect(px(r.X, area.Frame.X, sx), px(r.Y, area.Frame.Y, sy),
			px(r.X+r.Width, area.Frame.X, sx), px(r.Y+r.Height, area.Frame.Y, sy)).Add(shot.Bounds().Min)
	}

	focused, hovered := pointedAt(doc)
	located := map[*mapping.Element]*mapping.Location{doc: area}
	var failure error
	// locate locates e once; false when maxLocated were located already.
	locate := func(e *mapping.Element) (*mapping.Location, bool) {
		if l, ok := located[e]; ok {
			return l, true
		}
		if drawn.located == maxLocated || failure != nil {
			return nil, false
		}
		drawn.located++
		l, err := src.Locate(ctx, e.ID)
		switch {
		case err == nil:
		case errors.Is(err, mapping.ErrCannotPlace), errors.Is(err, mapping.ErrNotIssued), errors.Is(err, mapping.ErrMalformedID):
			l = nil // no place of its own: no frame
		default:
			failure = err // the browser went away, or the read's time is up
			l = nil
		}
		located[e] = l
		return l, true
	}
	for _, e := range []*mapping.Element{focused, hovered} {
		if e != nil {
			locate(e)
		}
	}

	var frames []picture.Frame
	var visit func(e *mapping.Element)
	visit = func(e *mapping.Element) {
		l, ok := locate(e)
		if !ok {
			drawn.left++
		}
		onscreen := l != nil && l.State == mapping.OnScreen && l.Frame != nil
		if onscreen {
			frames = append(frames, picture.Frame{
				Rect:    toPixels(l.Frame),
				Label:   e.ID + " " + e.Role,
				Focused: e == focused,
				Hovered: e == hovered,
			})
		}
		if ok && e != doc && e.Role == "Document" && !onscreen {
			return // an iframe's document not on screen: nothing in it is
		}
		for _, c := range e.Children {
			visit(c)
		}
	}
	visit(doc)
	if failure != nil {
		return nil, drawn, fmt.Errorf("locate the elements: %w", failure)
	}
	drawn.framed = len(frames)
	width := max(1, int(math.Round(strokePoints*sx)))
	out, _ := picture.Draw(shot, frames, width)
	return out, drawn, nil
}

// activeDocument is the Document of the focused window's active tab; of
// the first window that shows one when no window is focused; nil when no
// window shows a tab.
func activeDocument(root *mapping.Element) *mapping.Element {
	if root == nil {
		return nil
	}
	var first *mapping.Element
	for _, w := range root.Children {
		if w.Role != "Window" {
			continue
		}
		for _, c := range w.Children {
			if c.Role != "Document" {
				continue
			}
			if slices.Contains(w.States, "focused") {
				return c
			}
			if first == nil {
				first = c
			}
		}
	}
	return first
}

// pointedAt returns the focused element under e (the end of the focus
// path: the deepest element that is focused) and the hovered one; nil
// for one there is not.
func pointedAt(e *mapping.Element) (focused, hovered *mapping.Element) {
	var visit func(e *mapping.Element)
	visit = func(e *mapping.Element) {
		if slices.Contains(e.States, "focused") {
			focused = e // children come after: the deepest wins
		}
		if slices.Contains(e.States, "hovered") {
			hovered = e
		}
		for _, c := range e.Children {
			visit(c)
		}
	}
	if e != nil {
		visit(e)
	}
	return focused, hovered
}

// writePicture takes the picture of cur (takePicture) and writes it to
// file as a PNG, replacing the file at once: it is written to a temporary
// file beside it, then renamed, so a viewer never reads half a picture.
func writePicture(ctx context.Context, src pictureSource, cur *mapping.Current, file string) (pictureDrawn, error) {
	img, drawn, err := takePicture(ctx, src, cur)
	if err != nil {
		return drawn, err
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return drawn, fmt.Errorf("encode the picture: %w", err)
	}
	return drawn, writeFileAtomic(file, buf.Bytes())
}

// logPicture logs a picture written, at the level given.
func logPicture(log *slog.Logger, file string, drawn pictureDrawn, level slog.Level) {
	ctx := context.Background()
	log.Log(ctx, level, "wrote the picture", "file", file, "frames", drawn.framed, "located", drawn.located)
	if drawn.left > 0 {
		log.Log(ctx, level, fmt.Sprintf("the picture has no frames for the last %d elements: it locates at most %d", drawn.left, maxLocated))
	}
}

// writeFileAtomic writes data to a temporary file in file's directory and
// renames it to file. The file is readable by its owner only: a picture
// of a person's browser is theirs.
func writeFileAtomic(file string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
