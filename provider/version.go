package provider

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// Name is the provider's name in the descriptor and the MCP handshake.
const Name = "cdpprovider"

// SourceVersion is the version of this source: the version a build
// that says nothing else gives. A release changes it here, in
// release/manifest.json and in release/server.json (release's tests
// hold the three equal).
const SourceVersion = "0.1.0"

// Version is the provider's version, the one that `cdpprovider version`
// prints, the MCP handshake gives and the descriptor names. A release
// build sets it with the linker (release/build.go:
// -ldflags "-X github.com/cdpprovider/cdpprovider/provider.Version=V");
// a build of a released module by `go install …@vX.Y.Z` gives that
// version; any other build gives SourceVersion.
var Version = SourceVersion

func init() {
	Version = buildVersion(Version, debug.ReadBuildInfo)
}

// buildVersion is the version of a build whose linker left linked in
// Version, and whose build information readBuildInfo reads: linked when
// the linker set it; else the main module's version when it is a
// release's (vX.Y.Z or vX.Y.Z-pre, as `go install …@version` of a tag
// records it: not "(devel)", not a pseudo-version of an untagged
// commit, not a checkout's "+dirty"); else SourceVersion.
func buildVersion(linked string, readBuildInfo func() (*debug.BuildInfo, bool)) string {
	if linked != SourceVersion {
		return linked
	}
	info, ok := readBuildInfo()
	if !ok {
		return SourceVersion
	}
	if v, ok := releaseVersion(info.Main.Version); ok {
		return v
	}
	return SourceVersion
}

// semver is a module version of a release: vMAJOR.MINOR.PATCH with an
// optional pre-release, and no build metadata.
var semver = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

// pseudo is the tail of a Go pseudo-version: a UTC timestamp of 14
// digits and a commit's 12 hex digits (go.dev/ref/mod#pseudo-versions).
var pseudo = regexp.MustCompile(`(^|[.-])[0-9]{14}-[0-9a-f]{12}$`)

// releaseVersion is module version v without its "v", when v is a
// release's.
func releaseVersion(v string) (string, bool) {
	if !semver.MatchString(v) || pseudo.MatchString(v) {
		return "", false
	}
	return strings.TrimPrefix(v, "v"), true
}
