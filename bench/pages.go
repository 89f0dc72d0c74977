// Package bench measures how fast the provider reads a page compared with
// Chrome's own Accessibility.getFullAXTree of the same page: cold, warm,
// after a small change, and locate, on generated pages of about 1k, 10k
// and 50k accessibility nodes, plus the peak memory of the real binary.
//
// The measurements are Go benchmarks (bench_test.go); they run only with
// -bench and need a Chromium ($CHROME, or chromium on PATH). run.sh runs
// them and prints a table against the project's targets. See README.md.
//
// This file generates the pages. bench/peers serves the same pages (its
// page server is Handler) to time the peer MCP servers, so that the
// numbers here compare with the peers' numbers there; TestPagesArePinned
// keeps their bytes those the published numbers were measured on.
package bench

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Page is one generated page.
type Page struct {
	// Name is the size label used in benchmark names: "1k", "10k", "50k".
	Name string
	// File is the path the page is served at.
	File string
	// Sections is the number of repeated sections (about 85 AX nodes each,
	// on top of about 140 for the fixed part).
	Sections int
	// Iframe adds a same-origin <iframe src=frame.html>.
	Iframe bool
	// Compact shortens the fixed part and puts one small mixed block in
	// place of the sections: the page of about 100 nodes.
	Compact bool
}

// Pages are the generated pages the Go benchmarks time, smallest first.
// The section counts were calibrated against getFullAXTree.
var Pages = []Page{
	{Name: "1k", File: "p1k.html", Sections: 10, Iframe: true},
	{Name: "10k", File: "p10k.html", Sections: 116},
	{Name: "50k", File: "p50k.html", Sections: 585},
}

// Small is the page of about 100 accessibility nodes. The Go benchmarks
// leave it out (a read there is all round trips); bench/peers times it
// beside the peers.
var Small = Page{Name: "100", File: "p100.html", Compact: true}

// FrameHTML is the document of the iframe of the 1k page.
const FrameHTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Frame</title></head>
<body><h2>Inside the iframe</h2><p>Frame paragraph with a <a href="#f1">frame link</a>.</p>
<label for="fin">Frame input</label> <input id="fin" type="text"><button type="button">Frame button</button>
</body></html>
`

// vocabulary is the word list every page's text is drawn from.
var vocabulary = strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi " +
	"omicron pi rho sigma tau upsilon phi chi psi omega")

// words returns n words chosen deterministically from seed.
func words(seed, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocabulary[(seed*7+i*13)%len(vocabulary)]
	}
	return strings.Join(w, " ")
}

// HTML returns the page's document. The same page always gives the same
// bytes.
func (p Page) HTML() string {
	var b strings.Builder
	writeHeader(&b, "Synthetic page ~"+p.Name, p.Iframe, p.Compact)
	if p.Compact {
		b.WriteString(mini)
	}
	for i := range p.Sections {
		writeSection(&b, i)
		b.WriteString("\n")
	}
	b.WriteString(footer)
	return b.String()
}

// writeHeader writes the fixed part every page starts with: landmarks, an
// ARIA tablist, a listbox with a selected option, a small form with an
// autofocused field (so a focused element exists), a checked checkbox, a
// disabled and an expanded button, and optionally the iframe. Compact
// leaves out the navigation's list and two texts.
func writeHeader(w io.StringWriter, title string, iframe, compact bool) {
	nav := `<ul>
 <li><a href="#home">Home</a></li><li><a href="#docs">Docs</a></li><li><a href="#about">About</a></li>
