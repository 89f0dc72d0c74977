// Package picture draws the frames of elements, with their labels, on a
// picture of what a person sees: an image and rectangles in the image's
// pixels in, a new image out.
//
// It owns the look of those pictures: the colours of a frame, of the
// focused element's and of the hovered one's, the line width, and where
// a label goes. It never talks to a browser, reads or writes a file, or
// knows what an element is beyond its rectangle and its label: the
// provider package takes the screenshot, asks locate where each element
// is, and turns screen points into the image's pixels.
//
//	out, _ := picture.Draw(shot, []picture.Frame{
//		{Rect: image.Rect(100, 120, 300, 200), Label: "3nE2Dn Button"},
//		{Rect: image.Rect(40, 60, 240, 84), Label: "324Sky TextField", Focused: true},
//	}, 2)
package picture

import (
	"image"
	"image/color"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The colours of the frames. A label is drawn in white on its frame's
// colour.
var (
	// FrameColor is the frame of an element neither focused nor hovered:
	// blue.
	FrameColor = color.RGBA{R: 0, G: 102, B: 255, A: 255}
	// FocusedColor is the frame of the element with keyboard focus:
	// orange.
	FocusedColor = color.RGBA{R: 255, G: 128, B: 0, A: 255}
	// HoveredColor is the frame of the element under the mouse pointer:
	// magenta.
	HoveredColor = color.RGBA{R: 230, G: 0, B: 230, A: 255}
	// LabelTextColor is the text of every label: white.
	LabelTextColor = color.RGBA{R: 255, G: 255, B: 255, A: 255}
)

// Frame is one element to draw: its rectangle in the image's pixels (it
// may reach past the image's edges, or lie wholly outside), its label,
// and whether it is the focused or the hovered element (or both).
type Frame struct {
	Rect    image.Rectangle
	Label   string
	Focused bool
	Hovered bool
}

// face is the labels' font: a fixed 7×13 pixel face, ASCII and Latin-1.
var face = basicfont.Face7x13

// labelPad is the space around a label's text, in pixels.
const labelPad = 2

// Draw returns a copy of img with the frames drawn on it, and where each
// frame's label went (the zero Rectangle for a label left out), in the
// order of frames.
//
// Each frame is a line of width pixels (at least 1) along the inside of
// its rectangle, so it covers the element's own outermost pixels and
// nothing beside it; the parts of a frame outside the image are not
// drawn. Frames are drawn in the order given, then the hovered frame,
// then the focused one, on top; an element both focused and hovered has
// the focused colour outside and the hovered colour just inside it.
//
// A label is the frame's colour with white text, drawn after every
// frame, wholly inside the image: just above the frame's top-left corner,
// else just inside it, else just below the frame, moved in from the
// image's edges and cut to the image's width. The focused frame's label
// is placed first, then the hovered one's, then the rest in order; a
// label that would cover one placed before it is left out (its frame is
// still drawn). A frame wholly outside the image has no label.
func Draw(img image.Image, frames []Frame, width int) (*image.RGBA, []image.Rectangle) {
	width = max(width, 1)
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)

	order := drawOrder(frames)
	for _, i := range order {
		f := frames[i]
		switch {
		case f.Focused && f.Hovered:
			stroke(out, f.Rect, width, FocusedColor)
			stroke(out, f.Rect.Inset(width), width, HoveredColor)
		default:
			stroke(out, f.Rect, width, colorOf(f))
		}
	}

	labels := make([]image.Rectangle, len(frames))
	var placed []image.Rectangle
	for _, i := range labelOrder(order, frames) {
		labels[i], placed = label(out, frames[i], width, placed)
	}
	return out, labels
}

// drawOrder lists the frames' indexes in the order they are drawn: the
// plain ones as given, then the hovered one(s), then the focused one(s).
func drawOrder(frames []Frame) []int {
	var plain, hovered, focused []int
	for i, f := range frames {
		switch {
		case f.Focused:
			focused = append(focused, i)
		case f.Hovered:
			hovered = append(hovered, i)
		default:
			plain = append(plain, i)
		}
	}
	return append(append(plain, hovered...), focused...)
}

