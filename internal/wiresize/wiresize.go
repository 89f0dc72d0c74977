// Package wiresize measures what an answer of current costs on the wire:
// how many elements it holds and how many of its bytes are not the text
// those elements carry. It reads the compact JSON a host receives and
// knows nothing else of the program, so the mapping's tests and the bench
// measure the same thing.
package wiresize

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Report is the measure of one answer.
type Report struct {
	Elements int
	// Bytes is the length of the JSON measured.
	Bytes int
	// Text is the bytes of the text content: the strings of title, value,
	// description and url as they are written (escaped), without quotes.
	Text int
	// TextFields is those strings with their quotes, keys and the comma
	// before each: `,"title":"…"`.
	TextFields int
}

// BeyondFields is the bytes per element that are not text fields: the
// element's own cost (braces, id, role, level, states, omitted, children,
// commas). The project's target is under 40 (bench/README.md).
func (r Report) BeyondFields() float64 { return r.per(r.Bytes - r.TextFields) }

// BeyondText is the bytes per element that are not text content, the keys
// of the text fields counted as cost.
func (r Report) BeyondText() float64 { return r.per(r.Bytes - r.Text) }

func (r Report) per(n int) float64 {
	if r.Elements == 0 {
		return 0
	}
	return float64(n) / float64(r.Elements)
}

// Add sums two reports, to measure several answers as one.
func (r Report) Add(o Report) Report {
	return Report{r.Elements + o.Elements, r.Bytes + o.Bytes, r.Text + o.Text, r.TextFields + o.TextFields}
}

// element holds what is measured of an element: its text fields as
// written, and its children.
type element struct {
	Title       json.RawMessage `json:"title"`
	Value       json.RawMessage `json:"value"`
	Description json.RawMessage `json:"description"`
	URL         json.RawMessage `json:"url"`
	Children    []*element      `json:"children"`
}

// Measure measures raw, the compact JSON of an answer of current
// ({"protocol":…,"root":{…}}) or of one element.
func Measure(raw []byte) (Report, error) {
	raw = bytes.TrimSpace(raw)
	var top struct {
		Root *element `json:"root"`
		element
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return Report{}, fmt.Errorf("wiresize: %w", err)
	}
	r := Report{Bytes: len(raw)}
	root := top.Root
	if root == nil {
		root = &top.element
	}
	var walk func(e *element)
	walk = func(e *element) {
		r.Elements++
		for _, f := range []struct {
			key string
			v   json.RawMessage
		}{{"title", e.Title}, {"value", e.Value}, {"description", e.Description}, {"url", e.URL}} {
			if len(f.v) >= 2 && f.v[0] == '"' {
				r.Text += len(f.v) - 2
				r.TextFields += len(`,"":`) + len(f.key) + len(f.v)
			}
		}
		for _, c := range e.Children {
			if c != nil {
				walk(c)
			}
		}
	}
	walk(root)
	return r, nil
}
