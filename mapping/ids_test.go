package mapping

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"
)

// unreserved is the id alphabet of 5.2.
var unreserved = regexp.MustCompile(`^[A-Za-z0-9._~-]{1,128}$`)

// TestIDsRoundTrip makes an id of every kind, including extreme numbers,
// and parses it back.
func TestIDsRoundTrip(t *testing.T) {
	ids := NewIDs()
	refs := []Ref{
		{Kind: KindApp},
		{Kind: KindWindow, A: 1}, {Kind: KindTabList, A: 62}, {Kind: KindTab, A: 3843},
		{Kind: KindDocument, A: math.MaxInt64},
		{Kind: KindNode, A: 1, B: 0}, {Kind: KindNode, A: 7, B: 60001},
		{Kind: KindNode, A: 1 << 40, B: math.MaxInt64},
		{Kind: KindAXOnly, A: 2, B: -5}, {Kind: KindAXOnly, A: 2, B: math.MinInt64},
	}
	seen := map[string]bool{}
	for _, r := range refs {
		id := ids.Make(r)
		if !unreserved.MatchString(id) {
			t.Errorf("Make(%+v) = %q: not 1-128 URI-unreserved characters", r, id)
		}
		if seen[id] {
			t.Errorf("Make(%+v) = %q, issued twice", r, id)
		}
		seen[id] = true
		got, err := ids.Parse(id)
		if err != nil || got != r {
			t.Errorf("Parse(Make(%+v) = %q) = %+v, %v", r, id, got, err)
		}
	}
}

// TestIDsAreShort checks the length of the ids an answer is mostly made
// of: a node of the first documents of a run on a page of up to 3843 DOM
// nodes is 9 characters.
func TestIDsAreShort(t *testing.T) {
	ids := NewIDs()
	if id := ids.Node(3, 3843); len(id) != 9 {
		t.Errorf("Node(3, 3843) = %q, %d characters, want 9", id, len(id))
	}
	if id := ids.Node(61, 238327); len(id) != 10 {
		t.Errorf("Node(61, 238327) = %q, %d characters, want 10", id, len(id))
	}
}

// TestParseRejects checks that a string that is not an issued id is told
// apart: malformed, or well-formed and not issued (forged, of another run,
// not canonical).
func TestParseRejects(t *testing.T) {
	ids, other := NewIDs(), NewIDs()
	node := ids.Node(1, 42)
	mac := node[len(node)-macChars:]
	flipped := node[:len(node)-1] + string(digits[(strings.IndexByte(digits, node[len(node)-1])+1)%62])
	for _, c := range []struct {
		id   string
		want error
	}{
		{"", ErrMalformedID},
		{"abcde", ErrMalformedID},
		{strings.Repeat("1", 129), ErrMalformedID},
		{"1.G%%%%%", ErrMalformedID},
		{"1.G_abcd", ErrMalformedID},
		{"01.G" + mac, ErrMalformedID},  // a leading zero
		{"1.-0" + mac, ErrMalformedID},  // minus zero
		{"1.G.H" + mac, ErrMalformedID}, // two separators
		{"z1" + mac, ErrMalformedID},    // no such kind
		{"a1" + mac, ErrMalformedID},    // the Application has no number
		{"1.zzzzzzzzzzzz" + mac, ErrMalformedID},
		{flipped, ErrNotIssued},
		{other.Node(1, 42), ErrNotIssued},
		{ids.Node(1, 43)[:len(node)-macChars] + mac, ErrNotIssued},
	} {
		if _, err := ids.Parse(c.id); !errors.Is(err, c.want) {
			t.Errorf("Parse(%q) = %v, want %v", c.id, err, c.want)
		}
	}
}
