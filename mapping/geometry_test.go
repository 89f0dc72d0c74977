package mapping

import "testing"

func TestQuadBoundsOfARotatedQuad(t *testing.T) {
	// A 10x10 square turned 45° about (10,10).
	got := QuadBounds([]float64{10, 2.929, 17.071, 10, 10, 17.071, 2.929, 10})
	want := Rect{X: 2.929, Y: 2.929, Width: 14.142, Height: 14.142}
	if !near(got, want) {
		t.Fatalf("QuadBounds = %+v, want %+v", got, want)
	}
	if got := QuadBounds([]float64{1, 2}); !got.Empty() {
		t.Fatalf("QuadBounds of a malformed quad = %+v, want empty", got)
	}
}

func TestUnionAndIntersect(t *testing.T) {
	a := Rect{X: 0, Y: 0, Width: 10, Height: 10}
	b := Rect{X: 5, Y: 5, Width: 10, Height: 10}
	if got, want := Union(a, b), (Rect{0, 0, 15, 15}); got != want {
		t.Errorf("Union = %+v, want %+v", got, want)
	}
	if got, want := Union(Rect{}, b), b; got != want {
		t.Errorf("Union with empty = %+v, want %+v", got, want)
	}
	if got, want := Intersect(a, b), (Rect{5, 5, 5, 5}); got != want {
		t.Errorf("Intersect = %+v, want %+v", got, want)
	}
	if got := Intersect(a, Rect{X: 20, Y: 20, Width: 1, Height: 1}); !got.Empty() {
		t.Errorf("Intersect of disjoint = %+v, want empty", got)
	}
}

func TestPageAreaToScreen(t *testing.T) {
	// Headless Chromium, --window-size=1000,700: the window at (10,10),
	// innerHeight 557; a mouse event at client (150,115) had screen (160,268).
	a := PageAreaOf(10, 10, 1000, 700, 1000, 557, 1)
	got := a.ToScreen(Rect{X: 150, Y: 115, Width: 20, Height: 10})
	if want := (Rect{X: 160, Y: 268, Width: 20, Height: 10}); got != want {
		t.Fatalf("ToScreen = %+v, want %+v", got, want)
	}
	// At 150% zoom CSS pixels grow by half and innerWidth/Height shrink.
	z := PageAreaOf(0, 0, 1000, 700, 1000/1.5, 557/1.5, 1.5)
	if got, want := z.ToScreen(Rect{X: 10, Y: 10, Width: 10, Height: 10}), (Rect{X: 15, Y: 143 + 15, Width: 15, Height: 15}); !near(got, want) {
		t.Fatalf("ToScreen at 150%% = %+v, want %+v", got, want)
	}
}

func near(a, b Rect) bool {
	d := func(x, y float64) bool { return x-y < 0.01 && y-x < 0.01 }
	return d(a.X, b.X) && d(a.Y, b.Y) && d(a.Width, b.Width) && d(a.Height, b.Height)
}
