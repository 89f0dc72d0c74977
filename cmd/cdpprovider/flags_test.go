package main

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cdpprovider/cdpprovider/provider"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want provider.Config
	}{
		{
			args: []string{"serve", "--connect", "http://127.0.0.1:9222"},
			want: provider.Config{Command: "serve", Connect: "http://127.0.0.1:9222", LogLevel: "info"},
		},
		{
			args: []string{"serve", "-connect=ws://localhost:9222/devtools/browser/x", "--no-locate", "--bundle-id", "com.example.B"},
			want: provider.Config{Command: "serve", Connect: "ws://localhost:9222/devtools/browser/x", NoLocate: true, BundleID: "com.example.B", LogLevel: "info"},
		},
		{
			args: []string{"serve", "--connect", "http://10.0.0.5:9222", "--allow-remote", "--log-level", "debug", "--log-file", "/tmp/x.log"},
			want: provider.Config{Command: "serve", Connect: "http://10.0.0.5:9222", AllowRemote: true, LogLevel: "debug", LogFile: "/tmp/x.log"},
		},
		{
			// Flags after and between URLs count too.
			args: []string{"serve", "--launch", "http://a.test/", "--headed", "http://b.test/", "--chrome", "/opt/chrome"},
			want: provider.Config{Command: "serve", Launch: true, Headed: true, Chrome: "/opt/chrome", URLs: []string{"http://a.test/", "http://b.test/"}, LogLevel: "info"},
		},
		{
			args: []string{"serve", "--launch", "--", "--not-a-flag"},
			want: provider.Config{Command: "serve", Launch: true, URLs: []string{"--not-a-flag"}, LogLevel: "info"},
		},
		{
			args: []string{"current", "--launch", "--json", "--max-text", "80", "--max-elements", "500", "--max-bytes", "100000"},
			want: provider.Config{Command: "current", Launch: true, JSON: true, MaxText: 80, MaxElements: 500, MaxBytes: 100000, LogLevel: "info"},
		},
		{
			args: []string{"current", "--connect", "auto", "--png", "/tmp/p.png"},
			want: provider.Config{Command: "current", Connect: "auto", PNG: "/tmp/p.png", LogLevel: "info"},
		},
		{
			args: []string{"watch", "--launch", "http://a.test/", "--json", "--png", "w.png", "--max-elements", "500"},
			want: provider.Config{Command: "watch", Launch: true, URLs: []string{"http://a.test/"}, JSON: true, PNG: "w.png", MaxElements: 500, LogLevel: "info"},
		},
		{
			args: []string{"watch"},
			want: provider.Config{Command: "watch", LogLevel: "info"},
		},
		{
			args: []string{"current", "--depth", "3", "--json"},
			want: provider.Config{Command: "current", Depth: new(3), JSON: true, LogLevel: "info"},
		},
		{
			args: []string{"watch", "--depth=0"},
			want: provider.Config{Command: "watch", Depth: new(0), LogLevel: "info"},
		},
		{
			args: []string{"version"},
			want: provider.Config{Command: "version", LogLevel: "info"},
		},
		{
			// No browser flag: the browser the person uses (auto).
			args: []string{"serve"},
			want: provider.Config{Command: "serve", LogLevel: "info"},
		},
		{
			args: []string{"current", "--connect", "auto", "--user-data-dir", "/home/ann/.config/chromium"},
			want: provider.Config{Command: "current", Connect: "auto", UserDataDir: "/home/ann/.config/chromium", LogLevel: "info"},
		},
		{
			args: []string{"serve", "--connect", "wss://browser.example/s", "--allow-remote", "--header", "Authorization: Bearer t", "--header", "X-Team: a"},
			want: provider.Config{Command: "serve", Connect: "wss://browser.example/s", AllowRemote: true, Headers: []string{"Authorization: Bearer t", "X-Team: a"}, LogLevel: "info"},
		},
		{
			args: []string{"serve", "--launch", "--http", "127.0.0.1:0", "--token-file", "/run/tok", "--tools"},
			want: provider.Config{Command: "serve", Launch: true, HTTP: "127.0.0.1:0", TokenFile: "/run/tok", Tools: true, LogLevel: "info"},
		},
		{
			args: []string{"serve", "--tools"},
			want: provider.Config{Command: "serve", Tools: true, LogLevel: "info"},
		},
		{
			args: []string{"serve", "--launch", "--http", "0.0.0.0:8377", "--allow-remote"},
			want: provider.Config{Command: "serve", Launch: true, HTTP: "0.0.0.0:8377", AllowRemote: true, LogLevel: "info"},
		},
		{
			// serve takes an address or header it cannot use: its reads say why.
			args: []string{"serve", "--connect", "http://192.0.2.1:9222", "--header", "Bearer s3cret"},
			want: provider.Config{Command: "serve", Connect: "http://192.0.2.1:9222", Headers: []string{"Bearer s3cret"}, LogLevel: "info"},
		},
		{
			args: []string{"serve", "--connect", "ws://127.0.0.1:9222"},
			want: provider.Config{Command: "serve", Connect: "ws://127.0.0.1:9222", LogLevel: "info"},
		},
		{
			// Through a serving provider, whose ids last from one command to the next.
			args: []string{"current", "--server", "http://127.0.0.1:8123/mcp", "--token-file", "/run/tok", "--root", "32u5ar", "--depth", "1"},
			want: provider.Config{Command: "current", Server: "http://127.0.0.1:8123/mcp", TokenFile: "/run/tok", Root: "32u5ar", Depth: new(1), LogLevel: "info"},
		},
		{
			args: []string{"at", "10", "20", "--server", "http://127.0.0.1:8123/mcp", "--token-file", "/run/tok", "--json"},
			want: provider.Config{Command: "at", Point: []float64{10, 20}, Server: "http://127.0.0.1:8123/mcp", TokenFile: "/run/tok", JSON: true, LogLevel: "info"},
		},
		{
			args: []string{"find", "Sign in", "--role", "Button"},
			want: provider.Config{Command: "find", Text: "Sign in", Role: "Button", LogLevel: "info"},
		},
		{
			// TEXT first, then the URLs of --launch; flags anywhere.
			args: []string{"find", "--launch", "^or.er$", "http://a.test/", "--regex", "--limit", "3", "--json", "http://b.test/"},
			want: provider.Config{Command: "find", Launch: true, Text: "^or.er$", Regex: true, Limit: 3, JSON: true,
				URLs: []string{"http://a.test/", "http://b.test/"}, LogLevel: "info"},
		},
		{
			// --role alone: no TEXT.
			args: []string{"find", "--role", "Link", "--connect", "127.0.0.1:9222"},
			want: provider.Config{Command: "find", Role: "Link", Connect: "127.0.0.1:9222", LogLevel: "info"},
		},
		{
			args: []string{"find", "", "--role", "Link"},
			want: provider.Config{Command: "find", Role: "Link", LogLevel: "info"},
		},
		{
			args: []string{"at", "120", "340.5"},
			want: provider.Config{Command: "at", Point: []float64{120, 340.5}, LogLevel: "info"},
		},
		{
			// Negative coordinates are not flags; --json after them.
			args: []string{"at", "-5", "-7", "--json"},
			want: provider.Config{Command: "at", Point: []float64{-5, -7}, JSON: true, LogLevel: "info"},
		},
		{
			// Flags first, then X Y, then the URLs of --launch.
			args: []string{"at", "--launch", "1", "2", "http://a.test/"},
			want: provider.Config{Command: "at", Launch: true, Point: []float64{1, 2}, URLs: []string{"http://a.test/"}, LogLevel: "info"},
		},
		{
			args: []string{"doctor", "--user-data-dir", "/tmp/p"},
			want: provider.Config{Command: "doctor", UserDataDir: "/tmp/p", LogLevel: "info"},
		},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		got, err := parseArgs(tt.args, &stderr)
		if err != nil {
			t.Errorf("parseArgs(%q): %v\n%s", tt.args, err, stderr.String())
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("parseArgs(%q) (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestParseArgsErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{nil, "Usage:"},
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"current", "--header", "Bearer s3cret"}, "'Name: value'"},
		{[]string{"watch", "--connect", "ftp://127.0.0.1:21"}, `scheme "ftp"`},
		{[]string{"doctor", "--connect", "auto"}, "flag provided but not defined: -connect"},
		{[]string{"doctor", "extra"}, "no arguments"},
		{[]string{"serve", "--connect", "http://127.0.0.1:9222", "--launch"}, "not both"},
		{[]string{"current", "--connect", "http://192.0.2.1:9222"}, "--allow-remote"},
		{[]string{"serve", "--connect", "http://127.0.0.1:9222", "http://a.test/"}, "need --launch"},
		{[]string{"serve", "--connect", "http://127.0.0.1:9222", "--headed"}, "--headed needs --launch"},
		{[]string{"serve", "--launch", "--json"}, "flag provided but not defined: -json"},
		{[]string{"serve", "--launch", "--png", "p.png"}, "flag provided but not defined: -png"},
		{[]string{"watch", "--launch", "--png", "p.png", "--no-locate"}, "leave out --no-locate"},
		{[]string{"watch", "--connect", "http://127.0.0.1:9222", "http://a.test/"}, "need --launch"},
		{[]string{"current", "--launch", "--max-text", "-1"}, "--max-text -1"},
		{[]string{"current", "--launch", "--log-level", "loud"}, "--log-level"},
		{[]string{"version", "--launch"}, "flag provided but not defined: -launch"},
		{[]string{"version", "extra"}, "no arguments"},
		{[]string{"current", "--launch", "--http", "127.0.0.1:0"}, "flag provided but not defined: -http"},
		{[]string{"current", "--launch", "--tools"}, "flag provided but not defined: -tools"},
		{[]string{"current", "--launch", "--depth", "-1"}, "give a number of levels, 0 or more"},
		{[]string{"watch", "--launch", "--depth", "all"}, "give a number of levels, 0 or more"},
		{[]string{"serve", "--launch", "--depth", "2"}, "flag provided but not defined: -depth"},
		{[]string{"current", "--launch", "--root", "x"}, "--root needs --server"},
		{[]string{"watch", "--root", "x"}, "flag provided but not defined: -root"},
		{[]string{"find", "x", "--root", "x"}, "flag provided but not defined: -root"},
		{[]string{"watch", "--server", "http://127.0.0.1:1/mcp"}, "flag provided but not defined: -server"},
		{[]string{"current", "--server", "http://127.0.0.1:1/mcp"}, "--server needs --token-file"},
		{[]string{"find", "x", "--token-file", "/run/tok"}, "--token-file needs --server"},
		{[]string{"at", "1", "2", "--server", "http://127.0.0.1:1/mcp", "--token-file", "/t", "--launch"}, "--launch and --server together"},
		{[]string{"serve", "--launch", "--http", "192.168.1.2:8377"}, "--allow-remote"},
		{[]string{"serve", "--launch", "--http", "8377"}, "give host:port"},
		{[]string{"serve", "--launch", "--token-file", "/run/tok"}, "--token-file needs --http"},
		{[]string{"find"}, "find needs a TEXT to look for, --role ROLE, or both"},
		{[]string{"at"}, "at needs the point X Y"},
		{[]string{"at", "12"}, "at needs the point X Y"},
		{[]string{"at", "left", "top"}, "at needs the point X Y"},
		{[]string{"at", "NaN", "1"}, "at needs the point X Y"},
		{[]string{"at", "1", "2", "--depth", "2"}, "flag provided but not defined: -depth"},
		{[]string{"at", "1", "2", "http://a.test/"}, "need --launch"},
		{[]string{"find", "--launch", "--regex"}, "find needs a TEXT to look for, --role ROLE, or both"},
		{[]string{"find", "x", "--role", "button"}, `did you mean "Button"?`},
		{[]string{"find", "a(b", "--regex"}, "not a regular expression"},
		{[]string{"find", "x", "--limit", "-2"}, "--limit -2"},
		{[]string{"find", "x", "--depth", "2"}, "flag provided but not defined: -depth"},
		{[]string{"find", "x", "--png", "p.png"}, "flag provided but not defined: -png"},
		{[]string{"find", "x", "http://a.test/"}, "need --launch"},
		{[]string{"current", "--role", "Button"}, "flag provided but not defined: -role"},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		_, err := parseArgs(tt.args, &stderr)
		if err == nil || errors.Is(err, flag.ErrHelp) {
			t.Errorf("parseArgs(%q) = %v, want a usage error", tt.args, err)
			continue
		}
		if !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("parseArgs(%q) stderr lacks %q:\n%s", tt.args, tt.want, stderr.String())
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{
		{"help"}, {"--help"}, {"-h"},
		{"help", "serve"}, {"serve", "--help"}, {"find", "--help"}, {"help", "find"}, {"current", "-h"}, {"watch", "--help"}, {"help", "watch"}, {"version", "--help"}, {"doctor", "--help"}, {"help", "doctor"},
	} {
		var stderr bytes.Buffer
		_, err := parseArgs(args, &stderr)
		if !errors.Is(err, flag.ErrHelp) {
			t.Errorf("parseArgs(%q) = %v, want flag.ErrHelp", args, err)
		}
		if !strings.Contains(stderr.String(), "Usage") {
			t.Errorf("parseArgs(%q) printed no usage:\n%s", args, stderr.String())
		}
	}
	// Every flag of a command is in its help.
	var serveHelp bytes.Buffer
	parseArgs([]string{"serve", "--help"}, &serveHelp)
	for _, f := range []string{"--http", "--token-file", "--tools", "--allow-remote"} {
		if !strings.Contains(serveHelp.String(), f+" ") && !strings.Contains(serveHelp.String(), f+"\n") {
			t.Errorf("serve --help lacks %s:\n%s", f, serveHelp.String())
		}
	}
	for _, cmd := range []string{"current", "find", "at"} {
		var stderr bytes.Buffer
		parseArgs([]string{cmd, "--help"}, &stderr)
		for _, f := range []string{"--server", "--token-file"} {
			if !strings.Contains(stderr.String(), f+" ") {
				t.Errorf("%s --help lacks %s:\n%s", cmd, f, stderr.String())
			}
		}
		if cmd == "current" && !strings.Contains(stderr.String(), "--root ") {
			t.Errorf("current --help lacks --root:\n%s", stderr.String())
		}
	}
	for _, cmd := range []string{"current", "watch", "find"} {
		var stderr bytes.Buffer
		parseArgs([]string{cmd, "--help"}, &stderr)
		if cmd == "find" {
			for _, f := range []string{"--role", "--regex", "--limit"} {
				if !strings.Contains(stderr.String(), f+" ") && !strings.Contains(stderr.String(), f+"\n") {
					t.Errorf("find --help lacks %s:\n%s", f, stderr.String())
				}
			}
			if !strings.Contains(stderr.String(), "Exit status 0 when an element matches, 1 when none does") {
				t.Errorf("find --help does not give its exit status:\n%s", stderr.String())
			}
		}
		for _, f := range []string{"--connect", "--launch", "--headed", "--chrome", "--allow-remote", "--no-locate",
			"--bundle-id", "--max-text", "--max-elements", "--max-bytes", "--json", "--png", "--log-level", "--log-file",
			"--user-data-dir", "--header"} {
			if cmd == "find" && f == "--png" {
				continue
			}
			if !strings.Contains(stderr.String(), f+" ") && !strings.Contains(stderr.String(), f+"\n") {
				t.Errorf("%s --help lacks %s:\n%s", cmd, f, stderr.String())
			}
		}
	}
}

