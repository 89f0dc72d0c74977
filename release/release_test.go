package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/provider"
)

// registrySchema is the server.json schema the MCP Registry documents
// today (modelcontextprotocol.io/registry/package-types).
const registrySchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// TestTemplatesSayTheSourceVersion holds release/manifest.json and
// release/server.json to the version of the source, the one a build
// without a stamp prints: a release changes the three together.
func TestTemplatesSayTheSourceVersion(t *testing.T) {
	var manifest struct {
		Version string `json:"version"`
	}
	data, err := os.ReadFile("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.Version != provider.SourceVersion {
		t.Errorf("release/manifest.json says version %q, provider.SourceVersion is %q", manifest.Version, provider.SourceVersion)
	}
	s, err := readServerJSON("server.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != provider.SourceVersion {
		t.Errorf("release/server.json says version %q, provider.SourceVersion is %q", s.Version, provider.SourceVersion)
	}
	for _, p := range s.Packages {
		if p.Version != provider.SourceVersion || p.Identifier != bundleURL(s.Repository.URL, provider.SourceVersion) {
			t.Errorf("release/server.json's package is version %q at %s, want %q at %s", p.Version, p.Identifier, provider.SourceVersion, bundleURL(s.Repository.URL, provider.SourceVersion))
		}
	}
}

