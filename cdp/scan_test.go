package cdp

import (
	"fmt"
	"strings"
	"testing"

	cdproto "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
)

// A document whose nodes are the same as at the read before (the warm
// trees' version) is not looked through again for its iframes and range
// widgets: the read takes the scan it kept (counted: scansKept), and the
// answer is the same, the iframe's content and the slider's value text
// in it. A value text changed is read again all the same; a slider added
// (new nodes) is found.
func TestUnchangedDocumentIsNotScannedAgain(t *testing.T) {
	url := serve(t, map[string]string{
		"/": `<!doctype html><title>Scan</title><h1>Scan</h1>
<input id="vol" type="range" min="0" max="10" value="7" aria-label="Volume" aria-valuetext="Loud">
<iframe src="/inner" width="300" height="100"></iframe>`,
		"/inner": `<!doctype html><title>Inner</title><p>Inside the frame</p><button>Framed</button>`,
	})
	ctx, p, u := launchFor(t, url+"/", Options{RestAfter: -1, WalkFrom: 1 << 30})
	read := func(what string, want ...string) {
		t.Helper()
		cur, err := p.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		outline := strings.Join(outlineOf(cur.Root), "\n")
		for _, w := range want {
			if !strings.Contains(outline, w) {
				t.Errorf("%s: the answer has no %s:\n%s", what, w, outline)
			}
		}
	}
	read("first read", `"title":"Framed"`, `"value":"Loud"`)
	kept := p.scansKept.Load()
	read("unchanged", `"title":"Framed"`, `"value":"Loud"`)
	if d := p.scansKept.Load() - kept; d != 2 {
		t.Errorf("an unchanged read kept the scans of %d documents, want 2 (the page and its iframe)", d)
	}

	us := u.session(t, u.tabs[0])
	u.eval(t, us, `document.getElementById('vol').setAttribute('aria-valuetext', 'Quiet'); ''`)
	u.eval(t, us, `document.body.append(Object.assign(document.createElement('input'), {type: 'range', ariaLabel: 'Balance', ariaValueText: 'Centre'})); ''`)
	read("after the changes", `"value":"Quiet"`, `"title":"Balance"`, `"value":"Centre"`, `"title":"Framed"`)
}

// rangesPage is sectionsPage's page of n sections with sliders and
// progress bars besides, each with its aria-valuetext: ranges of them in
// all, half of each.
func rangesPage(title string, n, ranges int) string {
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(sectionsPage(title, n), `</main><script>window.__reloaded = false</script>`))
	for i := range ranges {
		if i%2 == 0 {
			fmt.Fprintf(&b, `<input id="r%d" type="range" min="0" max="100" value="%d" aria-label="Slider %d" aria-valuetext="%d percent">`, i, i%100, i, i%100)
		} else {
			fmt.Fprintf(&b, `<div id="r%d" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="%d" aria-label="Progress %d" aria-valuetext="step %d"></div>`, i, i%100, i, i)
		}
	}
	b.WriteString(`</main><script>window.__reloaded = false</script>`)
	return b.String()
}

