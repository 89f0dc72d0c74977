package e2e

import (
	"testing"

	"github.com/cdpprovider/cdpprovider/internal/conformance"
	"github.com/cdpprovider/cdpprovider/mapping"
)

// Every answer a test reads goes through the project's one conformance
// checker: the schemas of package schema and, for current, the rules of
// section 5 (unique ids, the focus path, at most one hovered element).

func checkCurrent(t testing.TB, raw []byte) *mapping.Current {
	t.Helper()
	return conformance.CheckCurrent(t, raw)
}

func checkLocation(t testing.TB, raw []byte) *mapping.Location {
	t.Helper()
	return conformance.CheckLocation(t, raw)
}

func checkDescriptor(t testing.TB, raw []byte) *mapping.Descriptor {
	t.Helper()
	return conformance.CheckDescriptor(t, raw)
}