</ul>`
	adv := `<p>Advanced options are shown.</p>`
	overview := ` text with a <a href="#ov">link</a>`
	if compact {
		nav, adv, overview = `<a href="#home">Home</a>`, "", ""
	}
	w.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>` + title + `</title>
<style>
 body{font-family:sans-serif;margin:8px} .nest{margin-left:4px} table{border-collapse:collapse}
 td,th{border:1px solid #999;padding:1px 3px} [role=tabpanel][hidden]{display:none}
 [role=option][aria-selected=true]{background:#ddf}
</style></head>
<body>
<header><nav aria-label="Primary">` + nav + `</nav></header>
<main>
<h1>` + title + `</h1>
<form id="search" onsubmit="return false">
 <label for="q">Search query</label> <input id="q" type="search" autofocus value="">
 <label><input type="checkbox" id="opt-exact" checked> Exact match</label>
 <button type="submit">Search</button>
 <button type="button" disabled>Disabled action</button>
 <button type="button" aria-expanded="true" aria-controls="adv">Advanced</button>
</form>
<div id="adv">` + adv + `</div>
<div role="tablist" aria-label="Views">
 <button role="tab" id="tab-1" aria-selected="true" aria-controls="panel-1">Overview</button>
 <button role="tab" id="tab-2" aria-selected="false" aria-controls="panel-2" tabindex="-1">Details</button>
 <button role="tab" id="tab-3" aria-selected="false" aria-controls="panel-3" tabindex="-1">History</button>
</div>
<div role="tabpanel" id="panel-1" aria-labelledby="tab-1"><p>Overview panel` + overview + `.</p></div>
<div role="tabpanel" id="panel-2" aria-labelledby="tab-2" hidden><p>Details panel.</p></div>
<div role="tabpanel" id="panel-3" aria-labelledby="tab-3" hidden><p>History panel.</p></div>
<div id="fruit-label">Fruit</div>
<ul role="listbox" aria-labelledby="fruit-label" tabindex="0">
 <li role="option" id="opt-apple" aria-selected="false">Apple</li>
 <li role="option" id="opt-banana" aria-selected="true">Banana</li>
 <li role="option" id="opt-cherry" aria-selected="false">Cherry</li>
</ul>
`)
	if iframe {
		w.WriteString(`<iframe src="frame.html" title="Embedded frame" width="400" height="200"></iframe>` + "\n")
	}
}

// mini is what the compact page has in place of sections.
const mini = `<h2>Small section</h2>
<p>Some text with a <a href="#mini">mini link</a>.</p>
<ul><li>One</li><li>Two</li></ul>
<div class="nest"><div class="nest"><span>nested text</span></div></div>
<table><tr><th>Key</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>
`

const footer = `</main>
<footer><p>Footer text. <a href="#top">Back to top</a></p></footer>
</body></html>
`

// writeSection writes repeated section i: a heading, a paragraph with two
// links, a list of three links, nested divs, a form with a text field, a
// select, a checkbox and a button, and every fourth section a table.
func writeSection(w io.StringWriter, i int) {
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	add(`<section aria-labelledby="h-%d"><h2 id="h-%d">Section %d: %s</h2>`, i, i, i, words(i, 2))
	add(`<p>%s <a href="#s%d-a">first link %d</a> %s <a href="#s%d-b">second link %d</a> %s.</p>`,
		words(i, 8), i, i, words(i+1, 5), i, i, words(i+2, 4))
	var items strings.Builder
	for k := range 3 {
		fmt.Fprintf(&items, `<li><a href="#s%d-l%d">Item %d.%d</a> %s</li>`, i, k, i, k, words(i+k, 3))
	}
	add(`<ul>%s</ul>`, items.String())
	add(`<div class="nest"><div class="nest"><div class="nest"><span>%s</span> <strong>%s</strong></div></div></div>`,
		words(i+3, 4), words(i+4, 2))
	checked := ""
	if i%2 == 1 {
		checked = " checked"
	}
	add(`<form onsubmit="return false"><label for="in-%d">Name %d</label> <input id="in-%d" type="text" value="v%d"> `+
		`<label for="sel-%d">Choice %d</label> <select id="sel-%d"><option>One</option><option selected>Two</option></select> `+
		`<label><input type="checkbox"%s> Flag %d</label> <button type="button">Save %d</button></form>`,
		i, i, i, i, i, i, i, checked, i, i)
	if i%4 == 0 {
		var rows strings.Builder
		for r := range 3 {
			fmt.Fprintf(&rows, `<tr><td>k%d.%d</td><td>%d</td><td>%s</td></tr>`, i, r, (i*31+r*7)%1000, words(i+r, 2))
		}
		add(`<table><caption>Table %d</caption><thead><tr><th>Key</th><th>Value</th><th>Note</th></tr></thead><tbody>%s</tbody></table>`,
			i, rows.String())
	}
	add(`</section>`)
	w.WriteString(strings.Join(lines, "\n"))
}

// Handler serves the pages at /p100.html, /p1k.html, /p10k.html,
// /p50k.html and the iframe at /frame.html, uncached.
func Handler() http.Handler {
	docs := map[string]string{"/frame.html": FrameHTML}
	for _, p := range append([]Page{Small}, Pages...) {
		docs["/"+p.File] = p.HTML()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		io.WriteString(w, doc)
	})
}
