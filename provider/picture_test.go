package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/cdpprovider/cdpprovider/picture"
)

// pictureFake answers locate from a table and gives a grey screenshot of
// a size of its own.
type pictureFake struct {
	at      map[string]*mapping.Location
	shot    image.Point
	located []string
}

func (f *pictureFake) Locate(ctx context.Context, id string) (*mapping.Location, error) {
	f.located = append(f.located, id)
	l, ok := f.at[id]
	if !ok {
		return nil, fmt.Errorf("%w: no box", mapping.ErrCannotPlace)
	}
	return l, nil
}

func (f *pictureFake) Screenshot(ctx context.Context, doc string) ([]byte, error) {
	img := image.NewRGBA(image.Rectangle{Max: f.shot})
	draw.Draw(img, img.Bounds(), image.NewUniform(shotGrey), image.Point{}, draw.Src)
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes(), nil
}

var shotGrey = color.RGBA{R: 200, G: 200, B: 200, A: 255}

func onscreen(x, y, w, h float64) *mapping.Location {
	r := &mapping.Rect{X: x, Y: y, Width: w, Height: h}
	return &mapping.Location{State: mapping.OnScreen, Frame: r, Visible: r}
}

// doc is an answer whose focused window shows a Document with children.
func docAnswer(children ...*mapping.Element) *mapping.Current {
	return &mapping.Current{Root: &mapping.Element{ID: ".a", Role: "Application", Children: []*mapping.Element{
		{ID: ".w0", Role: "Window", Children: []*mapping.Element{{ID: ".d0", Role: "Document"}}}, // not focused
		{ID: ".w1", Role: "Window", States: []string{"focused"}, Children: []*mapping.Element{
			{ID: ".t", Role: "TabList"},
			{ID: ".d1", Role: "Document", States: []string{"focused"}, Children: children},
		}},
	}}}
}

// The frames of the elements on screen, from screen points to the
// screenshot's pixels: less the Document's origin on screen, times the
// pixels per point; the focused and hovered ones in their colours;
// nothing for an element offscreen or without a place.
func TestTakePicture(t *testing.T) {
	f := &pictureFake{
		shot: image.Pt(800, 600), // 2 pixels per point
		at: map[string]*mapping.Location{
			".d1": onscreen(100, 50, 400, 300),
			"b1":  onscreen(150, 100, 100, 50), // pixels (100,100)-(300,200)
			"f1":  onscreen(300, 250, 100, 20), // (400,400)-(600,440)
			"h1":  onscreen(110, 300, 50, 40),  // (20,500)-(120,580)
			"o1":  {State: mapping.OffScreen, Frame: &mapping.Rect{X: 350, Y: 100, Width: 100, Height: 50}},
		},
	}
	cur := docAnswer(
		&mapping.Element{ID: "b1", Role: "Button"},
		&mapping.Element{ID: "f1", Role: "TextField", States: []string{"focused"}},
		&mapping.Element{ID: "h1", Role: "Link", States: []string{"hovered"}},
		&mapping.Element{ID: "o1", Role: "Button"},
		&mapping.Element{ID: "x1", Role: "Text"}, // cannot be placed
	)
	img, drawn, err := takePicture(context.Background(), f, cur)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Size() != f.shot {
		t.Fatalf("picture of %v, want the screenshot's %v", img.Bounds().Size(), f.shot)
	}
	for _, c := range []struct {
		what string
		at   image.Point
		want color.Color
	}{
		{"b1's left edge", image.Pt(100, 150), picture.FrameColor},
		{"b1's left edge, 4 pixels wide (2 points)", image.Pt(103, 150), picture.FrameColor},
		{"left of b1", image.Pt(99, 150), shotGrey},
		{"inside b1", image.Pt(104, 150), shotGrey},
		{"b1's bottom edge", image.Pt(200, 199), picture.FrameColor},
		{"below b1", image.Pt(200, 200), shotGrey},
		{"f1's right edge (focused)", image.Pt(599, 420), picture.FocusedColor},
		{"h1's left edge (hovered)", image.Pt(20, 540), picture.HoveredColor},
		{"where o1 would be (offscreen)", image.Pt(500, 150), shotGrey},
		{"the Document's left edge, at the picture's", image.Pt(0, 300), picture.FrameColor},
	} {
		if got := color.RGBAModel.Convert(img.At(c.at.X, c.at.Y)); got != c.want {
			t.Errorf("%s: pixel %v = %v, want %v", c.what, c.at, got, c.want)
		}
	}
	if drawn.framed != 4 || drawn.left != 0 {
		t.Errorf("drawn %+v, want 4 frames (the Document, b1, f1, h1), none left", drawn)
	}
	if f.located[0] != ".d1" || f.located[1] != "f1" || f.located[2] != "h1" {
		t.Errorf("located %v, want the Document, then the focused element, then the hovered one", f.located)
	}
}

