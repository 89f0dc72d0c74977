package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ui_find: the elements of the answer that match a text and/or a role.

// findFake is newFake with a sign-in form in its Document, after the
// button: a field with a value, a password field (without one, as the
// mapping reports it), a described field, a link and two more buttons.
func findFake() *fakeSource {
	src := newFake()
	doc := src.current.Root.Children[0].Children[1]
	doc.Children = append(doc.Children, &mapping.Element{ID: "n1.10_AAAAAAAA", Role: "Form", Title: "Sign in", Children: []*mapping.Element{
		{ID: "n1.11_AAAAAAAA", Role: "TextField", Title: "Email", Value: "ada@example.com", States: []string{"required"}},
		{ID: "n1.12_AAAAAAAA", Role: "TextField", Title: "Password", Description: "At least 8 characters"},
		{ID: "n1.13_AAAAAAAA", Role: "Link", Title: "Order history", URL: "https://example.com/orders"},
		{ID: "n1.14_AAAAAAAA", Role: "Button", Title: "Sign in"},
		{ID: "n1.15_AAAAAAAA", Role: "Button", Title: "Cancel"},
	}})
	return src
}

// found calls ui_find, which must answer: its text, and its
// structuredContent, checked against the tool's output schema and
// against the text (the same matches, one a line).
func found(t *testing.T, cs *sdk.ClientSession, args map[string]any) string {
	t.Helper()
	res := callResult(t, cs, ToolFind, args)
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s %v: %s", ToolFind, args, dump(t, res))
	}
	text := res.Content[0].(*sdk.TextContent).Text
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	validateFound(t, cs, raw)
	var sc struct {
		Matches []struct {
			ID string
		}
		More int
	}
	if err := json.Unmarshal(raw, &sc); err != nil {
		t.Fatalf("%s %v: structuredContent %s: %v", ToolFind, args, raw, err)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if sc.More > 0 {
		if last := lines[len(lines)-1]; last != "(+"+itoa(sc.More)+" more)" {
			t.Errorf("%s %v: last line %q, want (+%d more)", ToolFind, args, last, sc.More)
		}
		lines = lines[:len(lines)-1]
	}
	if len(sc.Matches) == 0 {
		if text != "No element matches.\n" {
			t.Errorf("%s %v: text %q for no match", ToolFind, args, text)
		}
		lines = nil
	}
	if len(lines) != len(sc.Matches) {
		t.Fatalf("%s %v: %d lines, %d matches in structuredContent:\n%s\n%s", ToolFind, args, len(lines), len(sc.Matches), text, raw)
	}
	for i, m := range sc.Matches {
		if !strings.Contains(lines[i], " #"+m.ID) {
			t.Errorf("%s %v: line %d %q is not of match %s", ToolFind, args, i, lines[i], m.ID)
		}
	}
	return text
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func dump(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// validateFound checks structured content against ui_find's output
// schema as tools/list gives it.
func validateFound(t *testing.T, cs *sdk.ClientSession, raw []byte) {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	for _, tool := range list.Tools {
		if tool.Name == ToolFind {
			out = tool.OutputSchema
		}
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("find.json", out); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("find.json")
	if err != nil {
		t.Fatalf("ui_find's output schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("structuredContent %s against the output schema: %v", raw, err)
	}
}

// structured is ui_find's structuredContent, as JSON in canonical form
// (canon).
func structured(t *testing.T, cs *sdk.ClientSession, args map[string]any) string {
	t.Helper()
	return dump(t, callResult(t, cs, ToolFind, args).StructuredContent)
}

// canon is JSON text in the form structured returns: members sorted by
// name, as a client that decoded it writes it again.
func canon(t *testing.T, text string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return dump(t, v)
}

// Texts are found in titles, values and descriptions, case ignored, in
// reading order; as a regular expression with regex.
func TestToolFindText(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := findFake()
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			const in = ` in: Application Chromium > Window "Fish & <Chips>" > Document "Fish & <Chips>"`
			text := found(t, cs, map[string]any{"text": "ORDER"})
			if want := `Button Order [hovered] #n1.5_AAAAAAAA` + in + "\n" +
				`Link Order history <https://example.com/orders> #n1.13_AAAAAAAA` + in + ` > Form Sign in` + "\n"; text != want {
				t.Errorf("%s ORDER:\n%s\nwant:\n%s", ToolFind, text, want)
			}
			for _, c := range []struct {
				args map[string]any
				ids  []string
			}{
				{map[string]any{"text": "EXAMPLE.COM"}, []string{"n1.11_AAAAAAAA"}}, // a value
				{map[string]any{"text": "8 char"}, []string{"n1.12_AAAAAAAA"}},      // a description
				{map[string]any{"text": "or.er"}, nil},                              // not an expression
				{map[string]any{"text": "^or.er$", "regex": true}, []string{"n1.5_AAAAAAAA"}},
				{map[string]any{"text": "(?-i)^order", "regex": true}, nil},
				{map[string]any{"text": "^sign in$", "regex": true, "limit": 200}, []string{"n1.10_AAAAAAAA", "n1.14_AAAAAAAA"}},
				{map[string]any{"text": "order", "regex": false}, []string{"n1.5_AAAAAAAA", "n1.13_AAAAAAAA"}},
				// Only the fields an element has: an empty title matches nothing.
				{map[string]any{"text": "^$", "regex": true}, nil},
			} {
				found(t, cs, c.args)
				var sc struct{ Matches []struct{ ID string } }
				json.Unmarshal([]byte(structured(t, cs, c.args)), &sc)
				var got []string
				for _, m := range sc.Matches {
					got = append(got, m.ID)
				}
				if !cmp.Equal(got, c.ids) {
					t.Errorf("%s %v: %v, want %v", ToolFind, c.args, got, c.ids)
				}
			}
			if got, want := structured(t, cs, map[string]any{"text": "email"}), canon(t, `{"matches":[{"id":"n1.11_AAAAAAAA","role":"TextField","title":"Email",`+
				`"value":"ada@example.com","states":["required"],"in":[{"role":"Application","title":"Chromium"},{"role":"Window","title":"Fish & <Chips>"},`+
				`{"role":"Document","title":"Fish & <Chips>"},{"role":"Form","title":"Sign in"}]}],"more":0}`); got != want {
				t.Errorf("%s email: structuredContent\n%s\nwant:\n%s", ToolFind, got, want)
			}
			if got := structured(t, cs, map[string]any{"text": "nothing like it"}); got != `{"matches":[],"more":0}` {
				t.Errorf("%s of nothing: structuredContent %s", ToolFind, got)
			}
			src.mu.Lock()
			located := len(src.located)
			src.mu.Unlock()
			if located != 0 {
				t.Errorf("%s without locate asked Locate %d times", ToolFind, located)
			}
		})
	}
}

// role finds the elements of a role, alone or with a text; limit lists the
// first matches and counts the rest.
func TestToolFindRoleAndLimit(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			cs := connect(t, findFake(), Options{Tools: true}, version)
			ids := func(args map[string]any) (list []string, more int) {
				var sc struct {
					Matches []struct{ ID string }
					More    int
				}
				found(t, cs, args)
				json.Unmarshal([]byte(structured(t, cs, args)), &sc)
				for _, m := range sc.Matches {
					list = append(list, m.ID)
				}
				return list, sc.More
			}
			for _, c := range []struct {
				args map[string]any
				ids  []string
				more int
			}{
				{map[string]any{"role": "Button"}, []string{"n1.5_AAAAAAAA", "n1.14_AAAAAAAA", "n1.15_AAAAAAAA"}, 0},
				{map[string]any{"role": "Button", "text": "in"}, []string{"n1.14_AAAAAAAA"}, 0},
				{map[string]any{"role": "Button", "text": ""}, []string{"n1.5_AAAAAAAA", "n1.14_AAAAAAAA", "n1.15_AAAAAAAA"}, 0},
				{map[string]any{"role": "Dialog"}, nil, 0},
				{map[string]any{"role": "Button", "limit": 1}, []string{"n1.5_AAAAAAAA"}, 2},
				{map[string]any{"role": "Button", "limit": 2}, []string{"n1.5_AAAAAAAA", "n1.14_AAAAAAAA"}, 1},
				{map[string]any{"text": "i", "limit": 1}, []string{"a0_AAAAAAAA"}, 7},
			} {
				if got, more := ids(c.args); !cmp.Equal(got, c.ids) || more != c.more {
					t.Errorf("%s %v: %v and %d more, want %v and %d more", ToolFind, c.args, got, more, c.ids, c.more)
				}
			}
			// The default limit is 20.
			src := newFake()
			doc := src.current.Root.Children[0].Children[1]
			for i := range 25 {
				doc.Children = append(doc.Children, &mapping.Element{ID: "n1." + itoa(20+i) + "_AAAAAAAA", Role: "Button", Title: "B"})
			}
			cs = connect(t, src, Options{Tools: true}, version)
			if got, more := ids(map[string]any{"role": "Button"}); len(got) != 20 || more != 6 {
				t.Errorf("%s role Button of 26: %d and %d more, want 20 and 6 more", ToolFind, len(got), more)
			}
		})
	}
}

