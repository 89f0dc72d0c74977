package provider

import (
	"runtime/debug"
	"testing"
)

// TestBuildVersion holds which version a build gives: the linker's,
// else a released module's (go install …@vX.Y.Z), else SourceVersion.
func TestBuildVersion(t *testing.T) {
	tests := []struct {
		linked string
		module string // the main module's version in the build information; "" for none
		want   string
	}{
		{"0.2.0", "", "0.2.0"},             // release/build.go: -X …provider.Version=0.2.0
		{"0.2.0+ci", "v0.3.0", "0.2.0+ci"}, // the linker's wins
		{SourceVersion, "v0.3.0", "0.3.0"}, // go install …@v0.3.0
		{SourceVersion, "v1.2.3-rc.1", "1.2.3-rc.1"},
		{SourceVersion, "(devel)", SourceVersion},                                   // go run, go test
		{SourceVersion, "v0.0.0-20261205144936-d62d4bf0a1b2", SourceVersion},        // go install …@main, no tag yet
		{SourceVersion, "v0.1.1-0.20261205144936-d62d4bf0a1b2", SourceVersion},      // a commit after v0.1.0
		{SourceVersion, "v0.2.0-rc.1.0.20261205144936-d62d4bf0a1b2", SourceVersion}, // a commit after a pre-release
		{SourceVersion, "v0.1.0+dirty", SourceVersion},                              // go build in a changed checkout
		{SourceVersion, "", SourceVersion},
	}
	for i, tt := range tests {
		read := func() (*debug.BuildInfo, bool) {
			if tt.module == "" {
				return nil, false
			}
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/cdpprovider/cdpprovider", Version: tt.module}}, true
		}
		if got := buildVersion(tt.linked, read); got != tt.want {
			t.Errorf("%d: buildVersion(%q, module %q) = %q, want %q", i, tt.linked, tt.module, got, tt.want)
		}
	}
}
