package wiresize

import "testing"

// TestMeasure counts by hand a small answer and an element alone.
func TestMeasure(t *testing.T) {
	el := `{"id":"1A","role":"Button","title":"Go \"now\"","states":["focused"],"children":[{"id":"1B","role":"Text","value":"x"}]}`
	cur := `{"protocol":"0.2.0","instance":"u","root":` + el + `}`
	for _, c := range []struct {
		raw        string
		bytes      int
		text       int
		textFields int
	}{
		{el, len(el), len(`Go \"now\"`) + len(`x`), len(`,"title":"Go \"now\""`) + len(`,"value":"x"`)},
		{cur, len(cur), len(`Go \"now\"`) + len(`x`), len(`,"title":"Go \"now\""`) + len(`,"value":"x"`)},
	} {
		r, err := Measure([]byte(c.raw))
		if err != nil {
			t.Fatal(err)
		}
		want := Report{Elements: 2, Bytes: c.bytes, Text: c.text, TextFields: c.textFields}
		if r != want {
			t.Errorf("Measure(%s) = %+v, want %+v", c.raw, r, want)
		}
		if got, want := r.BeyondFields(), float64(c.bytes-c.textFields)/2; got != want {
			t.Errorf("BeyondFields = %v, want %v", got, want)
		}
	}
	if _, err := Measure([]byte(`{"root":`)); err == nil {
		t.Error("Measure of broken JSON: no error")
	}
}
