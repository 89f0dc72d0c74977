// Command release builds a release of cdpprovider: the binaries of six
// systems with the version stamped, their archives, the MCP Bundle for
// Claude Desktop, the MCP Registry's server.json and SHA256SUMS.
//
// From the repository's root:
//
//	go run ./release [-version V] [-out DIR]
//
// V defaults to the version of this source (provider.Version). Into DIR
// (default release/dist, emptied first) it writes:
//
//	cdpprovider_V_linux_amd64.tar.gz    and linux/arm64, darwin/amd64, darwin/arm64
//	cdpprovider_V_windows_amd64.zip     and windows/arm64
//	cdpprovider.mcpb                    the bundle: manifest.json and the binaries it starts
//	server.json                         release/server.json for V, with the bundle's URL and SHA-256
//	SHA256SUMS                          of the archives and the bundle (sha256sum -c reads it)
//
// It needs Go, and Node.js with npm for the bundle: it installs the
// pinned @anthropic-ai/mcpb of release/package-lock.json into
// release/node_modules (npm ci, once), validates release/manifest.json
// with it, packs the bundle and prints `mcpb info` of the result.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cdpprovider/cdpprovider/provider"
)

// versionVar is the variable the linker sets to the release's version.
const versionVar = "github.com/cdpprovider/cdpprovider/provider.Version"

// target is one system and processor a release is built for.
type target struct {
	goos, goarch string
	// inBundle is whether the bundle holds this binary: whether its
	// manifest can start it. A manifest picks its command by system
	// only (platform_overrides, keyed by Node's process.platform);
	// on macOS and Linux release/cdpprovider.sh picks the processor's
	// binary, but Windows has no such launcher the host can start (Node
	// will not spawn a .cmd without a shell), so the bundle starts the
	// amd64 binary there, which Windows 11 on Arm runs emulated.
	inBundle bool
}

// targets are the systems and processors of a release, in the order
// they are built.
var targets = []target{
	{"linux", "amd64", true}, {"linux", "arm64", true},
	{"darwin", "amd64", true}, {"darwin", "arm64", true},
	{"windows", "amd64", true}, {"windows", "arm64", false},
}

// exe is the name of the program's file on t's system.
func (t target) exe() string {
	if t.goos == "windows" {
		return "cdpprovider.exe"
	}
	return "cdpprovider"
}

// bundled is the name of t's binary in the bundle's server directory,
// where they lie side by side.
func (t target) bundled() string {
	name := "cdpprovider-" + t.goos + "-" + t.goarch
	if t.goos == "windows" {
		name += ".exe"
	}
	return name
}

// archive is the name of t's archive in a release of version v.
func (t target) archive(v string) string {
	name := fmt.Sprintf("cdpprovider_%s_%s_%s", v, t.goos, t.goarch)
	if t.goos == "windows" {
		return name + ".zip"
	}
	return name + ".tar.gz"
}

