package mapping

import (
	"fmt"
	"math"
	"testing"
)

// The page area on Windows and macOS, where nothing could be measured:
// each case starts from what the system says of a window (Windows: the
// window rectangle in physical pixels, GetWindowRect; macOS: the
// NSWindow frame in points), turns it into what the page reports the way
// Chromium's source does (window.screenX/screenY/outerWidth/outerHeight,
// devicePixelRatio, the page area's size), and checks PageAreaOf against
// where the page area truly is. docs/locations.md "Every system" says the
// same in prose. The sources, read in chromium/chromium:
//
//   - window.screenX and outerWidth are the top-level window's bounds
//     (RenderWidgetHostImpl::SendScreenRects sends the view's
//     GetBoundsInRootWindow; LocalDOMWindow::screenX/outerWidth answer
//     ChromeClient::RootWindowRect), in DIPs.
//   - Windows: RenderWidgetHostViewAura::GetBoundsInRootWindow
//     (content/browser/renderer_host/render_widget_host_view_aura.cc,
//     8f3e25a) takes ::GetWindowRect, and for a maximized window
//     (::IsZoomed) insets it by GetSystemMetrics(SM_CXSIZEFRAME) +
//     GetSystemMetrics(SM_CXPADDEDBORDER), the system DPI's frame, then
//     converts it with ScreenWin::ScreenToDIPRect (screenToDIPRect below).
//   - Windows: BrowserDesktopWindowTreeHostWin::GetClientAreaInsets
//     (chrome/browser/ui/views/frame/browser_desktop_window_tree_host_win.cc,
//     053396a) makes the client area the window rectangle less the frame
//     thickness (ui::GetFrameThickness: SM_CXSIZEFRAME + SM_CXPADDEDBORDER
//     of the window's monitor, ui/base/win/hwnd_metrics.cc) on the left,
//     right and bottom, and at the top too when maximized (Windows
//     outdents a maximized window by that thickness on every edge).
//   - Windows: the frame is 8 pixels at 100%: "The upper left corner is
//     something like (−8, −8) and the lower right corner is correspondingly
//     eight pixels beyond the bottom right corner of the screen" (Raymond
//     Chen, "Why are the dimensions of a maximized window larger than the
//     monitor?", The Old New Thing, Microsoft, 2015-03-04). At other DPIs
//     Windows' GetSystemMetricsForDpi gives it, and no document says the
//     number: the cases run with every thickness from 8 × scale − 2 to
//     8 × scale + 1, and PageAreaOf needs none of them.
//   - macOS: RenderWidgetHostViewMac::GetBoundsInRootWindow is the
//     NSWindow's frame (RenderWidgetHostViewCocoa
//     -sendWindowFrameInScreenToHost), flipped by gfx::ScreenRectFromNSRect
//     (ui/gfx/mac/coordinate_conversion.mm) against the height of the
//     primary screen, the one with the menu bar; the display's scale is
//     NSScreen backingScaleFactor (ui/display/mac/screen_mac.mm
//     BuildDisplayForScreen), which Apple documents as 2.0 for
//     high-resolution (Retina) modes and 1.0 otherwise (NSWindow
//     backingScaleFactor). The browser window has no frame at the sides or
//     bottom: BrowserFrameViewMac::GetBoundsForClientView is the whole
//     frame (chrome/browser/ui/views/frame/browser_frame_view_mac.mm).
//
// The screens' sizes, the windows' places and the height of Chrome's top
// band are each case's own choice; the arithmetic holds for any.

// winDisplay is one monitor as Chromium's ScreenWin knows it: where it is
// in physical pixels, where its DIPs begin, and its scale factor.
type winDisplay struct {
	px    Rect // the monitor, physical pixels
	dipX  float64
	dipY  float64
	scale float64
}

// screenToDIPRect is ScreenWin::ScreenToDIPRect (ui/display/win/screen_win.cc,
// f24a8e1): the origin is the display's DIP origin plus the offset from
// its pixel origin over the scale, floored; the size is that of the
// rectangle's enclosing rectangle at 1/scale (ScaleToEnclosingRect).
func screenToDIPRect(r Rect, d winDisplay) Rect {
	x := math.Floor(d.dipX + (r.X-d.px.X)/d.scale)
	y := math.Floor(d.dipY + (r.Y-d.px.Y)/d.scale)
	w := math.Ceil((r.X+r.Width)/d.scale) - math.Floor(r.X/d.scale)
	h := math.Ceil((r.Y+r.Height)/d.scale) - math.Floor(r.Y/d.scale)
	return Rect{X: x, Y: y, Width: w, Height: h}
}