// A picture locates at most maxLocated elements (the focused one among
// them, wherever it is), and none in an iframe's Document that is not on
// screen.
func TestTakePictureBounded(t *testing.T) {
	f := &pictureFake{shot: image.Pt(400, 300), at: map[string]*mapping.Location{".d1": onscreen(0, 0, 400, 300)}}
	hidden := &mapping.Element{ID: ".d2", Role: "Document", Children: []*mapping.Element{{ID: "in1", Role: "Button"}}}
	f.at[".d2"] = &mapping.Location{State: mapping.OffScreen}
	f.at["in1"] = onscreen(10, 10, 10, 10)
	kids := []*mapping.Element{hidden}
	for i := range maxLocated + 500 {
		id := fmt.Sprintf("e%d", i)
		kids = append(kids, &mapping.Element{ID: id, Role: "Button"})
		f.at[id] = onscreen(float64(i%40)*10, float64(i/40%30)*10, 8, 8)
	}
	last := kids[len(kids)-1]
	last.States = []string{"focused"}
	_, drawn, err := takePicture(context.Background(), f, docAnswer(kids...))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.located) != maxLocated+1 || drawn.located != maxLocated {
		t.Errorf("%d locates (%d for elements), want the Document and %d", len(f.located), drawn.located, maxLocated)
	}
	if f.located[1] != last.ID {
		t.Errorf("second locate %s, want the focused element %s", f.located[1], last.ID)
	}
	for _, id := range f.located {
		if id == "in1" {
			t.Error("an element of an iframe's Document offscreen was located")
		}
	}
	// Left: of the buttons, those past the bound (it went to the focused
	// one, the iframe's Document and the first maxLocated-2 buttons), less
	// the focused one, located first.
	if want := (maxLocated + 500) - (maxLocated - 2) - 1; drawn.left != want {
		t.Errorf("%d elements left, want %d", drawn.left, want)
	}
}

// No picture of a tab that is not on screen, nor when no window shows one;
// a failure of the browser is the picture's failure.
func TestTakePictureFails(t *testing.T) {
	f := &pictureFake{shot: image.Pt(10, 10), at: map[string]*mapping.Location{".d1": {State: mapping.OffScreen}}}
	if _, _, err := takePicture(context.Background(), f, docAnswer()); err == nil {
		t.Error("a picture of a tab offscreen")
	}
	if _, _, err := takePicture(context.Background(), f, &mapping.Current{Root: &mapping.Element{ID: ".a", Role: "Application"}}); err == nil {
		t.Error("a picture with no tab")
	}
	gone := &failingLocate{pictureFake{shot: image.Pt(10, 10), at: map[string]*mapping.Location{".d1": onscreen(0, 0, 10, 10)}}}
	if _, _, err := takePicture(context.Background(), gone, docAnswer(&mapping.Element{ID: "b1", Role: "Button"})); err == nil {
		t.Error("no error when the browser went away during the locates")
	}
}

// failingLocate fails every locate but the Document's, as a browser that
// went away.
type failingLocate struct{ pictureFake }

func (f *failingLocate) Locate(ctx context.Context, id string) (*mapping.Location, error) {
	if id == ".d1" {
		return f.pictureFake.Locate(ctx, id)
	}
	return nil, errors.New("the browser went away")
}

// The picture replaces the file whole, and leaves no temporary file.
func TestWritePicture(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(file, []byte("an older picture"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := &pictureFake{shot: image.Pt(40, 30), at: map[string]*mapping.Location{".d1": onscreen(0, 0, 40, 30)}}
	if _, err := writePicture(context.Background(), f, docAnswer(), file); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Size() != image.Pt(40, 30) {
		t.Fatalf("the file is not the picture: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files left beside the picture: %v", entries)
	}
}
