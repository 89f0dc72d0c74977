package mapping

import (
	"bufio"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// Outline writes the tree under root as an indented outline, for people
// and for models, one space of indent per depth. An element has a line
// of its own:
//
//	Role "title" = "value" [state state] <url> level=N ("description") (+N omitted) #id
//
// but for three kinds of element below the root, which leave out what
// carries nothing but a role and an id:
//
//   - The text of the page: a Text with a title and nothing else (no
//     value, description, url, level, states or children) is written as
//     its quoted title alone, without its role and id, and the Texts of a
//     run of such siblings share one line, each quoted, separated by a
//     space.
//   - Inline code: a Code with nothing but its role and id (no title,
//     value, description, url, level, states or omitted) whose children
//     are all such Texts, each a title that a Go raw string can hold on
//     one line (strconv.CanBackquote), is written as those titles, each
//     between backquotes, in the run of texts it stands in.
//   - A Paragraph, ListItem, Figure, Image or Text with nothing but its
//     role and id (a ListItem's level aside: the nesting of its List,
//     which the indent shows) has no line: its children are written in
//     its place, at its depth; a run of texts ends before and after
//     them, so each such paragraph or list item starts a line of its own.
//
// So a paragraph with a link and inline code reads
//
//	"Call" `open()` "to read a" "file" ", as the"
//	Link "tutorial" <#files> #31sVAAN
//	"shows."
//
// Each part after the role appears only when the element has it. Titles,
// values and descriptions are quoted as Go strings. A url is written
// relative to the url of the nearest Document above it in the outline
// (#top, guide.html, ../index.html, /about) when such a reference resolves
// to it exactly; a Document's own url, and the url of an element with no
// Document above it in the outline, are written whole. The root always
// has its line. It returns the first error of w.
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
	inRun   bool // a line of texts is begun: the run's next text goes on it
}

// tree writes the lines of e and its descendants, e at depth; base is the
// url of the nearest Document above e, nil when there is none.
func (o *outliner) tree(e *Element, depth int, base *url.URL) {
	o.endRun()
	o.indent(depth)
	o.scratch = appendLine(o.scratch[:0], e, base)
	o.w.Write(o.scratch)
	o.w.WriteByte('\n')
	if e.Role == roleDocument {
		base = parseBase(e.URL)
	}
	o.children(e.Children, depth+1, base)
	o.endRun()
}

// children writes the lines of cs, children of one element, at depth.
func (o *outliner) children(cs []*Element, depth int, base *url.URL) {
	for _, c := range cs {
		switch {
		case plainText(c):
			o.text(depth, strconv.AppendQuote(o.scratch[:0], c.Title))
		case inlineCode(c):
			for _, t := range c.Children {
				o.text(depth, append(append(append(o.scratch[:0], '`'), t.Title...), '`'))
			}
		case folded(c):
			o.endRun()
			o.children(c.Children, depth, base)
			o.endRun()
		default:
			o.tree(c, depth, base)
		}
	}
}

// text writes one text of a run, quoted: the first on a line of its own
// at depth, the next ones after it, a space between.
func (o *outliner) text(depth int, quoted []byte) {
	if o.inRun {
		o.w.WriteByte(' ')
	} else {
		o.indent(depth)
		o.inRun = true
	}
	o.w.Write(quoted)
	o.scratch = quoted[:0]
}

// endRun ends the line of a run of texts, if one is begun.
func (o *outliner) endRun() {
	if o.inRun {
		o.w.WriteByte('\n')
		o.inRun = false
	}
}

// indent writes the indent of depth: one space a level.
func (o *outliner) indent(depth int) {
	for range depth {
		o.w.WriteByte(' ')
	}
}

// foldedRoles are the roles of the elements an outline writes no line for
// when they have nothing but their role and id (folded): what only shapes
// the text in a page (a paragraph, a list's item, a figure) or carries
// nothing (an image without a name).
var foldedRoles = map[string]bool{"Paragraph": true, "ListItem": true, "Figure": true, "Image": true, roleText: true}

// bare reports whether e has nothing but its role, id and children.
func bare(e *Element) bool {
	return e.Level == 0 && bareButLevel(e)
}

// bareButLevel reports whether e has nothing but its role, id, children
// and level.
func bareButLevel(e *Element) bool {
	return e.Title == "" && e.Value == "" && e.Description == "" && e.URL == "" &&
		len(e.States) == 0 && e.Omitted == 0
}

// folded reports whether an outline writes e's children in its place,
// without a line for e: an element of foldedRoles with nothing but its
// role and id, a level aside (the level of a ListItem, the only one of
// them that has one, is the depth of its List among Lists, which the
// outline's indent shows).
func folded(e *Element) bool {
	return foldedRoles[e.Role] && bareButLevel(e)
}

// inlineCode reports whether e is code an outline writes in the run of
// texts around it: a bare Code whose children are all text of the page
// (plainText), each a title a Go raw string holds on one line.
func inlineCode(e *Element) bool {
	if e.Role != roleCode || !bare(e) || len(e.Children) == 0 {
		return false
	}
	for _, c := range e.Children {
		if !plainText(c) || !strconv.CanBackquote(c.Title) {
			return false
		}
	}
	return true
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