// The help says what the code does: serve's usage line has every flag of
// its own; --connect names every form it takes; --header goes with the
// /json requests too; --log-file appends.
func TestHelpSaysWhatTheFlagsDo(t *testing.T) {
	help := func(args ...string) string {
		var stderr bytes.Buffer
		if _, err := parseArgs(args, &stderr); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("parseArgs(%q) = %v, want flag.ErrHelp", args, err)
		}
		return stderr.String()
	}
	serve := help("serve", "--help")
	usageLine, _, _ := strings.Cut(serve, "\n")
	for _, f := range []string{"--connect", "--launch", "--http HOST:PORT", "--token-file", "--tools"} {
		if !strings.Contains(usageLine, f) {
			t.Errorf("serve's usage line lacks %s: %s", f, usageLine)
		}
	}
	if !strings.Contains(serve, "every read answers why") {
		t.Errorf("serve --help does not say that reads answer why the browser cannot be had:\n%s", serve)
	}
	for _, cmd := range []string{"serve", "current", "watch"} {
		text := flagHelp(t, help(cmd, "--help"), "--connect")
		for _, form := range []string{"auto", "http://HOST:PORT", " HOST:PORT", "ws://HOST:PORT", "https://", "wss://", "DevToolsActivePort"} {
			if !strings.Contains(text, form) {
				t.Errorf("%s --help: --connect does not name %q:\n%s", cmd, form, text)
			}
		}
		if text := flagHelp(t, help(cmd, "--help"), "--header"); !strings.Contains(text, "websocket handshake") || !strings.Contains(text, "/json") {
			t.Errorf("%s --help: --header does not say it goes with the handshake and the /json requests:\n%s", cmd, text)
		}
	}
	for _, cmd := range []string{"serve", "current", "watch", "doctor", "version"} {
		if text := flagHelp(t, help(cmd, "--help"), "--log-file"); !strings.Contains(text, "append") {
			t.Errorf("%s --help: --log-file does not say it appends:\n%s", cmd, text)
		}
	}
}

// flagHelp is the help of one flag in a command's help: its line and the
// indented lines after it.
func flagHelp(t *testing.T, help, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(help, "\n  "+name+" ")
	if !ok {
		t.Fatalf("no %s in\n%s", name, help)
	}
	var lines []string
	for i, l := range strings.Split(rest, "\n") {
		if i > 0 && !strings.HasPrefix(l, "    ") {
			break
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// find exits as grep does: 0 when something matched, 1 when nothing did,
// 2 when it could not look; the other commands 1 for any failure.
func TestExitStatus(t *testing.T) {
	failed := errors.New("could not read the browser")
	for _, c := range []struct {
		command string
		err     error
		want    int
	}{
		{provider.Find, nil, 0},
		{provider.Find, provider.ErrNoMatch, 1},
		{provider.Find, failed, 2},
		{provider.Current, nil, 0},
		{provider.Current, failed, 1},
		{provider.Doctor, failed, 1},
	} {
		if got := exitStatus(c.command, c.err); got != c.want {
			t.Errorf("exitStatus(%s, %v) = %d, want %d", c.command, c.err, got, c.want)
		}
	}
}