func main() {
	version := flag.String("version", provider.Version, "the `version` to stamp, as `cdpprovider version` prints it (default: this source's)")
	out := flag.String("out", filepath.Join("release", "dist"), "the `directory` to write the release into (emptied first)")
	flag.Parse()
	if err := release(*version, *out); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

// release builds the release of version v into out, from the module in
// the current directory.
func release(v, out string) error {
	if v == "" || strings.ContainsAny(v, " /\\\"") {
		return fmt.Errorf("version %q: give one such as 0.2.0 or 0.2.0-rc.1", v)
	}
	if err := emptyOrRelease(out); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join("release", "manifest.json")); err != nil {
		return errors.New("run it from the repository's root: go run ./release")
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	work := filepath.Join(out, ".work")
	bundle := filepath.Join(work, "bundle")
	if err := os.MkdirAll(filepath.Join(bundle, "server"), 0o755); err != nil {
		return err
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return err
	}
	var sums []string // the files SHA256SUMS covers, in out
	for _, t := range targets {
		bin := filepath.Join(work, t.bundled())
		start := time.Now()
		if err := build(t, v, bin); err != nil {
			return err
		}
		fmt.Printf("built %s/%s (%s)\n", t.goos, t.goarch, time.Since(start).Round(time.Second))
		program, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		if t.inBundle {
			if err := os.WriteFile(filepath.Join(bundle, "server", t.bundled()), program, 0o755); err != nil {
				return err
			}
		}
		files := []file{{t.exe(), program, 0o755}, {"README.md", readme, 0o644}}
		name := t.archive(v)
		if err := writeArchive(filepath.Join(out, name), files); err != nil {
			return err
		}
		sums = append(sums, name)
	}
	if err := stageBundle(v, bundle); err != nil {
		return err
	}
	mcpb := filepath.Join(out, "cdpprovider.mcpb")
	if err := packBundle(bundle, mcpb); err != nil {
		return err
	}
	sums = append(sums, "cdpprovider.mcpb")
	bundleSum, err := sha256File(mcpb)
	if err != nil {
		return err
	}
	if err := writeServerJSON(v, bundleSum, filepath.Join(out, "server.json")); err != nil {
		return err
	}
	if err := writeSums(out, sums); err != nil {
		return err
	}
	if err := os.RemoveAll(work); err != nil {
		return err
	}
	fmt.Printf("release %s in %s\n", v, out)
	return nil
}

// emptyOrRelease fails unless out, which release empties, is new, empty
// or a release (it has SHA256SUMS, or the .work of one that failed): a
// -out given by mistake (".") must not be emptied.
func emptyOrRelease(out string) error {
	entries, err := os.ReadDir(out)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	for _, name := range []string{"SHA256SUMS", ".work"} {
		if _, err := os.Stat(filepath.Join(out, name)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%s holds files and no release: give a new or empty directory, which is emptied", out)
}

// build builds cmd/cdpprovider for t with version v stamped, into bin:
// without cgo (a binary that needs no C library), without the paths of
// this machine (-trimpath), without the symbol table and DWARF (-s -w:
// a panic's stack still names functions).
func build(t target, v, bin string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X "+versionVar+"="+v, "-o", bin, "./cmd/cdpprovider")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s/%s: %w", t.goos, t.goarch, err)
	}
	return nil
}

// file is one file of an archive.
type file struct {
	name string
	data []byte
	mode int64
}

// writeArchive writes files to path: a zip when path ends in .zip,
// else a gzipped tar; the files at its top, so that unpacking it into a
// directory puts the program there.
func writeArchive(path string, files []file) error {
	var buf bytes.Buffer
	mtime := time.Now().UTC().Truncate(time.Second)
	if strings.HasSuffix(path, ".zip") {
		zw := zip.NewWriter(&buf)
		for _, f := range files {
			h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mtime}
			h.SetMode(os.FileMode(f.mode))
			w, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			if _, err := w.Write(f.data); err != nil {
				return err
			}
		}
		if err := zw.Close(); err != nil {
			return err
		}
	} else {
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, f := range files {
			h := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			if _, err := tw.Write(f.data); err != nil {
				return err
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		if err := gz.Close(); err != nil {
			return err
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// stageBundle writes into dir, beside the binaries in dir/server,
// the bundle's manifest (release/manifest.json for version v) and the
// launcher that picks a Unix system's binary (release/cdpprovider.sh).
func stageBundle(v, dir string) error {
	manifest, err := os.ReadFile(filepath.Join("release", "manifest.json"))
	if err != nil {
		return err
	}
	manifest, err = withVersion(manifest, v)
	if err != nil {
		return fmt.Errorf("release/manifest.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		return err
	}
	launcher, err := os.ReadFile(filepath.Join("release", "cdpprovider.sh"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "server", "cdpprovider.sh"), launcher, 0o755)
}

// withVersion is the manifest with its version, which is
// provider.SourceVersion (TestTemplatesSayTheSourceVersion), made v.
func withVersion(manifest []byte, v string) ([]byte, error) {
	field := []byte(`"version": "` + provider.SourceVersion + `"`)
	if n := bytes.Count(manifest, field); n != 1 {
		return nil, fmt.Errorf("has %s %d times, want once", field, n)
	}
	return bytes.Replace(manifest, field, []byte(`"version": "`+v+`"`), 1), nil
}

// mcpbCLI is the pinned mcpb command line tool, as release/package.json
// and its lock name it; npm ci installs it.
var mcpbCLI = filepath.Join("release", "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js")

// packBundle validates the manifest staged in dir, packs dir into mcpb
// and prints `mcpb info` of it, with the pinned mcpb.
func packBundle(dir, mcpb string) error {
	if err := npmCI(); err != nil {
		return err
	}
	cli, err := filepath.Abs(mcpbCLI)
	if err != nil {
		return err
	}
	if mcpb, err = filepath.Abs(mcpb); err != nil {
		return err
	}
	// In dir, so that pack lists the bundle's files by their paths in it.
	for _, args := range [][]string{
		{"validate", "manifest.json"},
		{"pack", ".", mcpb},
		{"info", mcpb},
	} {
		fmt.Printf("== mcpb %s\n", strings.Join(args, " "))
		cmd := exec.Command("node", append([]string{cli}, args...)...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("mcpb %s: %w", args[0], err)
		}
	}
	return nil
}

// npmCI installs release/package-lock.json's packages into
// release/node_modules unless they are there, installed from this lock.
func npmCI() error {
	lock, err := os.Stat(filepath.Join("release", "package-lock.json"))
	if err != nil {
		return err
	}
	if installed, err := os.Stat(filepath.Join("release", "node_modules", ".package-lock.json")); err == nil && !lock.ModTime().After(installed.ModTime()) {
		if _, err := os.Stat(mcpbCLI); err == nil {
			return nil
		}
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return errors.New("the bundle needs Node.js 20 or later with npm on PATH (npm ci installs the pinned @anthropic-ai/mcpb)")
	}
	fmt.Println("== npm ci (release/package-lock.json)")
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = "release"
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm ci in release: %w", err)
	}
	return nil
}

// serverJSON is the MCP Registry's server.json, the fields it documents
// that this one uses (static.modelcontextprotocol.io/schemas/2025-12-11),
// in their order.
type serverJSON struct {
	Schema      string     `json:"$schema"`
	Name        string     `json:"name"`
	Title       string     `json:"title,omitempty"`
	Description string     `json:"description"`
	Version     string     `json:"version"`
	WebsiteURL  string     `json:"websiteUrl,omitempty"`
	Repository  repository `json:"repository"`
	Packages    []pkg      `json:"packages"`
}

// repository is server.json's repository.
type repository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

// pkg is one of server.json's packages: an MCP Bundle.
type pkg struct {
	RegistryType string    `json:"registryType"`
	Identifier   string    `json:"identifier"`
	Version      string    `json:"version,omitempty"`
	FileSHA256   string    `json:"fileSha256,omitempty"`
	Transport    transport `json:"transport"`
}

// transport is a package's transport.
type transport struct {
	Type string `json:"type"`
}

// readServerJSON reads a server.json, refusing a field serverJSON does
// not know (which writing it again would drop).
func readServerJSON(path string) (serverJSON, error) {
	var s serverJSON
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// bundleURL is where the bundle of release v is downloaded from: the
// release's assets on GitHub, under its tag vV.
func bundleURL(repo, v string) string {
	return repo + "/releases/download/v" + v + "/cdpprovider.mcpb"
}

// writeServerJSON writes release/server.json for version v to path: its
// version and its bundle's version, URL and SHA-256 (bundleSum) those of
// the release.
func writeServerJSON(v, bundleSum, path string) error {
	s, err := readServerJSON(filepath.Join("release", "server.json"))
	if err != nil {
		return err
	}
	s.Version = v
	for i := range s.Packages {
		p := &s.Packages[i]
		if p.RegistryType != "mcpb" {
			continue
		}
		p.Version, p.Identifier, p.FileSHA256 = v, bundleURL(s.Repository.URL, v), bundleSum
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// sha256File is the SHA-256 of the file at path, in hex.
func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeSums writes dir/SHA256SUMS: a line "HASH  NAME" for each of the
// named files of dir, by name, as sha256sum writes them (and `sha256sum
// -c SHA256SUMS` checks).
func writeSums(dir string, names []string) error {
	names = append([]string(nil), names...)
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		sum, err := sha256File(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, name)
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}