// A document whose nodes are unchanged (the warm trees' version) keeps
// its range widgets' value texts with its scan: an unchanged read asks
// for none of them (DOM.describeNode, one per widget, counted at the
// connection), whether the document is walked (a kept tree) or not (its
// last full fetch again). A change of aria-valuetext alone, set or
// removed, shows in the next read, at once and after Chrome's events:
// Chrome sends nodesUpdated for it, so the tree is a new version.
func TestValueTextsKeptWithTheTree(t *testing.T) {
	url := serve(t, map[string]string{"/": rangesPage("Ranges", 10, 12)})
	for _, c := range []struct {
		name     string
		walkFrom int
	}{{"walked", -1}, {"not walked", 1 << 30}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, p, u := launchFor(t, url+"/", Options{RestAfter: -1, WalkFrom: c.walkFrom})
			if _, err := p.Current(ctx); err != nil {
				t.Fatal(err)
			}
			if c.walkFrom < 0 {
				waitWalked(t, ctx, p)
			}
			p.mu.Lock()
			conn := p.conn
			p.mu.Unlock()
			read := func(what string, want ...string) (describes uint64) {
				t.Helper()
				before := conn.Traffic().Calls[dom.CommandDescribeNode]
				cur, err := p.Current(ctx)
				if err != nil {
					t.Fatal(err)
				}
				outline := strings.Join(outlineOf(cur.Root), "\n")
				for _, w := range want {
					if !strings.Contains(outline, w) {
						t.Errorf("%s: the answer has no %s:\n%s", what, w, outline)
					}
				}
				return conn.Traffic().Calls[dom.CommandDescribeNode] - before
			}
			read("first read", `"title":"Slider 0","value":"0 percent"`, `"title":"Progress 11","value":"step 11"`)
			kept, answers := p.textsKept.Load(), p.Answers()
			if n := read("unchanged", `"title":"Slider 0","value":"0 percent"`, `"title":"Progress 11","value":"step 11"`); n != 0 {
				t.Errorf("an unchanged read sent %d DOM.describeNode, want 0", n)
			}
			if p.textsKept.Load() == kept {
				t.Error("an unchanged read did not take the value texts it kept")
			}
			if got := p.Answers().Minus(answers); c.walkFrom < 0 && got.Kept() != got.All() {
				t.Errorf("the unchanged read was not answered from the kept tree: %v", got)
			}

			us := u.session(t, u.tabs[0])
			u.eval(t, us, `document.getElementById('r0').setAttribute('aria-valuetext', 'Loud'); document.getElementById('r11').setAttribute('aria-valuetext', 'Done'); ''`)
			if n := read("right after a change", `"title":"Slider 0","value":"Loud"`, `"title":"Progress 11","value":"Done"`); n == 0 {
				t.Error("the read after a change of aria-valuetext asked for no value text")
			}
			read("after it", `"title":"Slider 0","value":"Loud"`, `"title":"Progress 11","value":"Done"`)
			// Read once Chrome's event for the removal has come (when the
			// tree is walked; an unwalked document is read whole at once).
			events := conn.Traffic().Events["Accessibility.nodesUpdated"]
			u.eval(t, us, `document.getElementById('r0').removeAttribute('aria-valuetext'); ''`)
			if c.walkFrom < 0 {
				if err := waitFor(ctx, func() bool { return conn.Traffic().Events["Accessibility.nodesUpdated"] > events }); err != nil {
					t.Fatalf("no nodesUpdated came for the removal of aria-valuetext: %v", err)
				}
			}
			read("after Chrome's events of a removal", `"title":"Slider 0","value":"0"`, `"title":"Progress 11","value":"Done"`)
		})
	}
}

// The memo's fingerprint of a document takes its value texts, summed
// once a version (sumTexts): a document whose value texts changed, its
// nodes the same, is not answered with the element mapped before.
func TestFingerprintTakesTheValueTexts(t *testing.T) {
	fp := func(texts map[cdproto.BackendNodeID]string) uint64 {
		t.Helper()
		d := &doc{n: 3, version: 9, url: "http://127.0.0.1/", valueText: texts, textSum: sumTexts(texts)}
		f, ok := fingerprint(d, focusPath{}, pointerAt{})
		if !ok {
			t.Fatal("no fingerprint of a document read warm")
		}
		return f
	}
	loud := fp(map[cdproto.BackendNodeID]string{7: "Loud", 8: "step 1"})
	if again := fp(map[cdproto.BackendNodeID]string{8: "step 1", 7: "Loud"}); again != loud {
		t.Error("the same value texts made another fingerprint")
	}
	for _, texts := range []map[cdproto.BackendNodeID]string{
		{7: "Quiet", 8: "step 1"},
		{7: "Loud"},
		{7: "Loud", 9: "step 1"},
		nil,
	} {
		if fp(texts) == loud {
			t.Errorf("value texts %v made the fingerprint of %v", texts, map[cdproto.BackendNodeID]string{7: "Loud", 8: "step 1"})
		}
	}
}
