package picture

import (
	"image"
	"image/color"
	"image/draw"
	"strings"
	"testing"
)

// grey is the synthetic screenshot's colour, which no frame or label has.
var grey = color.RGBA{R: 200, G: 200, B: 200, A: 255}

// shot is a synthetic screenshot: w×h of grey.
func shot(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(grey), image.Point{}, draw.Src)
	return img
}

// wantAt checks the colour of pixels.
func wantAt(t *testing.T, img *image.RGBA, what string, c color.RGBA, pts ...image.Point) {
	t.Helper()
	for _, p := range pts {
		if got := img.RGBAAt(p.X, p.Y); got != c {
			t.Errorf("%s: pixel %v = %v, want %v", what, p, got, c)
		}
	}
}

func TestFrameEdges(t *testing.T) {
	in := shot(200, 100)
	out, _ := Draw(in, []Frame{{Rect: image.Rect(20, 30, 120, 80), Label: "a1 Button"}}, 2)
	wantAt(t, out, "the frame's edges, two pixels wide, inside the rectangle", FrameColor,
		image.Pt(20, 55), image.Pt(21, 55), // left
		image.Pt(118, 55), image.Pt(119, 55), // right
		image.Pt(70, 30), image.Pt(70, 31), // top
		image.Pt(70, 78), image.Pt(70, 79), // bottom
	)
	wantAt(t, out, "beside and inside the frame", grey,
		image.Pt(19, 55), image.Pt(22, 55), image.Pt(120, 55), image.Pt(117, 55),
		image.Pt(70, 32), image.Pt(70, 77), image.Pt(70, 80), image.Pt(70, 55))
	if in.RGBAAt(20, 55) != grey {
		t.Error("Draw changed the image it was given")
	}
}

func TestFocusedAndHoveredColours(t *testing.T) {
	out, _ := Draw(shot(300, 200), []Frame{
		{Rect: image.Rect(20, 40, 80, 100), Label: "f Focused", Focused: true},
		{Rect: image.Rect(120, 40, 180, 100), Label: "h Hovered", Hovered: true},
		{Rect: image.Rect(220, 40, 280, 100), Label: "b Both", Focused: true, Hovered: true},
		// A plain frame given after the focused one, sharing its left
		// edge: the focused frame is drawn on top.
		{Rect: image.Rect(20, 60, 60, 140), Label: "p Plain"},
	}, 3)
	wantAt(t, out, "focused", FocusedColor, image.Pt(20, 70), image.Pt(22, 70), image.Pt(79, 70))
	wantAt(t, out, "hovered", HoveredColor, image.Pt(120, 70), image.Pt(179, 70))
	wantAt(t, out, "both: focused outside", FocusedColor, image.Pt(220, 70), image.Pt(222, 70), image.Pt(279, 70))
	wantAt(t, out, "both: hovered just inside", HoveredColor, image.Pt(223, 70), image.Pt(225, 70), image.Pt(276, 70))
	wantAt(t, out, "the plain frame, below the focused one", FrameColor, image.Pt(20, 120), image.Pt(59, 120))
	wantAt(t, out, "inside", grey, image.Pt(50, 70), image.Pt(150, 70), image.Pt(250, 70))
}

func TestLabels(t *testing.T) {
	out, labels := Draw(shot(300, 200), []Frame{{Rect: image.Rect(40, 60, 200, 120), Label: "3nE2Dn Button"}}, 2)
	r := labels[0]
	if want := LabelSize("3nE2Dn Button"); r.Size() != want || r.Min != image.Pt(40, 60-want.Y) {
		t.Fatalf("label at %v, want %v just above the frame's top-left corner", r, image.Rectangle{Min: image.Pt(40, 60-want.Y), Max: image.Pt(40, 60).Add(image.Pt(want.X, 0))})
	}
	wantAt(t, out, "the label's background", FrameColor, r.Min, r.Max.Sub(image.Pt(1, 1)))
	if n := count(out, r, LabelTextColor); n < 20 {
		t.Errorf("%d white pixels in the label, want its text", n)
	}
}