// labelOrder lists the frames' indexes in the order their labels are
// placed: the focused, the hovered, then the rest as given.
func labelOrder(order []int, frames []Frame) []int {
	var out []int
	for k := len(order) - 1; k >= 0 && (frames[order[k]].Focused || frames[order[k]].Hovered); k-- {
		out = append(out, order[k])
	}
	for _, i := range order {
		if !frames[i].Focused && !frames[i].Hovered {
			out = append(out, i)
		}
	}
	return out
}

// colorOf is a frame's colour.
func colorOf(f Frame) color.RGBA {
	switch {
	case f.Focused:
		return FocusedColor
	case f.Hovered:
		return HoveredColor
	}
	return FrameColor
}

// stroke draws a line of width w along the inside of r; a rectangle too
// small for it is filled. draw.Draw leaves out what is outside dst.
func stroke(dst *image.RGBA, r image.Rectangle, w int, c color.RGBA) {
	r = r.Canon()
	if r.Empty() {
		return
	}
	src := image.NewUniform(c)
	if r.Dx() <= 2*w || r.Dy() <= 2*w {
		draw.Draw(dst, r, src, image.Point{}, draw.Src)
		return
	}
	for _, e := range []image.Rectangle{
		{r.Min, image.Pt(r.Max.X, r.Min.Y+w)},                          // top
		{image.Pt(r.Min.X, r.Max.Y-w), r.Max},                          // bottom
		{image.Pt(r.Min.X, r.Min.Y+w), image.Pt(r.Min.X+w, r.Max.Y-w)}, // left
		{image.Pt(r.Max.X-w, r.Min.Y+w), image.Pt(r.Max.X, r.Max.Y-w)}, // right
	} {
		draw.Draw(dst, e, src, image.Point{}, draw.Src)
	}
}

// label draws f's label where it fits (see Draw) and returns where it
// went, and placed with it; the zero Rectangle when it was left out.
func label(dst *image.RGBA, f Frame, w int, placed []image.Rectangle) (image.Rectangle, []image.Rectangle) {
	b := dst.Bounds()
	text := fit(f.Label, b.Dx())
	if text == "" || !f.Rect.Canon().Overlaps(b) {
		return image.Rectangle{}, placed
	}
	size := LabelSize(text)
	r := f.Rect.Canon()
	for _, at := range []image.Point{
		{r.Min.X, r.Min.Y - size.Y}, // above the top-left corner
		{r.Min.X + w, r.Min.Y + w},  // just inside it
		{r.Min.X, r.Max.Y},          // below the bottom-left corner
	} {
		lr := inside(image.Rectangle{Min: at, Max: at.Add(size)}, b)
		if overlapsAny(lr, placed) {
			continue
		}
		draw.Draw(dst, lr, image.NewUniform(colorOf(f)), image.Point{}, draw.Src)
		d := font.Drawer{
			Dst:  dst,
			Src:  image.NewUniform(LabelTextColor),
			Face: face,
			Dot:  fixed.P(lr.Min.X+labelPad, lr.Min.Y+labelPad+face.Ascent),
		}
		d.DrawString(text)
		return lr, append(placed, lr)
	}
	return image.Rectangle{}, placed
}

// LabelSize is the size in pixels of the label that shows text.
func LabelSize(text string) image.Point {
	return image.Pt(font.MeasureString(face, text).Ceil()+2*labelPad, face.Height+2*labelPad)
}

// fit cuts text to the runes whose label fits in width pixels.
func fit(text string, width int) string {
	rs := []rune(text)
	for len(rs) > 0 && LabelSize(string(rs)).X > width {
		rs = rs[:len(rs)-1]
	}
	return string(rs)
}

// inside moves r into b, as far as it fits.
func inside(r, b image.Rectangle) image.Rectangle {
	if d := r.Max.X - b.Max.X; d > 0 {
		r = r.Sub(image.Pt(d, 0))
	}
	if d := r.Max.Y - b.Max.Y; d > 0 {
		r = r.Sub(image.Pt(0, d))
	}
	if d := b.Min.X - r.Min.X; d > 0 {
		r = r.Add(image.Pt(d, 0))
	}
	if d := b.Min.Y - r.Min.Y; d > 0 {
		r = r.Add(image.Pt(0, d))
	}
	return r
}

// overlapsAny reports whether r overlaps any of rs.
func overlapsAny(r image.Rectangle, rs []image.Rectangle) bool {
	for _, o := range rs {
		if r.Overlaps(o) {
			return true
		}
	}
	return false
}