// locate adds each match's location as ui_locate gives it; a match that
// cannot be placed says why; a failure of the browser fails the call.
// Without locate offered, locate is an argument ui_find does not take.
func TestToolFindLocate(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := findFake()
			src.locations["n1.13_AAAAAAAA"] = &mapping.Location{State: mapping.OffScreen, Frame: &mapping.Rect{X: 10, Y: 900, Width: 100, Height: 20}}
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			text := found(t, cs, map[string]any{"text": "order", "locate": true})
			lines := strings.Split(text, "\n")
			if !strings.HasSuffix(lines[0], ` @ onscreen 10,20 80x24 (visible 10,20 80x12.5)`) ||
				!strings.HasSuffix(lines[1], ` > Form Sign in @ offscreen 10,900 100x20`) {
				t.Errorf("%s locate:\n%s", ToolFind, text)
			}
			var locs struct {
				Matches []struct {
					Location *mapping.Location
					Unplaced string
				}
			}
			json.Unmarshal([]byte(structured(t, cs, map[string]any{"text": "order", "locate": true})), &locs)
			if want := []*mapping.Location{src.locations["n1.5_AAAAAAAA"], src.locations["n1.13_AAAAAAAA"]}; len(locs.Matches) != 2 ||
				!cmp.Equal(locs.Matches[0].Location, want[0]) || !cmp.Equal(locs.Matches[1].Location, want[1]) {
				t.Errorf("%s locate: structuredContent %+v, want the locations %+v", ToolFind, locs, want)
			}
			src.mu.Lock()
			located := src.located
			src.mu.Unlock()
			if want := []string{"n1.5_AAAAAAAA", "n1.13_AAAAAAAA", "n1.5_AAAAAAAA", "n1.13_AAAAAAAA"}; !cmp.Equal(located, want) {
				t.Errorf("Locate was asked %v, want %v", located, want)
			}
			// The Application cannot be placed: it says why.
			text = found(t, cs, map[string]any{"role": "Application", "locate": true})
			if want := `Application Chromium [focused] #a0_AAAAAAAA @ cannot be placed (application)` + "\n"; text != want {
				t.Errorf("%s Application locate: %q, want %q", ToolFind, text, want)
			}
			if got := structured(t, cs, map[string]any{"role": "Application", "locate": true}); !strings.Contains(got, `"in":[],"role":"Application","states":["focused"],"title":"Chromium","unplaced":"application"}`) {
				t.Errorf("%s Application locate: structuredContent %s", ToolFind, got)
			}
			// The browser fails while the matches are located.
			const browserGone = "Chromium went away while the provider tried to locate the element."
			src.locateErrs["n1.13_AAAAAAAA"] = &failure{"browser-restarting", browserGone}
			wantToolError(t, cs, ToolFind, map[string]any{"text": "order", "locate": true}, "browser-restarting", "", browserGone)
			if res := callResult(t, cs, ToolFind, map[string]any{"text": "order", "locate": false}); res.IsError {
				t.Errorf("%s locate false asked Locate: %s", ToolFind, dump(t, res))
			}

			without := connect(t, findFake(), Options{Tools: true}, version)
			wantToolError(t, without, ToolFind, map[string]any{"text": "order", "locate": true}, "invalid-arguments", "",
				`ui_find takes only {"text": …, "regex": …, "role": …, "limit": …}; unknown argument "locate"`)
		})
	}
}

