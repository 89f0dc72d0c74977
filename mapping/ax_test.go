package mapping

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// axString reads most values without a JSON decoder; it must answer what
// the decoder would for every kind of value Chrome sends.
func TestAXString(t *testing.T) {
	for raw, want := range map[string]string{
		`"plain"`:              "plain",
		`""`:                   "",
		`"é – ✓"`:              "é – ✓",
		`"say \"hi\""`:         `say "hi"`,
		`"line\nbreak"`:        "line\nbreak",
		`"\u00e9\ud83d\ude00"`: "é😀",
		`"a\\b"`:               `a\b`,
		`3`:                    "3",
		`-2.50`:                "-2.5",
		`1e3`:                  "1000",
		`0.1`:                  "0.1",
		`true`:                 "true",
		`false`:                "false",
		`null`:                 "",
		`{"a":1}`:              "",
		`[1]`:                  "",
		`"unterminated`:        "",
		"\"bad \xff utf8\"":    "",
		`tru`:                  "",
	} {
		v := &accessibility.Value{Type: accessibility.ValueTypeString, Value: jsonv2.Value(raw)}
		if got := axString(v); got != want {
			t.Errorf("axString(%s) = %q, want %q", raw, got, want)
		}
	}
	if got := axString(nil); got != "" {
		t.Errorf("axString(nil) = %q", got)
	}
}

// collapse skips the work for text that has nothing to collapse; it must
// answer what the whole work would.
func TestCollapse(t *testing.T) {
	for _, s := range []string{
		"", " ", "a", "two words", " lead", "trail ", "two  spaces", "tab\there", "line\nbreak",
		"cr\rlf", "ff\fvt\v", "non\u00a0breaking", "ideographic\u3000space", "é accent", "  many   spaces  ",
		"next\u0085line", "a b c d e f", "x ",
	} {
		if got, want := collapse(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapse(%q) = %q, want %q", s, got, want)
		}
	}
}
