package provider

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// find prints the matches of one read, one a line or as JSON; none is
// ErrNoMatch, after printing nothing (or the JSON of no matches).
func TestRunFind(t *testing.T) {
	const window = `Window Harbor Books: checkout #w1 in: Application Chromium` + "\n"
	for _, c := range []struct {
		what string
		cfg  Config
		out  string
		err  error
	}{
		{"a text, case ignored", Config{Text: "HARBOR"}, window, nil},
		{"a text anywhere", Config{Text: "o"}, `Application Chromium [focused] #a1` + "\n" + window, nil},
		{"a role", Config{Role: "Window"}, window, nil},
		{"a role and a text", Config{Role: "Window", Text: "chromium"}, "", ErrNoMatch},
		{"an expression", Config{Text: "^harbor.*out$", Regex: true}, window, nil},
		{"not an expression", Config{Text: "^harbor"}, "", ErrNoMatch},
		{"a limit", Config{Text: "o", Limit: 1}, `Application Chromium [focused] #a1` + "\n(+1 more)\n", nil},
		{"as JSON", Config{Role: "Window", JSON: true},
			`{"matches":[{"id":"w1","role":"Window","title":"Harbor Books: checkout","in":[{"role":"Application","title":"Chromium"}]}],"more":0}` + "\n", nil},
		{"as JSON, with a limit", Config{Text: "o", JSON: true, Limit: 1},
			`{"matches":[{"id":"a1","role":"Application","title":"Chromium","states":["focused"],"in":[]}],"more":1}` + "\n", nil},
		{"nothing, as JSON", Config{Text: "nowhere", JSON: true}, `{"matches":[],"more":0}` + "\n", ErrNoMatch},
	} {
		f := &fakeSource{}
		var stdout, stderr bytes.Buffer
		c.cfg.Command, c.cfg.Connect = Find, "127.0.0.1:9222"
		err := run(context.Background(), c.cfg, nil, &stdout, &stderr, opener(f))
		if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("%s: find = %v, want %v", c.what, err, c.err)
		}
		if stdout.String() != c.out {
			t.Errorf("%s: find printed\n%s\nwant\n%s", c.what, stdout.String(), c.out)
		}
		if !f.closed {
			t.Errorf("%s: source not closed", c.what)
		}
	}
}
