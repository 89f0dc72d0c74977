package cdp

import (
	"testing"

	"github.com/chromedp/cdproto/target"
)

// A focused element hidden (display: none on it or above it) keeps
// document.activeElement until Chrome's blur task runs, after the next
// style update: a read in between must not take it, or its nearest
// ancestor in the answer, for focused. The script is run in the same task
// as the change, before any blur can come; a button shown again keeps
// focus.
func TestFocusChainOfAHiddenElementIsEmpty(t *testing.T) {
	url := serve(t, map[string]string{"/": `<!doctype html><title>Hidden focus</title>
<main><section id="s"><p>Text</p><button id="b">Go</button></section></main>`})
	_, _, u := launchFor(t, url+"/", Options{RestAfter: -1})
	s := u.session(t, target.ID(u.tabs[0]))
	for _, c := range []struct{ what, setup, want string }{
		{"focused", `b.focus(); `, "2"},
		{"its section hidden", `b.focus(); s.style.display = 'none'; `, "0"},
		{"hidden itself", `s.style.display = ''; b.focus(); b.style.display = 'none'; `, "0"},
		{"shown again", `b.style.display = ''; b.focus(); `, "2"},
	} {
		got := u.eval(t, s, `(() => {
  const b = document.getElementById('b'), s = document.getElementById('s');
  `+c.setup+`
  const focused = document.activeElement;
  const chain = `+focusScript+`;
  if (document.activeElement !== focused) return 'focus moved before the script ran';
  return String(chain.filter(e => e === b || e === s).length);
})()`)
		if got != c.want {
			t.Errorf("%s: %s of the button and its section in the focus chain, want %s", c.what, got, c.want)
		}
	}
}
