package cdp

import (
	"context"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// atPage has controls, a link whose text is a child of it, text in a
// paragraph, a same-site and a cross-site iframe (an out-of-process frame:
// 127.0.0.1 and localhost are two sites) with a border and padding.
func atPage(t *testing.T) string {
	inner := `<!doctype html><title>Inner</title><body style="margin:8px">
<button style="width:120px;height:40px">Inner button</button><p><a href="#x">Inner link text</a></p></body>`
	url := serve(t, map[string]string{
		"/inner.html": inner,
	})
	cross := strings.Replace(url, "127.0.0.1", "localhost", 1)
	return serve(t, map[string]string{
		"/at.html": `<!doctype html><title>At</title><body style="margin:10px">
<h1>Heading at the top</h1>
<p>Some text, then <a href="#a">a link in the text</a> and more.</p>
<button style="width:160px;height:50px">Order</button>
<input aria-label="Name" value="Ada" style="width:200px">
<iframe title="Same" src="/inner.html" style="width:300px;height:140px;border:7px solid gray;padding:5px"></iframe>
<iframe title="Cross" src="` + cross + `/inner.html" style="width:300px;height:140px;border:7px solid gray;padding:5px"></iframe>
</body>`,
		"/inner.html": inner,
	}) + "/at.html"
}

// At the centre of every element the page shows, at least 4 by 4 points,
// is that element or one inside it; in both iframes too, the cross-site
// one answered by its own process.
func TestAtEveryElement(t *testing.T) {
	ctx, _, p := browserWith(t, atPage(t))
	var cur *mapping.Current
	if err := waitFor(ctx, func() bool {
		c, err := p.Current(ctx)
		if err != nil {
			return false
		}
		cur = c
		return len(elementsOf(c.Root, func(e *mapping.Element) bool { return e.Title == "Inner link text" && e.Role == "Link" })) == 2
	}); err != nil {
		t.Fatalf("the two iframes' documents were not read: %v", err)
	}
	parent := map[string]string{}
	var all []*mapping.Element
	var visit func(e *mapping.Element)
	visit = func(e *mapping.Element) {
		all = append(all, e)
		for _, c := range e.Children {
			parent[c.ID] = e.ID
			visit(c)
		}
	}
	visit(cur.Root)
	inside := func(id, of string) bool {
		for ; id != ""; id = parent[id] {
			if id == of {
				return true
			}
		}
		return false
	}
	checked := map[string]int{}
	for _, e := range all {
		if e.Role == "Application" || e.Role == "Window" || e.Role == "TabList" || e.Role == "Tab" {
			continue
		}
		loc, err := p.Locate(ctx, e.ID)
		if err != nil || loc.State != mapping.OnScreen || loc.Visible == nil || loc.Visible.Width < 4 || loc.Visible.Height < 4 {
			continue
		}
		v := loc.Visible
		x, y := v.X+v.Width/2, v.Y+v.Height/2
		h, err := p.At(ctx, x, y)
		if err != nil {
			t.Fatalf("at %v,%v (the centre of %s %q): %v", x, y, e.Role, e.Title, err)
		}
		checked[e.Role]++
		if h.Where != mapping.InPage || h.Match.Element == nil || !inside(h.Match.Element.ID, e.ID) {
			got := "nothing"
			if h.Match.Element != nil {
				got = h.Match.Element.Role + " " + h.Match.Element.Title
			}
			t.Errorf("at %v,%v, the centre of %s %q (%s): %s %s, want it or an element inside it", x, y, e.Role, e.Title, e.ID, h.Where, got)
		}
	}
	t.Logf("checked: %v", checked)
	p.mu.Lock()
	sessions := len(p.state.sessions)
	p.mu.Unlock()
	if sessions < 2 {
		t.Errorf("the provider has %d session, want the tab's and the cross-site frame's", sessions)
	}
	for _, role := range []string{"Button", "Link", "TextField", "Heading", "Document"} {
		if checked[role] == 0 {
			t.Errorf("no %s was checked", role)
		}
	}
}

// Off every window, at says so.
func TestAtOffEveryWindow(t *testing.T) {
	ctx, _, p := browserWith(t, atPage(t))
	for _, pt := range [][2]float64{{-50, -50}, {100000, 100000}} {
		h, err := p.At(ctx, pt[0], pt[1])
		if err != nil {
			t.Fatal(err)
		}
		if h.Where != mapping.OffWindows || h.Match.Element != nil {
			t.Errorf("at %v: %s %v, want none", pt, h.Where, h.Match.Element)
		}
	}
	if _, err := p.At(context.Background(), 0, nanOf()); err == nil {
		t.Error("at NaN: no error")
	}
}

func nanOf() float64 { var z float64; return z / z }
