package e2e

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/cdpprovider/cdpprovider/internal/elemtest"
	"github.com/cdpprovider/cdpprovider/mapping"
)

var update = flag.Bool("update", false, "rewrite the golden outlines of testdata/pages")

// corpus is one page per family of what the web puts before a person:
// each testdata/pages/NAME.html has a golden outline NAME.golden, read and
// agreed with by a person, and marks elements with the answer
// docs/protocol.md §5.4 demands of them.
var corpus = []string{"forms", "landmarks", "tables", "menus", "dialogs", "media", "shadow", "article", "app"}

// TestCorpus reads each corpus page through the binary and checks its
// Document against the golden outline (go test ./e2e -run Corpus -update
// rewrites them) and against the page's own marks (see checkMarks).
func TestCorpus(t *testing.T) {
	needEnv(t)
	p := sharedProvider(t)
	for _, name := range corpus {
		t.Run(name, func(t *testing.T) {
			tb := openTab(t, env.rootCtx, env.pageA+"/pages/"+name+".html")
			doc := elemtest.FindDoc(t, p.current(t).Root, tb.url)
			checkGoldenOutline(t, name, doc)
			if n := checkMarks(t, tb.ctx, doc); n == 0 {
				t.Errorf("%s.html marks no element", name)
			}
		})
	}
}

// idSuffix is the id at the end of an outline line.
var idSuffix = regexp.MustCompile(` #[A-Za-z0-9._~-]+$`)

// goldenOutline is the outline of a Document as a person reads it, without
// the ids (they change every run) and with the test server's origin as
// {{A}}.
func goldenOutline(t testing.TB, doc *mapping.Element) string {
	t.Helper()
	var b strings.Builder
	if err := mapping.Outline(&b, doc); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for line := range strings.Lines(b.String()) {
		lines = append(lines, idSuffix.ReplaceAllString(strings.TrimRight(line, "\n"), ""))
	}
	return strings.ReplaceAll(strings.Join(lines, "\n")+"\n", env.pageA, "{{A}}")
}

// checkGoldenOutline compares the outline of doc with testdata/pages/NAME.golden.
func checkGoldenOutline(t *testing.T, name string, doc *mapping.Element) {
	t.Helper()
	got := goldenOutline(t, doc)
	path := filepath.Join("testdata", "pages", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./e2e -run Corpus -update writes it)", err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Errorf("outline of %s.html differs from %s (-want +got):\n%s", name, path, diff)
	}
}

// mark is what a corpus page says of one of its elements, by hand from
// docs/protocol.md §5.4: data-expect-role (a protocol role, or "none" for an
// element that must not be reported), data-expect-states (the exact
// states, focused and hovered aside; none when absent), data-expect-value
// (the exact value; none when absent) and data-expect-level.
type mark struct {
	backend cdproto.BackendNodeID
	desc    string // the tag and marks, for messages
	role    string
	states  []string
	value   string
	level   string
}

// checkMarks checks every marked element of the page in tab ctx against
// the provider's Document doc, and returns how many it checked. An answer
// element is matched to its DOM element by the backend DOM node id its id
// carries, from the document node's (white-box: hosts must not parse ids;
// see mapping.Frame.NodeBase). The corpus pages have no iframes.
func checkMarks(t *testing.T, ctx context.Context, doc *mapping.Element) int {
	t.Helper()
	base, marks := pageMarks(t, ctx)
	byBackend := map[cdproto.BackendNodeID]*mapping.Element{}
	elemtest.Walk(doc, func(e *mapping.Element, _ []*mapping.Element) {
		if r, ok := mapping.Peek(e.ID); ok && r.Kind == mapping.KindNode {
			byBackend[base+cdproto.BackendNodeID(r.B)] = e
		}
	})
	for _, m := range marks {
		e := byBackend[m.backend]
		if m.role == "none" {
			if e != nil {
				t.Errorf("%s: reported as %s %q, want no element", m.desc, e.Role, e.Title)
			}
			continue
		}
		if e == nil {
			t.Errorf("%s: not reported", m.desc)
			continue
		}
		if m.role != "" && e.Role != m.role {
			t.Errorf("%s: role %s, want %s", m.desc, e.Role, m.role)
		}
		if m.role == "" && m.level == "" {
			continue
		}
		states := slices.DeleteFunc(slices.Clone(e.States), func(s string) bool { return s == "focused" || s == "hovered" })
		if m.role != "" && !slices.Equal(states, m.states) {
			t.Errorf("%s: states %v, want %v", m.desc, states, m.states)
		}
		if m.role != "" && e.Value != m.value {
			t.Errorf("%s: value %q, want %q", m.desc, e.Value, m.value)
		}
		if m.level != "" && strconv.Itoa(e.Level) != m.level {
			t.Errorf("%s: level %d, want %s", m.desc, e.Level, m.level)
		}
	}
	return len(marks)
}

// pageMarks reads the marked elements of the page, shadow trees included,
// from its DOM on the test's own session, and the document node's backend
// id.
func pageMarks(t *testing.T, ctx context.Context) (cdproto.BackendNodeID, []mark) {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	root, err := chromedp.Call(cctx, dom.GetDocument, dom.GetDocumentParams{Depth: new(int64(-1)), Pierce: new(true)})
	if err != nil {
		t.Fatalf("DOM.getDocument: %v", err)
	}
	var out []mark
	var visit func(n *cdproto.Node)
	visit = func(n *cdproto.Node) {
		attrs := map[string]string{}
		for i := 0; i+1 < len(n.Attributes); i += 2 {
			attrs[n.Attributes[i]] = n.Attributes[i+1]
		}
		role, hasRole := attrs["data-expect-role"]
		level, hasLevel := attrs["data-expect-level"]
		if hasRole || hasLevel {
			m := mark{backend: n.BackendNodeID, role: role, value: attrs["data-expect-value"], level: level}
			m.states = strings.Fields(attrs["data-expect-states"])
			slices.Sort(m.states)
			m.desc = "<" + strings.ToLower(n.NodeName)
			for _, a := range []string{"id", "aria-label", "data-expect-role", "data-expect-states", "data-expect-value", "data-expect-level"} {
				if v, ok := attrs[a]; ok {
					m.desc += " " + a + "=" + strconv.Quote(v)
				}
			}
			m.desc += ">"
			out = append(out, m)
		}
		for _, c := range n.Children {
			visit(c)
		}
		for _, s := range n.ShadowRoots {
			visit(s)
		}
		if n.ContentDocument != nil {
			visit(n.ContentDocument)
		}
	}
	visit(root.Root)
	return root.Root.BackendNodeID, out
}
