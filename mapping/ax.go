package mapping

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// axString returns an accessibility value as text: a string as is, a
// number without trailing zeros, a boolean as "true" or "false", anything
// else (null, absent, not JSON) as "".
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	// Most values are strings without escapes, numbers or booleans: read
	// without a decoder, which costs a third of mapping a page.
	switch raw := v.Value; {
	case len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && plain(raw[1:len(raw)-1]):
		if s, ok := interned[string(raw[1:len(raw)-1])]; ok {
			return s // a role or a property's word: no copy
		}
		return string(raw[1 : len(raw)-1])
	case string(raw) == "true", string(raw) == "false":
		return string(raw)
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	var x any
	if jsonv2.Unmarshal(v.Value, &x) != nil {
		return ""
	}
	switch x := x.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// plain reports whether the inside of a JSON string needs no unescaping:
// no backslash or quote, valid UTF-8.
func plain(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\' || c == '"':
			return false
		case c >= utf8.RuneSelf:
			return utf8.Valid(b[i:]) && !slices.ContainsFunc(b[i:], func(c byte) bool { return c == '\\' || c == '"' })
		}
	}
	return true
}

// interned are the strings Chrome sends over and over (every role name it
// has, the words of tristate and token properties), shared instead of
// copied for every node.
var interned = func() map[string]string {
	m := map[string]string{}
	for role := range roles {
		m[role] = role
	}
	for _, w := range []string{"true", "false", "mixed", "polite", "assertive", "off", "plaintext", "richtext", "horizontal", "vertical", "page", "step", "location", "date", "time"} {
		m[w] = w
	}
	return m
}()

// roleOf returns Chrome's computed role of n ("button", "StaticText").
func roleOf(n *accessibility.Node) string { return axString(n.Role) }

// prop returns the value of n's property name, and whether n has it.
func prop(n *accessibility.Node, name accessibility.PropertyName) (string, bool) {
	for _, p := range n.Properties {
		if p.Name == name {
			return axString(p.Value), true
		}
	}
	return "", false
}

// isTrue reports whether n's property name is true. Chrome 156 writes the
// busy property as {"type":"boolean","value":1}, so 1 is true too.
func isTrue(n *accessibility.Node, name accessibility.PropertyName) bool {
	v, _ := prop(n, name)
	return v == "true" || v == "1"
}

// collapse joins the words of s with single spaces.
func collapse(s string) string {
	if s == "" || collapsed(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// collapsed reports whether collapse would leave s as it is: ASCII whose
// only white space is single spaces between words (most text).
func collapsed(s string) bool {
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= utf8.RuneSelf, b == '\t', b == '\n', b == '\v', b == '\f', b == '\r':
			return false
		case b == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' '):
			return false
		}
	}
	return true
}

// cut shortens s to at most max characters, the last one "…". A max below
// one leaves s whole.
func cut(s string, max int) string {
	if max < 1 || utf8.RuneCountInString(s) <= max {
		return s
	}
	i, n := 0, 0
	for n < max-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return s[:i] + "…"
}

// squash removes all white space from s, to compare texts that Chrome
// splits or joins differently.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// isBullets reports whether s is made only of bullets and spaces (and has
// at least one bullet): the masked value of a password field, or the text
// of a list marker.
func isBullets(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune(bullets, r) && r != ' ' {
			return false
		}
	}
	return true
}

// bullets are the characters Chrome masks passwords with (U+2022, U+25CF)
// and draws list markers with.
const bullets = "•●◦▪▫‣⁃"
