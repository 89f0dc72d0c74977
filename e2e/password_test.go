package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A password typed with real key events, into a field of the page and of
// a cross-site iframe, appears nowhere the provider writes: not in
// current's JSON, not in the outline of `cdpprovider current`, not in
// either's log at --log-level debug. A user name typed the same way does
// appear, so the checks can see typed text.
func TestTypedPasswordIsNowhere(t *testing.T) {
	needEnv(t)
	const (
		user      = "TypedUserName42"
		pagePass  = "PageSecretTyped7"
		framePass = "FrameSecretTyped9"
	)
	p := startProvider(t, env.browser.httpURL(), "--log-level", "debug")
	tb := openTab(t, env.rootCtx, env.pageA+"/password.html")
	frame := tb.frameTarget(t, env.pageB+"/password-frame.html")
	p.current(t) // the provider watches the page before anything is typed

	// typeInto clicks a field, waits for the focus, and types text.
	typeInto := func(what string, at pt, focused func() bool, text string) {
		t.Helper()
		tb.click(t, at)
		waitFor(t, "the click to focus "+what, focused)
		if err := chromedp.Do(tb.ctx, chromedp.KeyEvent(text)); err != nil {
			t.Fatalf("type into %s: %v", what, err)
		}
	}
	typeInto("the user name", center(rectOf(t, tb.ctx, `document.getElementById('user')`)),
		func() bool { return eval[string](t, tb.ctx, `document.activeElement.id`) == "user" }, user)
	typeInto("the page's password", center(rectOf(t, tb.ctx, `document.getElementById('pw')`)),
		func() bool { return eval[string](t, tb.ctx, `document.activeElement.id`) == "pw" }, pagePass)
	box := contentBox(t, tb.ctx, "#cross")
	typeInto("the cross-site frame's password", center(rectOf(t, frame, `document.getElementById('pw')`).offset(box.X, box.Y)),
		func() bool {
			return eval[bool](t, frame, `document.activeElement.id === 'pw' && document.hasFocus()`)
		}, framePass)
	waitFor(t, "the typed text in the fields", func() bool {
		return eval[string](t, tb.ctx, `document.getElementById('user').value`) == user &&
			eval[string](t, tb.ctx, `document.getElementById('pw').value`) == pagePass &&
			eval[string](t, frame, `document.getElementById('pw').value`) == framePass
	})

	secrets := []string{pagePass, framePass}
	nowhere := func(where, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("the typed password %q is in %s", s, where)
			}
		}
	}
	// The typed user name shows that the read saw what was typed: the
	// fields hold it, so the first read after must show it.
	cur := p.currentNow(t, "the typed user name in current", func(a *answer) string {
		if f := in(tb.url, "TextField", "User name")(a.Root); f == nil || f.Value != user {
			return "the user name field does not show what was typed"
		}
		return ""
	})
	nowhere("current's JSON", string(cur.raw))
	for _, f := range []struct{ url, title string }{
		{tb.url, "Page password"},
		{env.pageB + "/password-frame.html", "Frame password"},
	} {
		if e := in(f.url, "TextField", f.title)(cur.Root); e == nil {
			t.Errorf("no TextField %q in <%s>", f.title, f.url)
		} else if e.Value != "" {
			t.Errorf("TextField %q has the value %q; a password field has none", f.title, e.Value)
		}
	}

	for _, args := range [][]string{
		{"current", "--connect", env.browser.httpURL(), "--log-level", "debug"},
		{"current", "--connect", env.browser.httpURL(), "--log-level", "debug", "--json"},
	} {
		stdout, stderr, code := runBinary(t, nil, args...)
		if code != 0 {
			t.Fatalf("%q: exit status %d\nstderr:\n%s", args, code, stderr)
		}
		if !strings.Contains(stdout, user) {
			t.Errorf("%q does not show the typed user name:\n%s", args, stdout)
		}
		nowhere(strings.Join(args, " ")+"'s output", stdout)
		nowhere(strings.Join(args, " ")+"'s log", stderr)
	}
	p.locate(t, in(tb.url, "TextField", "Page password")(cur.Root).ID)
	p.descriptor(t)
	if err := p.close(); err != nil {
		t.Errorf("provider did not stop cleanly: %v", err)
	}
	if !strings.Contains(p.stderr.String(), "level=DEBUG") {
		t.Errorf("the provider logged nothing at debug:\n%s", p.stderr.String())
	}
	nowhere("the provider's log at --log-level debug", p.stderr.String())
}