// Arguments the schema does not allow, and a read that fails, are errors
// a model can act on.
func TestToolFindErrors(t *testing.T) {
	for _, version := range protocolVersions {
		t.Run(versionName(version), func(t *testing.T) {
			src := findFake()
			cs := connect(t, src, Options{Locate: true, Tools: true}, version)
			invalid := func(args any, msg string) {
				t.Helper()
				wantToolError(t, cs, ToolFind, args, "invalid-arguments", "", msg)
			}
			needs := `ui_find needs text, role or both: {"text": "…"} finds the elements whose title, value or description holds it, {"role": "Button"} the elements of that role`
			for _, args := range []any{nil, map[string]any{}, map[string]any{"text": ""}, map[string]any{"regex": true}, map[string]any{"limit": 5, "locate": true}} {
				invalid(args, needs)
			}
			invalid(map[string]any{"text": "a", "x": 1}, `ui_find takes only {"text": …, "regex": …, "role": …, "limit": …, "locate": …}; unknown argument "x"`)
			invalid([]string{"a"}, "ui_find's arguments must be a JSON object")
			for _, text := range []any{7, nil, true, []string{"a"}} {
				invalid(map[string]any{"text": text}, "ui_find's text is a string: what to find in the elements' titles, values and descriptions")
			}
			for _, regex := range []any{"yes", 1, nil} {
				invalid(map[string]any{"text": "a", "regex": regex}, "ui_find's regex is true or false: whether text is a regular expression")
			}
			invalid(map[string]any{"text": "a(b", "regex": true}, "ui_find's text is not a regular expression (RE2 syntax): error parsing regexp: missing closing ): `a(b`")
			invalid(map[string]any{"text": `\p{Nope}`, "regex": true}, "ui_find's text is not a regular expression (RE2 syntax): error parsing regexp: invalid character class range: `\\p{Nope}`")
			for _, role := range []any{7, nil, []string{"Button"}} {
				invalid(map[string]any{"role": role}, "ui_find's role is a string: a role name as ui_current gives it, such as Button, Link or TextField")
			}
			invalid(map[string]any{"role": "button"}, `ui_find's role "button" is not a role ui_current gives; did you mean "Button"?`)
			invalid(map[string]any{"role": "textbox", "text": "a"}, `ui_find's role "textbox" is not a role ui_current gives: give one such as Button, Link, TextField, TextArea, CheckBox, ComboBox, Heading, Image or Dialog (the input schema lists them all)`)
			invalid(map[string]any{"role": ""}, `ui_find's role "" is not a role ui_current gives: give one such as Button`)
			for _, limit := range []any{0, -1, 201, 1.5, "5", nil} {
				invalid(map[string]any{"text": "a", "limit": limit}, "ui_find's limit is a whole number from 1 to 200: how many matches to list (default 20)")
			}
			for _, locate := range []any{"yes", 1, nil} {
				invalid(map[string]any{"text": "a", "locate": locate}, "ui_find's locate is true or false: whether to add where each match is on screen")
			}
			src.mu.Lock()
			located := len(src.located)
			src.mu.Unlock()
			if located != 0 {
				t.Errorf("calls refused asked Locate %d times", located)
			}

			const browserGone = "Chromium went away while the provider tried to read the browser's windows and pages."
			src.setCurrentErr(&failure{"browser-restarting", browserGone})
			wantToolError(t, cs, ToolFind, map[string]any{"text": "a"}, "browser-restarting", "", browserGone)
			src.setCurrentErr(errors.New("no reason given"))
			wantToolError(t, cs, ToolFind, map[string]any{"role": "Button"}, "read-failed", "", "no reason given")
		})
	}
}
