package mapping

import "math"

// Empty reports whether r has no area.
func (r Rect) Empty() bool { return r.Width <= 0 || r.Height <= 0 }

// Intersect returns the part of a inside b; zero-sized when they do not
// overlap.
func Intersect(a, b Rect) Rect {
	x0, y0 := math.Max(a.X, b.X), math.Max(a.Y, b.Y)
	x1, y1 := math.Min(a.X+a.Width, b.X+b.Width), math.Min(a.Y+a.Height, b.Y+b.Height)
	if x1 <= x0 || y1 <= y0 {
		return Rect{X: x0, Y: y0}
	}
	return Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
}

// Offset returns r moved by (dx, dy).
func (r Rect) Offset(dx, dy float64) Rect {
	r.X += dx
	r.Y += dy
	return r
}

// Box is what a frame reports of one element, in the CSS pixels of that
// frame's viewport: the element's box, and the clip: the part of the
// viewport (scrollbars excluded) that no scrolling or clipping container
// around the element cuts away.
type Box struct {
	Rect Rect
	Clip Rect
}

// In maps a box of a child frame into its parent frame, given the box of
// the <iframe> that holds the child frame (its content box, and the clip
// around it in the parent). The iframe's content box clips the child.
func (b Box) In(owner Box) Box {
	dx, dy := owner.Rect.X, owner.Rect.Y
	return Box{
		Rect: b.Rect.Offset(dx, dy),
		Clip: Intersect(b.Clip.Offset(dx, dy), Intersect(owner.Rect, owner.Clip)),
	}
}

// Visible returns the part of the box that is not clipped away.
func (b Box) Visible() Rect { return Intersect(b.Rect, b.Clip) }

// WindowMetrics is what a top page says of its window and page area.
type WindowMetrics struct {
	// ScreenX and ScreenY are window.screenX/Y: the window's top-left
	// corner on the screen, in points.
	ScreenX, ScreenY float64
	// OuterWidth and OuterHeight are window.outerWidth/Height, in points.
	OuterWidth, OuterHeight float64
	// Width and Height are the page area's size in CSS pixels, scrollbars
	// included, to 1/64 pixel (innerWidth/Height are rounded to whole CSS
	// pixels, which is up to half a point off at 150% zoom).
	Width, Height float64
	// Zoom is the page zoom: points per CSS pixel.
	Zoom float64
	// Scale is the device scale factor: device pixels per point.
	Scale float64
}

// PageArea places a tab's page area on the screen: its origin in screen
// points and the page zoom (CSS pixels to points).
type PageArea struct {
	X, Y float64
	Zoom float64
}

// PageAreaOf derives the page area's origin from what its window says.
// The page area's size in points is its CSS size times the zoom, snapped
// to whole device pixels (a page area is a whole number of them). The
// window's frame is taken as equal on the left, right and bottom (Chrome
// draws it so; it is zero in headless, without a window manager, and when
// maximised), with the tab strip, toolbar and infobars above the page.
func PageAreaOf(w WindowMetrics) PageArea {
	zoom, scale := w.Zoom, w.Scale
	if zoom <= 0 {
		zoom = 1
	}
	if scale <= 0 {
		scale = 1
	}
	snap := func(v float64) float64 { return math.Round(v*scale) / scale }
	width, height := snap(w.Width*zoom), snap(w.Height*zoom)
	border := math.Max(0, (w.OuterWidth-width)/2)
	return PageArea{
		X:    w.ScreenX + border,
		Y:    w.ScreenY + w.OuterHeight - height - border,
		Zoom: zoom,
	}
}

// ToScreen maps a rectangle in the top page's CSS pixels to screen points.
func (a PageArea) ToScreen(r Rect) Rect {
	return Rect{X: a.X + r.X*a.Zoom, Y: a.Y + r.Y*a.Zoom, Width: r.Width * a.Zoom, Height: r.Height * a.Zoom}
}
