package cdp

import (
	"strings"
	"testing"
	"time"

	"github.com/cdpprovider/cdpprovider/cdp/wire"
)

// A read asks the tab whose document the read before read for its state
// beside the list of targets (counted: askedEarly), sends it what the
// read of its document asks first (its frame tree and, after a rest,
// Accessibility.enable) right behind its state script, and uses those
// answers (counted: aheadUsed, and each command sent once). The tab of
// a minimised window, not read, is sent nothing ahead. A tab shown
// in its place is read as before, the commands sent ahead of the other
// dropped; and a tab that had Accessibility turned on ahead of a read
// that did not show it has it turned off again.
func TestReadSendsAhead(t *testing.T) {
	url := serve(t, map[string]string{"/": sectionsPage("First", 20), "/other": sectionsPage("Second", 10)})
	ctx, p, u := launchFor(t, url+"/", Options{RestAfter: time.Hour, WalkFrom: -1})
	read := func(what, want string) {
		t.Helper()
		cur, err := p.Current(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if outline := strings.Join(outlineOf(cur.Root), "\n"); !strings.Contains(outline, want) {
			t.Fatalf("%s: the answer has no %q:\n%s", what, want, outline)
		}
	}
	var conn *wire.Conn
	sent := func(before wire.Traffic, method string) uint64 {
		return conn.Traffic().Calls[method] - before.Calls[method]
	}
	// rest rests the provider now, and has it stay awake after the next
	// read until the test ends.
	rest := func() {
		p.rest.mu.Lock()
		p.rest.after = time.Millisecond
		p.rest.timer.Reset(0)
		p.rest.mu.Unlock()
		waitResting(t, ctx, p, true)
		p.rest.mu.Lock()
		p.rest.after = time.Hour
		p.rest.mu.Unlock()
	}

	// The first read knows no tab shown before: nothing is sent ahead.
	read("first read", "Button 19")
	p.mu.Lock()
	conn = p.conn
	p.mu.Unlock()
	if n := p.aheadUsed.Load(); n != 0 {
		t.Fatalf("the first read used %d frame trees sent ahead", n)
	}
	if n := p.askedEarly.Load(); n != 0 {
		t.Fatalf("the first read asked %d tabs beside the list of targets", n)
	}
	n := p.aheadUsed.Load()
	read("second read", "Button 19")
	if p.aheadUsed.Load() == n {
		t.Error("the second read left the frame tree sent ahead unused")
	}

	// After a rest (nothing read in the background before the read, so
	// the counts are the read's), Accessibility.enable goes ahead too,
	// once.
	rest()
	n, early := p.aheadUsed.Load(), p.askedEarly.Load()
	before := conn.Traffic()
	read("read after a rest", "Button 19")
	if d := p.aheadUsed.Load() - n; d != 1 {
		t.Errorf("the read after a rest used %d frame trees sent ahead, want 1", d)
	}
	if d := p.askedEarly.Load() - early; d != 1 {
		t.Errorf("the read after a rest asked %d tabs beside the list of targets, want 1", d)
	}
	if d := sent(before, "Accessibility.enable"); d != 1 {
		t.Errorf("the read after a rest sent Accessibility.enable %d times, want 1", d)
	}
	if d := sent(before, "Page.getFrameTree"); d != 1 {
		t.Errorf("the read after a rest sent %d frame trees, want 1", d)
	}

	// At rest, the person opens another tab in front of the first. The
	// read sends the first tab's frame tree and Accessibility.enable
	// ahead, finds it not shown, uses neither, reads the second tab as
	// before, and turns Accessibility off again in the first.
	rest()
	u.openSecondTab(t, url+"/other")
	u.front(t, 1)
	n, early = p.aheadUsed.Load(), p.askedEarly.Load()
	before = conn.Traffic()
	read("read of a tab shown since", "Button 9")
	if d := p.aheadUsed.Load() - n; d != 0 {
		t.Errorf("a read of a tab not shown before used %d frame trees sent ahead", d)
	}
	if d := p.askedEarly.Load() - early; d != 1 {
		t.Errorf("the read asked %d tabs beside the list of targets, want 1 (the tab shown last)", d)
	}
	if d := sent(before, "Page.getFrameTree"); d != 2 {
		t.Errorf("%d frame trees sent, want 2 (ahead in the tab shown last, then in the tab shown)", d)
	}
	if d := sent(before, "Accessibility.enable"); d != 2 {
		t.Errorf("Accessibility.enable sent %d times, want 2 (ahead in the tab shown last, then in the tab shown)", d)
	}
	if d := sent(before, "Accessibility.disable"); d != 1 {
		t.Errorf("Accessibility.disable sent %d times, want 1 (in the tab turned on ahead and not shown)", d)
	}
	if s := sessionOf(t, p, u.tabs[0]); s.ax.Load() != nil {
		t.Error("the tab not shown keeps warm trees")
	}

	// The person minimises the window: its active tab, not read, is
	// neither asked early nor sent anything ahead at the reads after.
	u.minimize(t, 1)
	read("read of the minimised window", "Window")
	rest()
	early = p.askedEarly.Load()
	before = conn.Traffic()
	read("read of the minimised window after a rest", "Window")
	if d := p.askedEarly.Load() - early; d != 0 {
		t.Errorf("a read asked %d tabs of a minimised window beside the list of targets", d)
	}
	if d := sent(before, "Accessibility.enable"); d != 0 {
		t.Errorf("a read turned Accessibility on %d times with no tab shown", d)
	}
}
