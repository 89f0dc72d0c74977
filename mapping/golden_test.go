package mapping

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testIDs returns ids with a fixed key, so answers are the same each run.
func testIDs() *IDs {
	ids := NewIDs()
	ids.instance = "00000000-0000-4000-8000-000000000000"
	return ids
}

// loadFrame reads a recording of axrecord.
func loadFrame(t *testing.T, path string) *Frame {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := &Frame{}
	if err := jsonv2.Unmarshal(b, f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// readable replaces each id in the tree by what it names ("n1.42"), so
// goldens can be reviewed, and checks that ids are unique.
func readable(t *testing.T, ids *IDs, e *Element, seen map[string]bool) {
	t.Helper()
	if seen[e.ID] {
		t.Errorf("id %s used twice", e.ID)
	}
	seen[e.ID] = true
	r, err := ids.Parse(e.ID)
	if err != nil {
		t.Fatalf("id %q of %s %q: %v", e.ID, e.Role, e.Title, err)
	}
	e.ID = fmt.Sprintf("%c%d", r.Kind, r.A)
	if r.Kind == KindNode || r.Kind == KindAXOnly {
		e.ID += fmt.Sprintf(".%d", r.B)
	}
	for _, c := range e.Children {
		readable(t, ids, c, seen)
	}
}

// TestGolden maps each recorded tree in testdata and compares the answer
// with NAME.golden.json. go test -update rewrites the goldens.
func TestGolden(t *testing.T) {
	recs, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rec := range recs {
		if strings.HasSuffix(rec, ".golden.json") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(rec), ".json")
		t.Run(name, func(t *testing.T) {
			ids := testIDs()
			got := MapFrame(loadFrame(t, rec), ids, 80)
			readable(t, ids, got, map[string]bool{})
			golden := strings.TrimSuffix(rec, ".json") + ".golden.json"
			if *update {
				var b strings.Builder
				writeGolden(t, &b, got, 0)
				if err := os.WriteFile(golden, []byte(b.String()+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			var want *Element
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatalf("%s: %v", golden, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("MapFrame(%s) mismatch (-want +got):\n%s", rec, diff)
			}
		})
	}
	if n == 0 {
		t.Fatal("no recordings in testdata")
	}
}

// writeGolden writes e as JSON with one element a line, indented by depth.
func writeGolden(t *testing.T, b *strings.Builder, e *Element, depth int) {
	c := *e
	c.Children = nil
	line, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString(strings.Repeat(" ", depth))
	if len(e.Children) == 0 {
		b.Write(line)
		return
	}
	b.Write(line[:len(line)-1])
	b.WriteString(`,"children":[`)
	for i, k := range e.Children {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		writeGolden(t, b, k, depth+1)
	}
	b.WriteString("]}")
}

// TestGoldenOutline writes the outline of each recorded tree in testdata
// (its ids readable) and compares it with NAME.golden.outline, so that a
// change to what the outline says shows in review. go test -update
// rewrites them.
func TestGoldenOutline(t *testing.T) {
	recs, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if strings.HasSuffix(rec, ".golden.json") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(rec), ".json")
		t.Run(name, func(t *testing.T) {
			ids := testIDs()
			root := MapFrame(loadFrame(t, rec), ids, 80)
			readable(t, ids, root, map[string]bool{})
			var b strings.Builder
			if err := Outline(&b, root); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(rec, ".json") + ".golden.outline"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("Outline(%s) mismatch (-want +got):\n%s", rec, diff)
			}
		})
	}
}
