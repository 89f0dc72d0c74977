package provider

import (
	"context"
	"log/slog"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// oneTab is an Application whose one window shows doc in its selected
// tab, of http://a.test/.
func oneTab(doc *mapping.Element) *mapping.Element {
	return &mapping.Element{Role: "Application", Children: []*mapping.Element{{Role: "Window", Children: []*mapping.Element{
		{Role: "TabList", Children: []*mapping.Element{{Role: "Tab", URL: "http://a.test/", States: []string{"selected"}}}},
		doc,
	}}}}
}

func TestSettled(t *testing.T) {
	for _, c := range []struct {
		what string
		doc  *mapping.Element
		want bool
	}{
		{"loaded", &mapping.Element{Role: "Document", URL: "http://a.test/"}, true},
		{"busy", &mapping.Element{Role: "Document", URL: "http://a.test/", States: []string{"busy"}}, false},
		{"the initial empty document", &mapping.Element{Role: "Document", URL: "about:blank"}, false},
		{"not responding yet", &mapping.Element{Role: "Document", URL: "http://a.test/", Description: mapping.NotResponding}, false},
		{"crashed: never loads", &mapping.Element{Role: "Document", URL: "http://a.test/", Description: mapping.Crashed}, true},
	} {
		if got := settled(oneTab(c.doc)); got != c.want {
			t.Errorf("%s: settled = %v, want %v", c.what, got, c.want)
		}
	}
}

// readsSource answers each read of current with the next of its
// Documents (the last one again when they run out), and counts the reads.
type readsSource struct {
	fakeSource
	docs  []*mapping.Element
	reads int
}

func (r *readsSource) Current(ctx context.Context) (*mapping.Current, error) {
	d := r.docs[min(r.reads, len(r.docs)-1)]
	r.reads++
	return &mapping.Current{Protocol: mapping.Protocol, Root: oneTab(d)}, nil
}

// current --launch with URLs prints a read begun after one that saw the
// pages loaded: a read takes the page's focus before its tree, so the
// first loaded read can show the page loaded with its focus from before
// its scripts ran.
func TestCurrentPrintsAReadBegunAfterTheLoad(t *testing.T) {
	busy := &mapping.Element{Role: "Document", URL: "http://a.test/", States: []string{"busy"}}
	loadedUnfocused := &mapping.Element{Role: "Document", Title: "first", URL: "http://a.test/"}
	loaded := &mapping.Element{Role: "Document", Title: "second", URL: "http://a.test/"}
	quiet := slog.New(slog.DiscardHandler)
	cfg := Config{Launch: true, URLs: []string{"http://a.test/"}}
	for _, c := range []struct {
		what      string
		docs      []*mapping.Element
		wantReads int
	}{
		{"loaded at the first read", []*mapping.Element{loadedUnfocused, loaded}, 2},
		{"busy, then loaded", []*mapping.Element{busy, busy, loadedUnfocused, loaded}, 4},
		{"loaded, busy again (a script navigated), then loaded", []*mapping.Element{busy, loadedUnfocused, busy, loadedUnfocused, loaded}, 5},
	} {
		src := &readsSource{docs: c.docs}
		cur, err := readOnce(context.Background(), cfg, src, quiet)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if got := cur.Root.Children[0].Children[1].Title; got != "second" || src.reads != c.wantReads {
			t.Errorf("%s: printed the Document %q after %d reads, want %q after %d", c.what, got, src.reads, "second", c.wantReads)
		}
	}
	// With --connect the browser is read as it is: once.
	src := &readsSource{docs: []*mapping.Element{loadedUnfocused, loaded}}
	if _, err := readOnce(context.Background(), Config{Connect: "127.0.0.1:9222"}, src, quiet); err != nil || src.reads != 1 {
		t.Errorf("with --connect: %d reads (err %v), want 1", src.reads, err)
	}
}
