package mapping

import (
	"bufio"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Outline writes the tree under root as an indented outline, for people
// and for models, one space of indent per depth. An element has a line
// of its own:
//
//	Role title = "value" [state state] <url> level=N ("description") (+N omitted) #id
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
//	Link tutorial <#files> #31sa
//	"shows."
//
// Each thing is said once. A Window's title is its active tab's, so the
// browser's Tab and the Window's Document that have the same title are
// written without it, and the selected Tab without its url when it is
// its Document's. An element named from its content, whose title is the
// text its children carry (their titles, or their children's, in order;
// spaces aside), is written without the title: its children say it.
// Searches (WriteMatches) and the JSON keep every title.
//
// Each part after the role appears only when the element has it. A title
// of plain words is written as it is (plainTitle): it holds none of the
// characters that start the parts after it, so it ends where the first
// of them starts. Other titles, and values and descriptions, are quoted
// as Go strings, as the texts of the page are. A url is written
// relative to the url of the nearest Document above it in the outline
// (#top, guide.html, ../index.html, /about) when such a reference resolves
// to it exactly; a Document's own url, and the url of an element with no
// Document above it in the outline, are written whole. The root always
// has its line. It returns the first error of w.
func Outline(w io.Writer, root *Element) error {
	bw := bufio.NewWriter(w)
	if root != nil {
		o := outliner{w: bw}
		o.tree(root, nil, 0, nil)
		o.hint()
	}
	return bw.Flush()
}

// outliner writes an outline.
type outliner struct {
	w       *bufio.Writer
	scratch []byte
	inRun   bool // a line of texts is begun: the run's next text goes on it
	offs    bool // a line of what a screen answer left out was written
	more    bool // one of them says "more", not a count (Off.Unknown)
	// win is the Window being written: its title, and its Document's
	// url, which its Tab and Document lines do not say again.
	win struct {
		title, docURL string
		tabs          bool // the Window's TabList is being written
	}
}

// tree writes the lines of e and its descendants, e at depth, a child of
// parent (nil for the root); base is the url of the nearest Document
// above e, nil when there is none.
func (o *outliner) tree(e, parent *Element, depth int, base *url.URL) {
	o.endRun()
	o.indent(depth)
	title, u := o.said(e, parent)
	o.scratch = appendParts(o.scratch[:0], e, title, u, base)
	o.w.Write(o.scratch)
	o.w.WriteByte('\n')
	if e.Role == roleDocument {
		base = parseBase(e.URL)
	}
	win := o.win
	switch {
	case e.Role == roleWindow:
		o.win.title, o.win.docURL, o.win.tabs = e.Title, "", false
		for _, c := range e.Children {
			if c.Role == roleDocument {
				o.win.docURL = c.URL
				break
			}
		}
	case e.Role == roleTabList && parent != nil && parent.Role == roleWindow:
		o.win.tabs = true
	default:
		o.win.tabs = false
	}
	if e.Off != nil && e.Off.Above > 0 {
		o.offLine(depth+1, e.Off, e.Off.Above, "above")
	}
	o.children(e, e.Children, depth+1, base)
	o.win = win
	o.endRun()
	if e.Off != nil {
		if e.Off.Below > 0 {
			o.offLine(depth+1, e.Off, e.Off.Below, "below")
		}
		if e.Off.Aside > 0 {
			o.offLine(depth+1, e.Off, e.Off.Aside, "off screen")
		}
	}
}

// hint ends an outline with offHint when it has lines of offLine,
// offHintMore when one of them says "more".
func (o *outliner) hint() {
	switch {
	case o.more:
		o.w.WriteString(offHintMore)
	case o.offs:
		o.w.WriteString(offHint)
	default:
		return
	}
	o.w.WriteByte('\n')
}

// offLine writes the line of n elements a screen answer left out, where.
func (o *outliner) offLine(depth int, off *Off, n int, where string) {
	o.endRun()
	o.indent(depth)
	if off.Unknown { // not all of it read: how much is not known
		o.scratch = append(o.scratch[:0], "… more "...)
		o.more = true
	} else {
		o.scratch = append(strconv.AppendInt(append(o.scratch[:0], "… "...), int64(n), 10), ' ')
	}
	o.scratch = append(o.scratch, where...)
	o.w.Write(o.scratch)
	o.w.WriteByte('\n')
	o.offs = true
}

// offHint is the last line of an outline with lines of offLine: what they
// are and how to read what they count.
const offHint = `(… lines count the elements below the line above them that are not on screen: read them with root, that element's id, or with scope "page")`

// offHintMore is offHint for an outline with a "… more" line: the page
// was not all read yet (a large page just loaded), and how many are
// there is not known.
const offHintMore = `(… lines count the elements below the line above them that are not on screen, or say there are more when the page is not all read yet: read them with root, that element's id, or with scope "page")`

// said returns the title and the url e's line says: its own, less what
// the lines around it say already (Outline: each thing once).
func (o *outliner) said(e, parent *Element) (title, u string) {
	title, u = e.Title, e.URL
	switch {
	case e.Role == roleTab && o.win.tabs:
		if title == o.win.title {
			title = ""
		}
		if u == o.win.docURL && slices.Contains(e.States, "selected") {
			u = ""
		}
	case e.Role == roleDocument && parent != nil && parent.Role == roleWindow:
		if title == o.win.title {
			title = ""
		}
	case e.Role == roleApplication || e.Role == roleWindow || e.Role == roleDocument:
	case title != "" && e.Omitted == 0 && carried(e):
		title = ""
	}
	return title, u
}

// carriedVisits bounds the elements carried looks at below one element,
// so that an outline stays linear in the size of the tree.
const carriedVisits = 64

// carried reports whether e's title is the text its children carry, in
// order, whitespace aside: each child's title, or for a child without
// one, the text its own children carry. It looks at most carriedVisits
// elements, and gives up as soon as the text parts from the title.
func carried(e *Element) bool {
	want := e.Title
	visits := 0
	var walk func(cs []*Element) bool // false: not the title's text
	walk = func(cs []*Element) bool {
		for _, c := range cs {
			if visits++; visits > carriedVisits {
				return false
			}
			if c.Title == "" {
				if !walk(c.Children) {
					return false
				}
				continue
			}
			rest, ok := cutSpaced(want, c.Title)
			if !ok {
				return false
			}
			want = rest
		}
		return true
	}
	return len(e.Children) > 0 && walk(e.Children) && strings.TrimSpace(want) == ""
}

// cutSpaced returns s without its prefix p, whitespace aside in both
// (the text of a name from content has spaces where its parts had none,
// and none where they had some), and whether s starts with p so.
func cutSpaced(s, p string) (string, bool) {
	i := 0
	for _, r := range p {
		if unicode.IsSpace(r) {
			continue
		}
		for i < len(s) {
			c, n := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(c) {
				break
			}
			i += n
		}
		c, n := utf8.DecodeRuneInString(s[i:])
		if n == 0 || c != r {
			return "", false
		}
		i += n
	}
	return s[i:], true
}

// children writes the lines of cs, children of parent, at depth.
func (o *outliner) children(parent *Element, cs []*Element, depth int, base *url.URL) {
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
			o.children(c, c.Children, depth, base)
			o.endRun()
		default:
			o.tree(c, parent, depth, base)
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

// Title returns title as the outline writes it (appendTitle), for a
// line that names an element as the outline does.
func Title(title string) string { return string(appendTitle(nil, title)) }

// appendTitle appends title as the outline writes it: as it is when it
// is plain words (plainTitle), else quoted.
func appendTitle(b []byte, title string) []byte {
	if plainTitle(title) {
		return append(b, title...)
	}
	return strconv.AppendQuote(b, title)
}

// plainTitle reports whether an outline writes title without quotes: it
// does not start or end with a space, has no character a Go string
// escapes, and none of " = [ < ( # ` \ ] > ), so that no part of a line
// after the title (= "value", [states], <url>, level=N, ("description"),
// (+N omitted), #id) can be read as part of it, nor it as one of them.
// Quotes cost a model's tokenizer about two tokens a title (docs/cli.md).
func plainTitle(title string) bool {
	if title == "" || title[0] == ' ' || title[len(title)-1] == ' ' {
		return false
	}
	for i := 0; i < len(title); {
		c := title[i]
		if c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f || strings.IndexByte("\"=[<(#`\\]>)", c) >= 0 {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(title[i:])
		if r == utf8.RuneError && n == 1 || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}

// line writes the outline's line of e in full, its url whole, without
// indent and newline: the line of a match of a search.
func line(w *bufio.Writer, e *Element) {
	w.Write(appendLine(nil, e, nil))
}

// appendLine appends the line of e in full, without indent and newline,
// its url relative to base when base is not nil and e is not a Document.
func appendLine(b []byte, e *Element, base *url.URL) []byte {
	return appendParts(b, e, e.Title, e.URL, base)
}

// appendParts is appendLine with e's title and url as given: empty ones
// are left out.
func appendParts(b []byte, e *Element, title, u string, base *url.URL) []byte {
	b = append(b, e.Role...)
	if title != "" {
		b = append(b, ' ')
		b = appendTitle(b, title)
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
	if u != "" {
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
	if n := e.Omitted - e.Off.total(); n > 0 {
		b = append(b, " (+"...)
		b = strconv.AppendInt(b, int64(n), 10)
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
		r, err := base.Parse(c)
		if err != nil {
			continue
		}
		s := r.String()
		if strings.HasSuffix(c, "#") && r.Fragment == "" && !strings.HasSuffix(s, "#") {
			s += "#" // Go writes no empty fragment; the reference keeps it
		}
		if s == target {
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
