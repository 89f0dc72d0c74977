package e2e

import (
	"fmt"
	"math"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// answer is one checked answer of current with its raw JSON.
type answer struct {
	*mapping.Current
	raw []byte
}

// location is one checked answer of locate.
type location struct {
	*mapping.Location
	raw []byte
}

// descriptorAnswer is one checked descriptor.
type descriptorAnswer struct {
	*mapping.Descriptor
	raw []byte
}

// rect is a rectangle in CSS px or screen points.
type rect struct{ X, Y, W, H float64 }

func (r rect) String() string {
	return fmt.Sprintf("{x %.2f y %.2f w %.2f h %.2f}", r.X, r.Y, r.W, r.H)
}

func (r rect) offset(dx, dy float64) rect { return rect{r.X + dx, r.Y + dy, r.W, r.H} }

func fromMapping(m *mapping.Rect) rect { return rect{m.X, m.Y, m.Width, m.Height} }

// near reports whether two rectangles agree within tol on every side.
func near(a, b rect, tol float64) bool {
	return math.Abs(a.X-b.X) <= tol && math.Abs(a.Y-b.Y) <= tol &&
		math.Abs(a.W-b.W) <= tol && math.Abs(a.H-b.H) <= tol
}

type elem = mapping.Element