// toDIP maps a rectangle of physical pixels on d to DIPs, unrounded: where
// it truly is in Chrome's screen points.
func toDIP(r Rect, d winDisplay) Rect {
	return Rect{X: d.dipX + (r.X-d.px.X)/d.scale, Y: d.dipY + (r.Y-d.px.Y)/d.scale, Width: r.Width / d.scale, Height: r.Height / d.scale}
}

// inset shrinks r by l, t, rt, b.
func inset(r Rect, l, t, rt, b float64) Rect {
	return Rect{X: r.X + l, Y: r.Y + t, Width: r.Width - l - rt, Height: r.Height - t - b}
}

// cssSize is the page area's size as cdpprovider reads it: CSS pixels to
// 1/64 (the media-query bisection).
func cssSize(points, zoom float64) float64 { return math.Round(points/zoom*64) / 64 }

// windowsPage is a Windows case: what the page reports of a window whose
// window rectangle is windowRect on d, its page area's height in
// physical pixels, and where that page area truly is in DIPs.
func windowsPage(d winDisplay, windowRect Rect, frame, systemFrame float64, maximized bool, pageHeightPx, zoom float64) (WindowMetrics, Rect) {
	root := windowRect // RenderWidgetHostViewAura::GetBoundsInRootWindow
	if maximized {
		root = inset(root, systemFrame, systemFrame, systemFrame, systemFrame)
	}
	bounds := screenToDIPRect(root, d)
	top := 0.0 // GetClientAreaInsets: no top inset unless maximized
	if maximized {
		top = frame
	}
	client := inset(windowRect, frame, top, frame, frame)
	page := Rect{X: client.X, Y: client.Y + client.Height - pageHeightPx, Width: client.Width, Height: pageHeightPx}
	truth := toDIP(page, d)
	return WindowMetrics{
		ScreenX: bounds.X, ScreenY: bounds.Y, OuterWidth: bounds.Width, OuterHeight: bounds.Height,
		Width: cssSize(truth.Width, zoom), Height: cssSize(truth.Height, zoom),
		Zoom: zoom, Scale: d.scale, // devicePixelRatio / zoom: the monitor's scale
	}, truth
}

// frames are the frame thicknesses tried at a scale: the 100% eight
// pixels scaled, and around it (Windows' own per-DPI numbers are not
// documented).
func frames(scale float64) []float64 {
	f := math.Round(8 * scale)
	return []float64{f - 2, f - 1, f, f + 1}
}

// A maximized window on Windows 10/11: its window rectangle hangs the
// frame's thickness off every edge of the work area, and the invisible
// borders are not part of what the page reports.
func TestPageAreaOfMaximizedOnWindows(t *testing.T) {
	primary := winDisplay{px: Rect{X: 0, Y: 0, Width: 1920, Height: 1080}, scale: 1}
	t.Run("100%", func(t *testing.T) {
		// The work area is the monitor less a 40-pixel taskbar at the
		// bottom (the case's choice). Windows puts the maximized window at
		// (−8, −8), 16 pixels wider and taller than the work area.
		work := Rect{X: 0, Y: 0, Width: 1920, Height: 1040}
		window := inset(work, -8, -8, -8, -8)
		if window.X != -8 || window.Y != -8 {
			t.Fatalf("window rectangle %+v, want it at (-8,-8)", window)
		}
		m, truth := windowsPage(primary, window, 8, 8, true, 960, 1)
		// Chrome takes the frame off again: the page says it is at (0,0),
		// the work area's size.
		if want := (WindowMetrics{ScreenX: 0, ScreenY: 0, OuterWidth: 1920, OuterHeight: 1040}); m.ScreenX != want.ScreenX || m.ScreenY != want.ScreenY || m.OuterWidth != want.OuterWidth || m.OuterHeight != want.OuterHeight {
			t.Errorf("the page reports %+v, want screenX/Y 0, outer 1920x1040", m)
		}
		checkPageArea(t, m, truth, 0, 0)
		if truth.X != 0 || truth.Y != 80 {
			t.Errorf("the page area is at (%v,%v), want (0,80): the work area's bottom less 960", truth.X, truth.Y)
		}
	})
	t.Run("150% second monitor, 100% system DPI", func(t *testing.T) {
		// A 150% monitor right of the primary, top edges aligned: Chromium
		// lays the displays out touching in DIPs (DisplayInfosToScreenWinDisplays,
		// the primary at the root), so its DIPs begin at (1920, 0) while
		// its pixels begin at (1920, 0) too, and its 2880 pixels are 1920
		// DIPs. Chrome takes off the system DPI's frame (8 pixels) while
		// Windows outdented the window by this monitor's: screenX and
		// outerWidth are off, by the same amount on each side.
		second := winDisplay{px: Rect{X: 1920, Y: 0, Width: 2880, Height: 1620}, dipX: 1920, scale: 1.5}
		for _, frame := range frames(1.5) {
			window := inset(second.px, -frame, -frame, -frame, -frame)
			m, truth := windowsPage(second, window, frame, 8, true, 1500, 1)
			t.Run(fmt.Sprintf("frame %v px", frame), func(t *testing.T) {
				if m.ScreenX == truth.X {
					t.Errorf("screenX %v is the page area's left: the case does not have Chrome's inset differ from Windows' outdent", m.ScreenX)
				}
				checkPageArea(t, m, truth, 0, 0)
				if truth.X != 1920 || truth.Y != 80 {
					t.Errorf("the page area is at (%v,%v), want (1920,80)", truth.X, truth.Y)
				}
			})
		}
	})
}

