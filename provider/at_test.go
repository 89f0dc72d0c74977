package provider

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// at prints what is at the point: a line, or with JSON one object; a
// point on no window is an answer. A read that fails is the error, with
// its advice.
func TestAt(t *testing.T) {
	quiet := slog.New(slog.DiscardHandler)
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Command: At, Point: []float64{10, 20.5}}, "at 10,20.5: the frame of Window Harbor Books: checkout #w1 in: Application Chromium\n"},
		{Config{Command: At, Point: []float64{-1, 5}}, "at -1,5: no window of the browser is there\n"},
		{Config{Command: At, Point: []float64{10, 20}, JSON: true},
			`{"x":10,"y":20,"where":"window-frame","element":{"id":"w1","role":"Window","title":"Harbor Books: checkout","in":[{"role":"Application","title":"Chromium"}]}}` + "\n"},
		{Config{Command: At, Point: []float64{-1, -1}, JSON: true}, `{"x":-1,"y":-1,"where":"none"}` + "\n"},
	} {
		var out bytes.Buffer
		if err := at(context.Background(), c.cfg, &fakeSource{}, &out, quiet); err != nil {
			t.Fatalf("%+v: %v", c.cfg, err)
		}
		if out.String() != c.want {
			t.Errorf("%v json=%v: %q, want %q", c.cfg.Point, c.cfg.JSON, out.String(), c.want)
		}
	}
	boom := errors.New("boom")
	var out bytes.Buffer
	err := at(context.Background(), Config{Command: At, Point: []float64{1, 2}}, &failingSource{err: boom}, &out, quiet)
	if !errors.Is(err, boom) || out.Len() != 0 {
		t.Errorf("a failing read: %v, printed %q", err, out.String())
	}
}

// The point is for at only, and at needs one.
func TestAtConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Command: At}, "at needs the point X Y"},
		{Config{Command: At, Point: []float64{1}}, "at needs the point X Y"},
		{Config{Command: At, Point: []float64{1, 2}, NoLocate: true}, "leave out --no-locate"},
		{Config{Command: Current, Point: []float64{1, 2}}, "a point is for at only"},
	} {
		if err := c.cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	if err := (Config{Command: At, Point: []float64{1, 2}, JSON: true}).Validate(); err != nil {
		t.Errorf("at with a point and --json: %v", err)
	}
}
