package mapping

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodingJSON is what AppendJSON must write: encoding/json's Encoder
// without HTML escaping, the newline trimmed.
func encodingJSON(t testing.TB, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestAppendJSONIsEncodingJSON(t *testing.T) {
	cur := &Current{Protocol: "1.0", Instance: "i-1", Root: &Element{
		ID: "a", Role: "Application", Title: "Chromium", States: []string{"focused"},
		Children: []*Element{
			{ID: "b", Role: "Document", Title: `quote " back \ slash <b>&amp;</b>`, URL: "http://x/?a=1&b=<2>", Level: 2, Omitted: 3},
			{ID: "c", Role: "TextField", Value: "tab\there\nnew\rline\b\f\x00\x1f\x7f", Description: "bad \xff utf8 \u2028 \u2029 é 漢 🙂"},
			{ID: "d", Role: "Group", States: []string{}, Children: []*Element{}},
		},
	}}
	if got, want := cur.AppendJSON(nil), encodingJSON(t, cur); !bytes.Equal(got, want) {
		t.Errorf("AppendJSON:\n%s\nencoding/json:\n%s", got, want)
	}
	if got, want := (&Current{}).AppendJSON(nil), encodingJSON(t, &Current{}); !bytes.Equal(got, want) {
		t.Errorf("empty: AppendJSON %s, encoding/json %s", got, want)
	}
}

// FuzzAppendString holds the string encoding to encoding/json's on any
// bytes a page's text can hold.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\", "\x00\x01\x1f\x7f", "\xff\xfe", "\u2028\u2029", "é漢🙂", "<>&", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := &Element{ID: s, Role: s, Title: s, States: []string{s}}
		if got, want := e.AppendJSON(nil), encodingJSON(t, e); !bytes.Equal(got, want) {
			t.Errorf("%q: AppendJSON %s, encoding/json %s", s, got, want)
		}
	})
}