// A window at 150% on Windows, not maximized: the frame's invisible
// borders are left, right and bottom, and the page reports whole DIPs of
// a window whose pixels need not divide by 1.5.
func TestPageAreaOfWindowsAt150(t *testing.T) {
	monitor := winDisplay{px: Rect{X: 0, Y: 0, Width: 2880, Height: 1620}, scale: 1.5}
	for _, frame := range frames(1.5) {
		t.Run(fmt.Sprintf("frame %v px, whole DIPs", frame), func(t *testing.T) {
			// At (300,150) px, 1512x1068 px: 200,100 and 1008x712 DIPs.
			window := Rect{X: 300, Y: 150, Width: 1512, Height: 1068}
			m, truth := windowsPage(monitor, window, frame, frame, false, 900, 1)
			if m.ScreenX != 200 || m.ScreenY != 100 || m.OuterWidth != 1008 || m.OuterHeight != 712 {
				t.Errorf("the page reports %+v, want (200,100) 1008x712", m)
			}
			checkPageArea(t, m, truth, 0, 0)
		})
		t.Run(fmt.Sprintf("frame %v px, page zoom 125%%", frame), func(t *testing.T) {
			window := Rect{X: 300, Y: 150, Width: 1512, Height: 1068}
			m, truth := windowsPage(monitor, window, frame, frame, false, 900, 1.25)
			checkPageArea(t, m, truth, 0, 0)
		})
	}
	// Anywhere else, screenX and outerWidth are rounded to whole DIPs
	// (floored origin, enclosing size): the page area comes out within
	// half a DIP across and one DIP down, never more.
	worstX, worstY := 0.0, 0.0
	for x := 300.0; x < 303; x++ {
		for y := 150.0; y < 153; y++ {
			for w := 1512.0; w < 1515; w++ {
				for h := 1068.0; h < 1071; h++ {
					for _, frame := range frames(1.5) {
						m, truth := windowsPage(monitor, Rect{X: x, Y: y, Width: w, Height: h}, frame, frame, false, 900, 1)
						got := PageAreaOf(m)
						worstX = math.Max(worstX, math.Abs(got.X-truth.X))
						worstY = math.Max(worstY, math.Abs(got.Y-truth.Y))
					}
				}
			}
		}
	}
	if worstX >= 0.5 || worstY >= 1 {
		t.Errorf("worst error %.3f DIP across, %.3f down; want under 0.5 and 1", worstX, worstY)
	}
	t.Logf("worst error at 150%%: %.3f DIP across, %.3f down", worstX, worstY)
}

// screenRectFromNSRect is gfx::ScreenRectFromNSRect: AppKit's screen
// coordinates have their origin at the bottom left of the primary screen,
// y up; Chrome's at its top left, y down.
func screenRectFromNSRect(primaryHeight float64, r Rect) Rect {
	return Rect{X: r.X, Y: primaryHeight - r.Y - r.Height, Width: r.Width, Height: r.Height}
}