// checkServerJSON checks s against the fields the MCP Registry
// documents (its server.json reference and package types): the
// schema, a name namespace/name, a description of at most 100
// characters, a GitHub repository, and one MCP Bundle on GitHub's
// release assets whose URL contains "mcp", served over stdio, with its
// SHA-256 when withSum.
func checkServerJSON(s serverJSON, withSum bool) []string {
	var bad []string
	if s.Schema != registrySchema {
		bad = append(bad, fmt.Sprintf("$schema %q, want %q", s.Schema, registrySchema))
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(s.Name) || len(s.Name) < 3 || len(s.Name) > 200 {
		bad = append(bad, fmt.Sprintf("name %q is not namespace/name (3 to 200 characters)", s.Name))
	}
	if !strings.HasPrefix(s.Name, "io.github.cdpprovider/") {
		bad = append(bad, fmt.Sprintf("name %q is not in the repository owner's namespace io.github.cdpprovider", s.Name))
	}
	if n := len([]rune(s.Description)); n < 1 || n > 100 {
		bad = append(bad, fmt.Sprintf("description of %d characters, want 1 to 100", n))
	}
	if s.Repository.Source != "github" || !strings.HasPrefix(s.Repository.URL, "https://github.com/") {
		bad = append(bad, fmt.Sprintf("repository %+v, want one on github.com", s.Repository))
	}
	if len(s.Packages) != 1 {
		return append(bad, fmt.Sprintf("%d packages, want the bundle only", len(s.Packages)))
	}
	p := s.Packages[0]
	u, err := url.Parse(p.Identifier)
	switch {
	case p.RegistryType != "mcpb":
		bad = append(bad, fmt.Sprintf("registryType %q, want mcpb", p.RegistryType))
	case err != nil || u.Scheme != "https" || u.Host != "github.com" || !strings.Contains(u.Path, "/releases/download/"):
		bad = append(bad, fmt.Sprintf("identifier %q is not a GitHub release asset", p.Identifier))
	case !strings.Contains(p.Identifier, "mcp"):
		bad = append(bad, fmt.Sprintf("identifier %q does not contain \"mcp\"", p.Identifier))
	}
	if p.Transport.Type != "stdio" {
		bad = append(bad, fmt.Sprintf("transport %q, want stdio", p.Transport.Type))
	}
	if withSum != regexp.MustCompile(`^[a-f0-9]{64}$`).MatchString(p.FileSHA256) {
		bad = append(bad, fmt.Sprintf("fileSha256 %q (want one: %v)", p.FileSHA256, withSum))
	}
	return bad
}

// TestServerJSON checks release/server.json, and the server.json a
// release writes from it, against the registry's documented fields.
func TestServerJSON(t *testing.T) {
	s, err := readServerJSON("server.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range checkServerJSON(s, false) {
		t.Errorf("release/server.json: %s", bad)
	}

	out := filepath.Join(t.TempDir(), "server.json")
	sum := strings.Repeat("0a", 32)
	t.Chdir("..")
	if err := writeServerJSON("0.9.1-rc.2", sum, out); err != nil {
		t.Fatal(err)
	}
	w, err := readServerJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range checkServerJSON(w, true) {
		t.Errorf("the release's server.json: %s", bad)
	}
	p := w.Packages[0]
	if w.Version != "0.9.1-rc.2" || p.Version != "0.9.1-rc.2" || p.FileSHA256 != sum ||
		p.Identifier != "https://github.com/cdpprovider/cdpprovider/releases/download/v0.9.1-rc.2/cdpprovider.mcpb" {
		t.Errorf("the release's server.json: version %q, package %+v", w.Version, p)
	}
}

// TestWithVersion: the bundle's manifest says the release's version.
func TestWithVersion(t *testing.T) {
	in := []byte(`{"name": "cdpprovider", "version": "` + provider.SourceVersion + `", "x": 1}`)
	got, err := withVersion(in, "2.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name": "cdpprovider", "version": "2.0.0", "x": 1}`; string(got) != want {
		t.Errorf("withVersion = %s, want %s", got, want)
	}
	if _, err := withVersion([]byte(`{"version": "9.9.9"}`), "2.0.0"); err == nil {
		t.Error("withVersion of a manifest without the source's version succeeded")
	}
}

// TestArchives: each archive holds the program, executable, and the
// README at its top; SHA256SUMS reads as sha256sum writes it.
func TestArchives(t *testing.T) {
	dir := t.TempDir()
	files := []file{{"cdpprovider", []byte("program"), 0o755}, {"README.md", []byte("readme"), 0o644}}
	for _, name := range []string{"a.tar.gz", "a.zip"} {
		if err := writeArchive(filepath.Join(dir, name), files); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]string{} // archive/name → mode and content
	f, err := os.Open(filepath.Join(dir, "a.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		got["tar/"+h.Name] = fmt.Sprintf("%o %s", h.Mode, data)
	}
	zr, err := zip.OpenReader(filepath.Join(dir, "a.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		r, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(r)
		r.Close()
		got["zip/"+zf.Name] = fmt.Sprintf("%o %s", zf.Mode().Perm(), data)
	}
	want := map[string]string{
		"tar/cdpprovider": "755 program", "tar/README.md": "644 readme",
		"zip/cdpprovider": "755 program", "zip/README.md": "644 readme",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("archives hold %v, want %v", got, want)
	}

	if err := writeSums(dir, []string{"a.zip", "a.tar.gz"}); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var wantSums bytes.Buffer
	for _, name := range []string{"a.tar.gz", "a.zip"} {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		h := sha256.Sum256(data)
		fmt.Fprintf(&wantSums, "%s  %s\n", hex.EncodeToString(h[:]), name)
	}
	if string(sums) != wantSums.String() {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", sums, wantSums.String())
	}
}

// TestReleaseEmptiesOnlyARelease: -out names a directory release
// empties; one that holds other files is refused and left as it was.
func TestReleaseEmptiesOnlyARelease(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(kept, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := release("1.0.0", dir)
	if err == nil || !strings.Contains(err.Error(), "no release") {
		t.Errorf("release into a directory of other files: %v, want a refusal", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the directory's file: %v", err)
	}
	for _, ok := range []string{filepath.Join(dir, "new"), t.TempDir()} {
		if err := emptyOrRelease(ok); err != nil {
			t.Errorf("emptyOrRelease(%s): %v", ok, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "SHA256SUMS"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := emptyOrRelease(dir); err != nil {
		t.Errorf("emptyOrRelease of a release: %v", err)
	}
}
