package mapping

import (
	"bufio"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// Outline writes the tree under root as an indented outline, for people
// and for models, one space of indent per depth. Every element has a line
// of its own:
//
//	Role "title" = "value" [state state] <url> level=N ("description") (+N omitted) #id
//
// but the text of the page: a Text with a title and nothing else (no
// value, description, url, level, states or children), not the root, is
// written as its quoted title alone, without its role and id, and the
// Texts of a run of such siblings share one line, each quoted, separated
// by a space:
//
//	Paragraph #31sVAAN
//	 "Python is simple to use, but" "very-high-level language" ", it has…"
//
// Each part after the role appears only when the element has it. Titles,
// values and descriptions are quoted as Go strings. A url is written
// relative to the url of the nearest Document above it in the outline
// (#top, guide.html, ../index.html, /about) when such a reference resolves
// to it exactly; a Document's own url, and the url of an element with no
// Document above it in the outline, are written whole. It returns the
// first error of w.
func Outline(w io.Writer, root *Element) error {
	bw := bufio.NewWriter(w)
	if root != nil {
		o := outliner{w: bw}
		o.tree(root, 0, nil)
	}
	return bw.Flush()
}

// outliner writes an outline.
type outliner struct {
	w       *bufio.Writer
	scratch []byte
}

// tree writes the lines of e and its descendants, e at depth; base is the
// url of the nearest Document above e, nil when there is none.
func (o *outliner) tree(e *Element, depth int, base *url.URL) {
	o.indent(depth)
	o.scratch = appendLine(o.scratch[:0], e, base)
	o.w.Write(o.scratch)
	o.w.WriteByte('\n')
	if e.Role == roleDocument {
		base = parseBase(e.URL)
	}
	for i := 0; i < len(e.Children); {
		c := e.Children[i]
		if !plainText(c) {
			o.tree(c, depth+1, base)
			i++
			continue
		}
		o.indent(depth + 1)
		o.scratch = o.scratch[:0]
		for ; i < len(e.Children) && plainText(e.Children[i]); i++ {
			if len(o.scratch) > 0 {
				o.scratch = append(o.scratch, ' ')
			}
			o.scratch = strconv.AppendQuote(o.scratch, e.Children[i].Title)
		}
		o.w.Write(o.scratch)
		o.w.WriteByte('\n')
	}
}

// indent writes the indent of depth: one space a level.
func (o *outliner) indent(depth int) {
	for range depth {
		o.w.WriteByte(' ')
	}
}

// plainText reports whether e is text of the page and nothing more: a
// Text with a title and no other field, which the outline writes as its
// quoted title alone.
func plainText(e *Element) bool {
	return e.Role == roleText && e.Title != "" && e.Value == "" && e.Description == "" && e.URL == "" &&
		e.Level == 0 && len(e.States) == 0 && e.Omitted == 0 && len(e.Children) == 0
}

// line writes the outline's line of e in full, its url whole, without
// indent and newline: the line of a match of a search.
func line(w *bufio.Writer, e *Element) {
	w.Write(appendLine(nil, e, nil))
}

// appendLine appends the line of e in full, without indent and newline,
// its url relative to base when base is not nil and e is not a Document.
func appendLine(b []byte, e *Element, base *url.URL) []byte {
	b = append(b, e.Role...)
	if e.Title != "" {
		b = append(b, ' ')
		b = strconv.AppendQuote(b, e.Title)
	}
	if e.Value != "" {
		b = append(b, " = "...)
		b = strconv.AppendQuote(b, e.Value)
	}
	if len(e.States) > 0 {
		b = append(b, " ["...)
		for i, s := range e.States {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, s...)
		}
		b = append(b, ']')
	}
	if e.URL != "" {
		u := e.URL
		if base != nil && e.Role != roleDocument {
			u = relativeURL(base, u)
		}
		b = append(b, " <"...)
		b = append(b, u...)
		b = append(b, '>')
	}
	if e.Level > 0 {
		b = append(b, " level="...)
		b = strconv.AppendInt(b, int64(e.Level), 10)
	}
	if e.Description != "" {
		b = append(b, " ("...)
		b = strconv.AppendQuote(b, e.Description)
		b = append(b, ')')
	}
	if e.Omitted > 0 {
		b = append(b, " (+"...)
		b = strconv.AppendInt(b, int64(e.Omitted), 10)
		b = append(b, " omitted)"...)
	}
	b = append(b, " #"...)
	return append(b, e.ID...)
}

// parseBase returns the url of a Document as the base of the urls below
// it, or nil when they are to be written whole: it is not an absolute,
// hierarchical url (about:blank, data:…), or it has a user.
func parseBase(s string) *url.URL {
	b, err := url.Parse(s)
	if err != nil || !b.IsAbs() || b.Opaque != "" || b.User != nil || b.String() != s {
		return nil
	}
	return b
}

// relativeURL returns the shortest reference to target that resolves
// against base to target exactly: target's fragment (#f), its query and
// fragment (?q#f), its path relative to base's directory (b.html,
// ../a/b.html) or its absolute path (/a/b.html), each with its query and
// fragment; target itself when none does (another origin, or a url Go
// would write otherwise).
func relativeURL(base *url.URL, target string) string {
	origin := base.Scheme + "://" + base.Host
	if !strings.HasPrefix(target, origin) {
		return target
	}
	rest := target[len(origin):] // the path, query and fragment
	if rest == "" || rest[0] != '/' {
		return target
	}
	pathEnd := strings.IndexAny(rest, "?#")
	if pathEnd < 0 {
		pathEnd = len(rest)
	}
	path, tail := rest[:pathEnd], rest[pathEnd:]
	var candidates []string
	if path == base.EscapedPath() {
		switch {
		case strings.HasPrefix(tail, "#") && base.RawQuery == "" && !base.ForceQuery:
			candidates = append(candidates, tail)
		case strings.HasPrefix(tail, "?#") && base.RawQuery == "" && base.ForceQuery:
			candidates = append(candidates, tail[1:])
		case strings.HasPrefix(tail, "?"+base.RawQuery+"#") && base.RawQuery != "":
			candidates = append(candidates, tail[len(base.RawQuery)+1:])
		}
		if strings.HasPrefix(tail, "?") {
			candidates = append(candidates, tail)
		}
	}
	if rel := relativePath(base.EscapedPath(), path); rel != "" {
		candidates = append(candidates, rel+tail)
	}
	candidates = append(candidates, rest)
	best := target
	for _, c := range candidates {
		if len(c) >= len(best) {
			continue
		}
		if r, err := base.Parse(c); err == nil && r.String() == target {
			best = c
		}
	}
	return best
}

// relativePath returns path relative to the directory of basePath
// (both absolute), "" when it would be empty.
func relativePath(basePath, path string) string {
	dir := strings.Split(basePath[:strings.LastIndexByte(basePath, '/')+1], "/")
	segs := strings.Split(path, "/")
	// dir ends with "" (the path ends with /); segs' last is the file.
	common := 0
	for common < len(dir)-1 && common < len(segs)-1 && dir[common] == segs[common] {
		common++
	}
	rel := strings.Repeat("../", len(dir)-1-common) + strings.Join(segs[common:], "/")
	if rel == "" {
		return ""
	}
	if first, _, _ := strings.Cut(rel, "/"); strings.Contains(first, ":") {
		rel = "./" + rel // else read as a scheme
	}
	return rel
}
