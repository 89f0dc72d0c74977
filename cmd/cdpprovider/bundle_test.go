package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cdpprovider/cdpprovider/provider"
)

// bundleManifest is what TestBundleServeArgs reads of the MCP Bundle's
// manifest (release/manifest.json).
type bundleManifest struct {
	Server struct {
		MCPConfig struct {
			Args              []string `json:"args"`
			PlatformOverrides map[string]struct {
				Args []string `json:"args"`
			} `json:"platform_overrides"`
		} `json:"mcp_config"`
	} `json:"server"`
	UserConfig map[string]struct {
		Type    string  `json:"type"`
		Default any     `json:"default"`
		Min     float64 `json:"min"`
		Max     float64 `json:"max"`
	} `json:"user_config"`
}

// userConfigVar is a person's setting in a manifest's arguments.
var userConfigVar = regexp.MustCompile(`\$\{user_config\.([^}]+)\}`)

// substitute is args with each ${user_config.KEY} replaced by the
// setting's value as mcpb writes it (getMcpConfigForManifest: a
// boolean "true" or "false", a number as JavaScript's String writes
// it; these are whole numbers).
func substitute(args []string, values map[string]any) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = userConfigVar.ReplaceAllStringFunc(a, func(v string) string {
			switch x := values[userConfigVar.FindStringSubmatch(v)[1]].(type) {
			case bool:
				return strconv.FormatBool(x)
			case float64:
				return strconv.FormatFloat(x, 'f', -1, 64)
			default:
				return fmt.Sprint(x)
			}
		})
	}
	return out
}

// TestBundleServeArgs reads the bundle's command line as Claude Desktop
// builds it from the person's settings, through this program's flags:
// every setting reaches serve, every value a setting allows parses, and
// each lands where it should (the browser address, the tools, the byte
// budget).
func TestBundleServeArgs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "release", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m bundleManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	args := m.Server.MCPConfig.Args
	for system, o := range m.Server.MCPConfig.PlatformOverrides {
		if o.Args != nil {
			t.Errorf("platform_overrides.%s has arguments of its own: each system should run serve with the same", system)
		}
	}

	// Each setting is used, and only settings are.
	var used []string
	for _, a := range args {
		for _, sub := range userConfigVar.FindAllStringSubmatch(a, -1) {
			used = append(used, sub[1])
		}
	}
	var declared []string
	for k := range m.UserConfig {
		declared = append(declared, k)
	}
	sort.Strings(used)
	sort.Strings(declared)
	if diff := cmp.Diff(declared, used); diff != "" {
		t.Errorf("the settings (-declared +used in the arguments):\n%s", diff)
	}

	defaults := map[string]any{}
	for k, c := range m.UserConfig {
		defaults[k] = c.Default
	}
	with := func(changes map[string]any) map[string]any {
		v := map[string]any{}
		for k, d := range defaults {
			v[k] = d
		}
		for k, c := range changes {
			v[k] = c
		}
		return v
	}
	budget := m.UserConfig["max_bytes"]
	tests := []struct {
		values map[string]any
		want   provider.Config
	}{
		{defaults, provider.Config{Command: provider.Serve, Connect: "auto", Tools: true, MaxBytes: 200000, LogLevel: "info"}},
		{with(map[string]any{"browser": "http://127.0.0.1:9222", "tools": false, "max_bytes": budget.Max}),
			provider.Config{Command: provider.Serve, Connect: "http://127.0.0.1:9222", MaxBytes: int(budget.Max), LogLevel: "info"}},
		{with(map[string]any{"browser": "", "max_bytes": budget.Min}), // a browser address cleared: auto
			provider.Config{Command: provider.Serve, Tools: true, MaxBytes: int(budget.Min), LogLevel: "info"}},
	}
	for i, tt := range tests {
		line := substitute(args, tt.values)
		cfg, err := parseArgs(line, io.Discard)
		if err != nil {
			t.Errorf("%d: %q: %v", i, line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, cfg); diff != "" {
			t.Errorf("%d: %q (-want +got):\n%s", i, line, diff)
		}
	}
}
