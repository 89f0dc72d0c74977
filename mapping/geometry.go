package mapping

import "math"

// QuadBounds returns the bounding box of a quad given as CDP gives it:
// x1,y1, x2,y2, x3,y3, x4,y4 (a rotated box's quad has its corners
// anywhere). A malformed quad has an empty box.
func QuadBounds(q []float64) Rect {
	if len(q) < 8 {
		return Rect{}
	}
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for i := 0; i+1 < len(q); i += 2 {
		minX, maxX = math.Min(minX, q[i]), math.Max(maxX, q[i])
		minY, maxY = math.Min(minY, q[i+1]), math.Max(maxY, q[i+1])
	}
	return Rect{X: minX, Y: minY, Width: maxX - minX, Height: maxY - minY}
}

// Empty reports whether r has no area.
func (r Rect) Empty() bool { return r.Width <= 0 || r.Height <= 0 }

// Union returns the smallest rectangle holding a and b; an empty one
// counts for nothing.
func Union(a, b Rect) Rect {
	if a.Empty() {
		return b
	}
	if b.Empty() {
		return a
	}
	x0, y0 := math.Min(a.X, b.X), math.Min(a.Y, b.Y)
	x1, y1 := math.Max(a.X+a.Width, b.X+b.Width), math.Max(a.Y+a.Height, b.Y+b.Height)
	return Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
}

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

// PageArea places a tab's page area on the screen: its origin in screen
// points and the page zoom (CSS pixels to points).
type PageArea struct {
	X, Y float64
	Zoom float64
}

// PageAreaOf derives the page area's origin from what a page's window
// says of itself (window.screenX/Y, outerWidth/Height, innerWidth/Height)
// and the page zoom: the browser's frame is taken as equal on the left and
// right, with the toolbars above the page.
func PageAreaOf(screenX, screenY, outerW, outerH, innerW, innerH, zoom float64) PageArea {
	if zoom <= 0 {
		zoom = 1
	}
	return PageArea{
		X:    screenX + (outerW-innerW*zoom)/2,
		Y:    screenY + outerH - innerH*zoom,
		Zoom: zoom,
	}
}

// ToScreen maps a rectangle in the top page's CSS pixels to screen points.
func (a PageArea) ToScreen(r Rect) Rect {
	return Rect{X: a.X + r.X*a.Zoom, Y: a.Y + r.Y*a.Zoom, Width: r.Width * a.Zoom, Height: r.Height * a.Zoom}
}
