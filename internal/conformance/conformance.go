// Package conformance checks the protocol's answers the way a host would
// see them on the wire: the JSON a provider sends, checked against the
// schemas of package schema and, for current, against the rules of
// docs/protocol.md §5 that no schema can state. Section numbers in this
// package, in comments and messages, are those of docs/protocol.md.
//
// Every test that produces an answer should pass it through here:
//
//	cur := conformance.CheckCurrent(t, raw) // fails t, or returns the decoded answer
//
// The Validate functions return the same verdict as an error, for callers
// that want to inspect it. The package only reads; it knows nothing of
// Chrome or MCP.
package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ValidateCurrent checks raw as an answer of current: against
// schema.Current, then against the rules of section 5 (unique ids, the
// focus path, at most one hovered element, states sorted, the root the
// only Application). It returns the decoded answer, or an error that
// names every rule broken.
func ValidateCurrent(raw []byte) (*mapping.Current, error) {
	cur, err := validate[mapping.Current](raw, "current", compiled().current)
	if err != nil {
		return nil, err
	}
	if err := checkRules(cur.Root); err != nil {
		return nil, fmt.Errorf("current breaks section 5: %w", err)
	}
	return cur, nil
}

// ValidateLocation checks raw as a location (section 6) against
// schema.Location and returns it decoded.
func ValidateLocation(raw []byte) (*mapping.Location, error) {
	return validate[mapping.Location](raw, "location", compiled().location)
}

// ValidateDescriptor checks raw as the descriptor (section 8) against
// schema.Descriptor and returns it decoded.
func ValidateDescriptor(raw []byte) (*mapping.Descriptor, error) {
	return validate[mapping.Descriptor](raw, "descriptor", compiled().descriptor)
}

// CheckCurrent is ValidateCurrent for tests: it fails t (fatally) when raw
// does not conform and returns the decoded answer otherwise.
func CheckCurrent(t testing.TB, raw []byte) *mapping.Current {
	t.Helper()
	return check(t, raw, ValidateCurrent)
}

// CheckLocation is ValidateLocation for tests: it fails t (fatally) when
// raw does not conform and returns the decoded location otherwise.
func CheckLocation(t testing.TB, raw []byte) *mapping.Location {
	t.Helper()
	return check(t, raw, ValidateLocation)
}

// CheckDescriptor is ValidateDescriptor for tests: it fails t (fatally)
// when raw does not conform and returns the decoded descriptor otherwise.
func CheckDescriptor(t testing.TB, raw []byte) *mapping.Descriptor {
	t.Helper()
	return check(t, raw, ValidateDescriptor)
}

func check[T any](t testing.TB, raw []byte, validate func([]byte) (*T, error)) *T {
	t.Helper()
	v, err := validate(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// validate checks raw against the schema sch and decodes it into a T.
func validate[T any](raw []byte, what string, sch *jsonschema.Schema) (*T, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s is not JSON: %w", what, err)
	}
	if err := sch.Validate(doc); err != nil {
		return nil, fmt.Errorf("%s does not match its schema: %w", what, err)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", what, err)
	}
	return &v, nil
}
