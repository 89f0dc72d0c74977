package mapping

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Outline writes the tree under root as an indented outline for people,
// one line per element, two spaces of indent per depth:
//
//	Role "title" = "value" [state state] <url> level=N (description) (+N omitted) #id
//
// Each part after the role appears only when the element has it. Titles,
// values and descriptions are quoted as Go strings. It returns the first
// error of w.
func Outline(w io.Writer, root *Element) error {
	bw := bufio.NewWriter(w)
	if root != nil {
		outline(bw, root, 0)
	}
	return bw.Flush()
}

func outline(w *bufio.Writer, e *Element, depth int) {
	w.WriteString(strings.Repeat("  ", depth))
	line(w, e)
	w.WriteString("\n")
	for _, c := range e.Children {
		outline(w, c, depth+1)
	}
}

// line writes the outline's line of e, without its indent and newline.
func line(w *bufio.Writer, e *Element) {
	w.WriteString(e.Role)
	if e.Title != "" {
		fmt.Fprintf(w, " %q", e.Title)
	}
	if e.Value != "" {
		fmt.Fprintf(w, " = %q", e.Value)
	}
	if len(e.States) > 0 {
		fmt.Fprintf(w, " [%s]", strings.Join(e.States, " "))
	}
	if e.URL != "" {
		fmt.Fprintf(w, " <%s>", e.URL)
	}
	if e.Level > 0 {
		fmt.Fprintf(w, " level=%d", e.Level)
	}
	if e.Description != "" {
		fmt.Fprintf(w, " (%q)", e.Description)
	}
	if e.Omitted > 0 {
		fmt.Fprintf(w, " (+%d omitted)", e.Omitted)
	}
	fmt.Fprintf(w, " #%s", e.ID)
}