func TestLabelsInsideTheImage(t *testing.T) {
	const w, h = 200, 100
	frames := []Frame{
		{Rect: image.Rect(150, -10, 260, 40), Label: "t1 TopRightCorner"},            // past the top and right edges
		{Rect: image.Rect(-30, 70, 20, 130), Label: "b1 BottomLeft"},                 // past the left and bottom edges
		{Rect: image.Rect(10, 40, 60, 60), Label: "long " + strings.Repeat("x", 60)}, // wider than the image
		{Rect: image.Rect(300, 300, 320, 320), Label: "o1 Outside"},                  // wholly outside
	}
	out, labels := Draw(shot(w, h), frames, 2)
	bounds := out.Bounds()
	for i, r := range labels[:3] {
		if r.Empty() {
			t.Errorf("frame %d (%s): no label", i, frames[i].Label)
			continue
		}
		if !r.In(bounds) {
			t.Errorf("frame %d (%s): label at %v, outside the image %v", i, frames[i].Label, r, bounds)
		}
		if n := count(out, r, LabelTextColor); n == 0 {
			t.Errorf("frame %d (%s): no text in its label", i, frames[i].Label)
		}
	}
	if labels[2].Dx() > w {
		t.Errorf("the long label is %d pixels wide, more than the image", labels[2].Dx())
	}
	if !labels[3].Empty() {
		t.Errorf("a frame wholly outside the image has a label at %v", labels[3])
	}
}

func TestClippedAtTheImageEdges(t *testing.T) {
	out, _ := Draw(shot(100, 100), []Frame{{Rect: image.Rect(-50, 60, 50, 150)}}, 2)
	// The right edge and the top edge are in the image, the left and the
	// bottom are not: they are not drawn at the image's border.
	wantAt(t, out, "the edges inside the image", FrameColor, image.Pt(48, 80), image.Pt(49, 99), image.Pt(0, 60), image.Pt(20, 61))
	wantAt(t, out, "the image's border where the frame's edges are outside", grey, image.Pt(0, 80), image.Pt(1, 99), image.Pt(20, 99), image.Pt(20, 98))
	// A frame wholly outside changes nothing.
	before := shot(100, 100)
	after, _ := Draw(before, []Frame{{Rect: image.Rect(120, 10, 200, 50), Label: "x Button"}}, 2)
	if n := count(after, after.Bounds(), grey); n != 100*100 {
		t.Errorf("a frame wholly outside the image changed %d pixels", 100*100-n)
	}
}

func TestCoveringLabelsLeftOut(t *testing.T) {
	r := image.Rect(50, 50, 150, 150)
	frames := []Frame{{Rect: r, Label: "a Group"}, {Rect: r, Label: "b Group"}, {Rect: r, Label: "c Group"}, {Rect: r, Label: "d Group"}}
	_, labels := Draw(shot(300, 300), frames, 2)
	for i, l := range labels[:3] {
		if l.Empty() {
			t.Fatalf("label %d left out; three places fit: %v", i, labels)
		}
		for j := range i {
			if l.Overlaps(labels[j]) {
				t.Errorf("labels %d and %d overlap: %v, %v", j, i, labels[j], l)
			}
		}
	}
	if !labels[3].Empty() {
		t.Errorf("the fourth label, with no place left, is at %v", labels[3])
	}

	// The focused element's label is placed first, whatever its order.
	frames[3].Focused = true
	_, labels = Draw(shot(300, 300), frames, 2)
	if want := r.Min.Y - LabelSize("d Group").Y; labels[3].Min.Y != want {
		t.Errorf("the focused frame's label at %v, want the first place, above the frame", labels[3])
	}
}

// count returns how many pixels of r have the colour c.
func count(img *image.RGBA, r image.Rectangle, c color.RGBA) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) == c {
				n++
			}
		}
	}
	return n
}