// macOS: a Retina screen (the primary, with the menu bar) and a
// non-Retina one to its right. Points are one space over both screens;
// only the pixels under them differ.
func TestPageAreaOfMacOSRetinaBesideNonRetina(t *testing.T) {
	// NSScreen frames, in points: a 1440x900 Retina screen (scale 2) at
	// the origin, and a 1920x1080 screen of scale 1 right of it, top edges
	// aligned (AppKit's y grows upwards: its origin is at 900 − 1080).
	const primaryHeight = 900
	retina := Rect{X: 0, Y: 0, Width: 1440, Height: 900}
	plain := Rect{X: 1440, Y: -180, Width: 1920, Height: 1080}
	if got := screenRectFromNSRect(primaryHeight, plain); got != (Rect{X: 1440, Y: 0, Width: 1920, Height: 1080}) {
		t.Fatalf("the second screen in Chrome's coordinates: %+v", got)
	}
	for _, c := range []struct {
		name   string
		screen Rect
		scale  float64 // backingScaleFactor
		frame  Rect    // the NSWindow's frame, AppKit's coordinates
		zoom   float64
		page   float64 // the page area's height, points: below Chrome's top band
		want   Rect    // the page area, Chrome's screen points
		pixel  [2]float64
	}{
		{
			name: "on the non-Retina screen", screen: plain, scale: 1,
			frame: Rect{X: 1640, Y: 80, Width: 1200, Height: 800}, zoom: 1, page: 720,
			want:  Rect{X: 1640, Y: 100, Width: 1200, Height: 720},
			pixel: [2]float64{200, 100}, // from that screen's top left, one pixel a point
		},
		{
			// At 125% page zoom devicePixelRatio is 2.5 and a page area
			// can end on a half point: a whole number of Retina pixels.
			name: "on the Retina screen, 125%", screen: retina, scale: 2,
			frame: Rect{X: 100, Y: 50, Width: 1000, Height: 700}, zoom: 1.25, page: 612.5,
			want:  Rect{X: 100, Y: 237.5, Width: 1000, Height: 612.5},
			pixel: [2]float64{200, 475}, // two pixels a point
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			win := screenRectFromNSRect(primaryHeight, c.frame)
			m := WindowMetrics{
				ScreenX: win.X, ScreenY: win.Y, OuterWidth: win.Width, OuterHeight: win.Height,
				// No frame at the sides or bottom: the page is as wide as
				// the window, and ends at its bottom.
				Width: cssSize(win.Width, c.zoom), Height: cssSize(c.page, c.zoom),
				Zoom: c.zoom, Scale: c.scale, // devicePixelRatio (scale × zoom) / zoom
			}
			truth := Rect{X: win.X, Y: win.Y + win.Height - c.page, Width: win.Width, Height: c.page}
			if !near(truth, c.want) {
				t.Fatalf("the case's page area %+v, want %+v", truth, c.want)
			}
			checkPageArea(t, m, truth, 0, 0)
			// A host that wants the screen's pixels: the offset from the
			// screen's top left in Chrome's coordinates, times its scale.
			s := screenRectFromNSRect(primaryHeight, c.screen)
			a := PageAreaOf(m)
			if px, py := (a.X-s.X)*c.scale, (a.Y-s.Y)*c.scale; px != c.pixel[0] || py != c.pixel[1] {
				t.Errorf("the page area's pixel on its screen (%v,%v), want %v", px, py, c.pixel)
			}
		})
	}
}

// checkPageArea compares PageAreaOf(m) with the true page area, within dx
// and dy, and its mapping of a box in CSS pixels.
func checkPageArea(t *testing.T, m WindowMetrics, truth Rect, dx, dy float64) {
	t.Helper()
	const eps = 1e-9
	got := PageAreaOf(m)
	if math.Abs(got.X-truth.X) > dx+eps || math.Abs(got.Y-truth.Y) > dy+eps {
		t.Errorf("PageAreaOf(%+v) = (%v,%v), want the page area at (%v,%v)", m, got.X, got.Y, truth.X, truth.Y)
	}
	box := Rect{X: 100, Y: 50, Width: 200, Height: 100}
	want := Rect{X: truth.X + box.X*m.Zoom, Y: truth.Y + box.Y*m.Zoom, Width: box.Width * m.Zoom, Height: box.Height * m.Zoom}
	if s := got.ToScreen(box); math.Abs(s.X-want.X) > dx+eps || math.Abs(s.Y-want.Y) > dy+eps || s.Width != want.Width || s.Height != want.Height {
		t.Errorf("ToScreen(%+v) = %+v, want %+v", box, s, want)
	}
}
