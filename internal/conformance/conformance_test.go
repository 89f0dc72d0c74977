package conformance_test

import (
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/conformance"
)

// answer wraps a root element into a current answer.
func answer(root string) string {
	return `{"protocol":"0.2.0","instance":"4b3f0c2e-8d1a-4e57-9f3b-2a6c1d0e9b77","root":` + root + `}`
}

// browser is a root with one window, a tab strip and a document holding
// the given content.
func browser(rootStates, windowStates, docStates, content string) string {
	return `{"id":"a0_AAAAAAAA","role":"Application","title":"Chromium"` + rootStates + `,"children":[` +
		`{"id":"w1_AAAAAAAA","role":"Window","title":"Example"` + windowStates + `,"children":[` +
		`{"id":"l1_AAAAAAAA","role":"TabList","children":[` +
		`{"id":"t1_AAAAAAAA","role":"Tab","title":"Example","url":"https://example.com/","states":["selected"]}]},` +
		`{"id":"d1_AAAAAAAA","role":"Document","title":"Example","url":"https://example.com/"` + docStates + `,"children":[` +
		content + `]}]}]}`
}

const focused = `,"states":["focused"]`

func TestValidateCurrentAccepts(t *testing.T) {
	tests := []struct {
		name, raw string
	}{
		{"no windows, no focus", answer(`{"id":"a0_AAAAAAAA","role":"Application","title":"Chromium"}`)},
		{"focus on the document", answer(browser(focused, focused, focused,
			`{"id":"n1.1_AAAAAAAA","role":"Button","title":"OK","states":["hovered"]}`))},
		{"focus path down to a field", answer(browser(focused, focused, focused,
			`{"id":"n1.2_AAAAAAAA","role":"Form","title":"Search","states":["focused"],"children":[`+
				`{"id":"n1.3_AAAAAAAA","role":"TextField","title":"Query","value":"cats","states":["editable","focused","hovered","required"]}]},`+
				`{"id":"n1.4_AAAAAAAA","role":"Heading","title":"Results","level":2,"omitted":3}`))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := conformance.CheckCurrent(t, []byte(tt.raw))
			if cur.Root.Role != "Application" {
				t.Errorf("decoded root role = %q", cur.Root.Role)
			}
		})
	}
}

func TestValidateCurrentRejects(t *testing.T) {
	button := func(id, states string) string {
		return `{"id":"` + id + `","role":"Button","title":"OK"` + states + `}`
	}
	tests := []struct {
		name, raw string
		want      string // part of the error
	}{
		{"a fourth top-level field",
			`{"protocol":"0.2.0","instance":"x","root":{"id":"a","role":"Application"},"focus":"a"}`, "schema"},
		{"another protocol version",
			`{"protocol":"0.1.0","instance":"x","root":{"id":"a","role":"Application"}}`, "schema"},
		{"root is not an Application", answer(`{"id":"a","role":"Window"}`), "schema"},
		{"unknown role", answer(browser(focused, focused, focused, `{"id":"b","role":"Widget"}`)), "schema"},
		{"unknown state", answer(browser(focused, focused, focused, button("b", `,"states":["active"]`))), "schema"},
		{"unknown field", answer(browser(focused, focused, focused, `{"id":"b","role":"Button","name":"OK"}`)), "schema"},
		{"empty title", answer(browser(focused, focused, focused, `{"id":"b","role":"Button","title":""}`)), "schema"},
		{"empty states", answer(browser(focused, focused, focused, button("b", `,"states":[]`))), "schema"},
		{"repeated state", answer(browser(focused, focused, focused, button("b", `,"states":["checked","checked"]`))), "schema"},
		{"id with a slash", answer(browser(focused, focused, focused, button("b/c", ""))), "schema"},
		{"level 0", answer(browser(focused, focused, focused, `{"id":"h","role":"Heading","level":0}`)), "schema"},
		{"not JSON", `{"protocol":`, "not JSON"},

		{"duplicate id", answer(browser(focused, focused, focused, button("b", "")+","+button("b", ""))), "more than one element"},
		{"application below the root", answer(browser(focused, focused, focused, `{"id":"b","role":"Application","title":"x"}`)), "only the root"},
		{"unsorted states", answer(browser(focused, focused, focused, button("b", `,"states":["pressed","disabled"]`))), "not sorted"},
		{"focus path branches", answer(browser(focused, focused, focused,
			button("b", focused)+","+button("c", focused))), "branches"},
		{"focus path has a gap", answer(browser(focused, focused, "", button("b", focused))), "gap"},
		{"focused but root is not", answer(browser("", focused, focused, button("b", ""))), "gap"},
		{"a window but no focus", answer(browser("", "", "", button("b", ""))), "nothing is focused"},
		{"two hovered elements", answer(browser(focused, focused, focused,
			button("b", `,"states":["hovered"]`)+","+button("c", `,"states":["hovered"]`))), "hovered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := conformance.ValidateCurrent([]byte(tt.raw))
			if err == nil {
				t.Fatalf("ValidateCurrent(%s) = nil error, want one mentioning %q", tt.raw, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ValidateCurrent(%s) error:\n%v\nwant it to mention %q", tt.raw, err, tt.want)
			}
		})
	}
}

