package cdp

import (
	"strings"
	"testing"
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
