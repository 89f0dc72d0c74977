package mapping

import "testing"

func TestIntersect(t *testing.T) {
	a := Rect{X: 0, Y: 0, Width: 10, Height: 10}
	b := Rect{X: 5, Y: 5, Width: 10, Height: 10}
	if got, want := Intersect(a, b), (Rect{5, 5, 5, 5}); got != want {
		t.Errorf("Intersect = %+v, want %+v", got, want)
	}
	if got := Intersect(a, Rect{X: 20, Y: 20, Width: 1, Height: 1}); !got.Empty() {
		t.Errorf("Intersect of disjoint = %+v, want empty", got)
	}
}

func TestBoxIn(t *testing.T) {
	// A button at (10,20) in a frame whose viewport is 100x50, held by an
	// iframe whose content box is at (200,300) and whose container clips
	// everything below y=320 in the parent.
	child := Box{Rect: Rect{10, 20, 30, 40}, Clip: Rect{0, 0, 100, 50}}
	owner := Box{Rect: Rect{200, 300, 100, 50}, Clip: Rect{0, 0, 1000, 320}}
	got := child.In(owner)
	if want := (Rect{210, 320, 30, 40}); got.Rect != want {
		t.Errorf("In: rect %+v, want %+v", got.Rect, want)
	}
	if v := got.Visible(); !v.Empty() {
		t.Errorf("In: visible %+v, want empty (all of it below the container's bottom)", v)
	}
	// Scrolled into the frame's lower half, it is cut by the frame's viewport.
	child.Rect.Y = 35
	if got, want := child.In(Box{Rect: owner.Rect, Clip: Rect{0, 0, 1000, 1000}}).Visible(), (Rect{210, 335, 30, 15}); got != want {
		t.Errorf("In: visible %+v, want %+v (cut at the frame's bottom)", got, want)
	}
}

// The cases are measured: a 200x100 red box at CSS (100,50) found on an
// Xvfb screen, and a mouse event's screenX − clientX in headless.
func TestPageAreaOf(t *testing.T) {
	box := Rect{X: 100, Y: 50, Width: 200, Height: 100}
	for _, c := range []struct {
		name string
		w    WindowMetrics
		want Rect
	}{
		{
			// Headless, --window-size=1000,700: a mouse event at client
			// (150,115) had screen (160,268).
			name: "headless",
			w:    WindowMetrics{ScreenX: 10, ScreenY: 10, OuterWidth: 1000, OuterHeight: 700, Width: 1000, Height: 557, Zoom: 1, Scale: 1},
			want: Rect{X: 110, Y: 203, Width: 200, Height: 100},
		},
		{
			// No window manager: no frame; 143 points of tab strip,
			// toolbar and the --no-sandbox infobar.
			name: "no window manager, 150%",
			w:    WindowMetrics{ScreenX: 120, ScreenY: 90, OuterWidth: 1000, OuterHeight: 700, Width: 666.671875, Height: 371.34375, Zoom: 1.5, Scale: 1},
			want: Rect{X: 270, Y: 308, Width: 300, Height: 150},
		},
		{
			// innerWidth/innerHeight (667, 371) instead of the exact size
			// would put it half a point too high.
			name: "Chrome's own 4-point frame under a window manager, 150%",
			w:    WindowMetrics{ScreenX: 120, ScreenY: 90, OuterWidth: 1000, OuterHeight: 700, Width: 661.34375, Height: 368.671875, Zoom: 1.5, Scale: 1},
			want: Rect{X: 274, Y: 308, Width: 300, Height: 150},
		},
		{
			name: "Chrome's own frame, 100%",
			w:    WindowMetrics{ScreenX: 120, ScreenY: 90, OuterWidth: 1000, OuterHeight: 700, Width: 992, Height: 553, Zoom: 1, Scale: 1},
			want: Rect{X: 224, Y: 283, Width: 200, Height: 100},
		},
	} {
		if got := PageAreaOf(c.w).ToScreen(box); !near(got, c.want) {
			t.Errorf("%s: ToScreen = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestPageAreaOfSnapsToDevicePixels(t *testing.T) {
	// At scale 2 a page area is a whole number of half points: 356.75
	// points of CSS height (a 1/64 px reading) are 357.
	a := PageAreaOf(WindowMetrics{ScreenY: 0, OuterHeight: 500, OuterWidth: 600, Width: 600, Height: 356.75, Zoom: 1, Scale: 2})
	if a.Y != 143 {
		t.Errorf("page area top = %v, want 143", a.Y)
	}
	// And innerWidth-style whole CSS pixels at 67% are snapped back.
	b := PageAreaOf(WindowMetrics{OuterWidth: 1000, OuterHeight: 700, Width: 1492.5373, Height: 831.34, Zoom: 0.67, Scale: 1})
	if b.X != 0 || b.Y != 143 {
		t.Errorf("page area at 67%% = (%v,%v), want (0,143)", b.X, b.Y)
	}
}

func near(a, b Rect) bool {
	d := func(x, y float64) bool { return x-y < 0.01 && y-x < 0.01 }
	return d(a.X, b.X) && d(a.Y, b.Y) && d(a.Width, b.Width) && d(a.Height, b.Height)
}