func TestValidateLocation(t *testing.T) {
	const rect = `{"x":-10.5,"y":20,"width":100,"height":0}`
	good := []string{
		`{"state":"gone"}`,
		`{"state":"offscreen"}`,
		`{"state":"offscreen","frame":` + rect + `}`,
		`{"state":"onscreen","frame":` + rect + `,"visible":` + rect + `}`,
	}
	for _, raw := range good {
		if _, err := conformance.ValidateLocation([]byte(raw)); err != nil {
			t.Errorf("ValidateLocation(%s): %v", raw, err)
		}
	}
	bad := []string{
		`{}`,
		`{"state":"hidden"}`,
		`{"state":"gone","frame":` + rect + `}`,
		`{"state":"onscreen","frame":` + rect + `}`,
		`{"state":"offscreen","frame":` + rect + `,"visible":` + rect + `}`,
		`{"state":"offscreen","frame":{"x":0,"y":0,"width":-1,"height":1}}`,
		`{"state":"offscreen","frame":{"x":0,"y":0,"width":1}}`,
		`{"state":"offscreen","frame":{"x":0,"y":0,"width":1,"height":1,"z":0}}`,
	}
	for _, raw := range bad {
		if _, err := conformance.ValidateLocation([]byte(raw)); err == nil {
			t.Errorf("ValidateLocation(%s) = nil error, want one", raw)
		}
	}
}

func TestValidateDescriptor(t *testing.T) {
	good := []string{
		`{"protocol":"0.2.0","app":{"title":"Chromium","bundle":"org.chromium.Chromium","version":"156.0.8078.108"},` +
			`"provider":{"name":"cdpprovider","version":"0.1.0"},"operations":["current","locate"]}`,
		`{"protocol":"0.2.0","app":{"title":"Chromium"},"provider":{"name":"cdpprovider","version":"0.1.0"},"operations":["current"]}`,
	}
	for _, raw := range good {
		d := conformance.CheckDescriptor(t, []byte(raw))
		if d.App.Title != "Chromium" {
			t.Errorf("decoded app title = %q", d.App.Title)
		}
	}
	bad := []string{
		`{"protocol":"0.2.0","app":{"title":"Chromium"},"provider":{"name":"cdpprovider","version":"0.1.0"},"operations":["locate"]}`,
		`{"protocol":"0.2.0","app":{"title":"Chromium"},"provider":{"name":"cdpprovider","version":"0.1.0"},"operations":["current","click"]}`,
		`{"protocol":"0.2.0","app":{"title":""},"provider":{"name":"cdpprovider","version":"0.1.0"},"operations":["current"]}`,
		`{"protocol":"0.2.0","app":{"title":"Chromium"},"provider":{"name":"cdpprovider"},"operations":["current"]}`,
		`{"protocol":"0.2.0","app":{"title":"Chromium"},"provider":{"name":"cdpprovider","version":"0.1.0"},"operations":["current"],"extra":1}`,
	}
	for _, raw := range bad {
		if _, err := conformance.ValidateDescriptor([]byte(raw)); err == nil {
			t.Errorf("ValidateDescriptor(%s) = nil error, want one", raw)
		}
	}
}

// recorder is a testing.TB that records a fatal failure instead of
// stopping the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()           {}
func (r *recorder) Fatal(args ...any) { r.failed = true }

func TestCheckFails(t *testing.T) {
	r := &recorder{TB: t}
	if got := conformance.CheckCurrent(r, []byte(`{}`)); got != nil || !r.failed {
		t.Errorf("CheckCurrent on {} = %v, failed %v; want nil and a failure", got, r.failed)
	}
}
