package provider

import (
	"strings"
	"testing"

	"github.com/cdpprovider/cdpprovider/mapping"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string // in the error; "" for none
	}{
		{Config{Command: Serve, Connect: "http://127.0.0.1:9222"}, ""},
		{Config{Command: Serve, Connect: "127.0.0.1:9222"}, ""},
		{Config{Command: Serve, Connect: "ws://[::1]:9222/devtools/browser/x"}, ""},
		{Config{Command: Serve, Connect: "http://localhost:9222"}, ""},
		{Config{Command: Current, Launch: true, Headed: true, Chrome: "/x", URLs: []string{"http://a.test/"}, JSON: true}, ""},
		{Config{Command: Serve, Connect: "http://example.com:9222", AllowRemote: true}, ""},
		{Config{Command: PrintVersion}, ""},
		{Config{}, "no command"},
		{Config{Command: "tail"}, `unknown command "tail"`},
		{Config{Command: Watch}, ""},
		{Config{Command: Watch, Launch: true, JSON: true, PNG: "/tmp/p.png"}, ""},
		{Config{Command: Current, Connect: "auto", PNG: "p.png"}, ""},
		{Config{Command: Serve, Launch: true, PNG: "p.png"}, "--png is for current and watch only"},
		{Config{Command: Current, Launch: true, PNG: "p.png", NoLocate: true}, "leave out --no-locate"},
		{Config{Command: Serve}, ""}, // the browser the person uses: --connect auto
		{Config{Command: Current, Connect: "auto", UserDataDir: "/home/ann/.config/chromium"}, ""},
		{Config{Command: Serve, Connect: "wss://browser.example/s", AllowRemote: true, Headers: []string{"Authorization: Bearer x"}}, ""},
		{Config{Command: Current, Connect: "wss://browser.example/s"}, "pass --allow-remote"},
		{Config{Command: Current, Connect: "ws://10.0.0.2:9222/devtools/browser/x"}, "pass --allow-remote"},
		{Config{Command: Current, Connect: "http://[2001:db8::1]:9222"}, "pass --allow-remote"},
		{Config{Command: Current, Headers: []string{"Bearer s3cret"}}, "'Name: value'"},
		{Config{Command: Serve, Launch: true, Headers: []string{"A: b"}}, "--header needs --connect"},
		{Config{Command: Serve, Launch: true, Session: "b1"}, "--session and --hold-session need --connect"},
		{Config{Command: Current, HoldSession: true}, "--session and --hold-session need --connect"},
		{Config{Command: Current, Connect: "auto", Session: "b1"}, "--session and --hold-session need --connect"},
		{Config{Command: Current, Connect: "http://127.0.0.1:3000?token=T", Session: "b1", HoldSession: true}, ""},
		{Config{Command: Current, Server: "http://127.0.0.1:1/mcp", TokenFile: "f", Session: "b1"}, "--session and --server together"},
		{Config{Command: Serve, Launch: true, UserDataDir: "/x"}, "--user-data-dir needs --connect auto"},
		{Config{Command: Doctor}, ""},
		{Config{Command: Doctor, UserDataDir: "/x"}, ""},
		{Config{Command: Doctor, Connect: "auto"}, "only --user-data-dir"},
		{Config{Command: Serve, Connect: "http://127.0.0.1:9222", Launch: true}, "not both"},
		{Config{Command: Current, Connect: "http://example.com:9222"}, "pass --allow-remote"},
		{Config{Command: Current, Connect: "http://127.0.0.1"}, "want host and port"},
		{Config{Command: Current, Connect: "ftp://127.0.0.1:21"}, `scheme "ftp"`},
		{Config{Command: Watch, Connect: "ftp://127.0.0.1:21"}, `scheme "ftp"`},
		// serve starts with them, and answers its reads with checkBrowser's error.
		{Config{Command: Serve, Connect: "ftp://127.0.0.1:21"}, ""},
		{Config{Command: Serve, Connect: "http://example.com:9222"}, ""},
		{Config{Command: Serve, Headers: []string{"Bearer s3cret"}}, ""},
		{Config{Command: Serve, Connect: "http://127.0.0.1:9222", Headed: true}, "--headed needs --launch"},
		{Config{Command: Serve, Connect: "http://127.0.0.1:9222", Chrome: "/x"}, "--chrome needs --launch"},
		{Config{Command: Serve, Connect: "http://127.0.0.1:9222", URLs: []string{"http://a.test/"}}, "open them in the browser yourself"},
		{Config{Command: Serve, Launch: true, MaxBytes: -1}, "--max-bytes -1"},
		{Config{Command: Serve, Launch: true, JSON: true}, "--json is for current, watch, find and at only"},
		{Config{Command: Find, Launch: true, Text: "order", JSON: true, Limit: 5}, ""},
		{Config{Command: Find, Role: "Button"}, ""},
		{Config{Command: Find, Text: "^or.er$", Regex: true, Role: "Link"}, ""},
		{Config{Command: Find}, `find needs a TEXT to look for, --role ROLE, or both`},
		{Config{Command: Find, Role: "button"}, `--role "button" is not a role: did you mean "Button"?`},
		{Config{Command: Find, Role: "textbox"}, `--role "textbox" is not a role: give one as current prints it`},
		{Config{Command: Find, Text: "a(b", Regex: true}, "--regex \"a(b\" is not a regular expression (RE2 syntax): error parsing regexp: missing closing ): `a(b`"},
		{Config{Command: Find, Text: "a(b"}, ""}, // a substring, not an expression
		{Config{Command: Find, Role: "Button", Regex: true}, "--regex needs a TEXT"},
		{Config{Command: Find, Text: "a", Limit: -1}, "--limit -1"},
		{Config{Command: Find, Text: "a", Depth: new(1)}, "--depth is for current and watch only"},
		{Config{Command: Find, Text: "a", PNG: "p.png"}, "--png is for current and watch only"},
		{Config{Command: Find, Text: "a", Tools: true}, "--tools are for serve"},
		{Config{Command: Current, Role: "Button"}, "--role, --regex and --limit are for find only"},
		{Config{Command: Serve, Limit: 3}, "--role, --regex and --limit are for find only"},
		{Config{Command: Find, Text: "a", Connect: "ftp://127.0.0.1:21"}, `scheme "ftp"`},
		{Config{Command: Serve, Launch: true, Depth: new(2)}, "--depth is for current and watch only"},
		{Config{Command: Current, Launch: true, Depth: new(-1)}, "--depth -1"},
		{Config{Command: Watch, Launch: true, Depth: new(0)}, ""},
		{Config{Command: Serve, Launch: true, LogLevel: "loud"}, `--log-level "loud"`},
		{Config{Command: Serve, Launch: true, HTTP: "127.0.0.1:0", TokenFile: "/t", Tools: true}, ""},
		{Config{Command: Serve, HTTP: "localhost:8377"}, ""},
		{Config{Command: Serve, HTTP: "[::1]:8377"}, ""},
		{Config{Command: Serve, HTTP: "0.0.0.0:8377", AllowRemote: true}, ""},
		{Config{Command: Serve, Tools: true}, ""},
		{Config{Command: Serve, HTTP: "192.168.1.2:8377"}, "is not on loopback"},
		{Config{Command: Serve, HTTP: "box.example:8377"}, "pass --allow-remote"},
		{Config{Command: Serve, HTTP: ":8377"}, "every interface"},
		{Config{Command: Serve, HTTP: "127.0.0.1"}, "give host:port"},
		{Config{Command: Serve, HTTP: "127.0.0.1:http"}, "give host:port"},
		{Config{Command: Serve, HTTP: "127.0.0.1:70000"}, "give host:port"},
		{Config{Command: Serve, TokenFile: "/t"}, "--token-file needs --http"},
		{Config{Command: Current, TokenFile: "/t"}, "--token-file needs --server"},
		{Config{Command: Current, Server: "http://127.0.0.1:8123/mcp", TokenFile: "/t", Root: "32u5ar", Depth: new(2), JSON: true}, ""},
		{Config{Command: Find, Text: "a", Server: "http://localhost:8123/mcp", TokenFile: "/t"}, ""},
		{Config{Command: At, Point: []float64{1, 2}, Server: "https://[::1]:8123/mcp", TokenFile: "/t"}, ""},
		{Config{Command: At, Point: []float64{1, 2}, Server: "http://box.example:8123/mcp", TokenFile: "/t", AllowRemote: true}, ""},
		{Config{Command: Current, Server: "http://box.example:8123/mcp", TokenFile: "/t"}, "is not on loopback"},
		{Config{Command: Current, Server: "127.0.0.1:8123", TokenFile: "/t"}, "give the URL serve --http printed"},
		{Config{Command: Current, Server: "ws://127.0.0.1:8123/mcp", TokenFile: "/t"}, "give the URL serve --http printed"},
		{Config{Command: Current, Server: "http://127.0.0.1:8123/mcp"}, "--server needs --token-file"},
		{Config{Command: Watch, Server: "http://127.0.0.1:8123/mcp", TokenFile: "/t"}, "--server is for current, find and at only"},
		{Config{Command: Serve, Server: "http://127.0.0.1:8123/mcp", TokenFile: "/t"}, "--server is for current, find and at only"},
		{Config{Command: Current, Server: "http://127.0.0.1:8123/mcp", TokenFile: "/t", Connect: "auto"}, "--connect and --server together"},
		{Config{Command: Current, Server: "http://127.0.0.1:8123/mcp", TokenFile: "/t", PNG: "p.png"}, "--png and --server together"},
		{Config{Command: Find, Text: "a", Server: "http://127.0.0.1:8123/mcp", TokenFile: "/t", MaxBytes: 9}, "--max-bytes and --server together"},
		{Config{Command: Current, Launch: true, Root: "32u5ar"}, "--root needs --server"},
		{Config{Command: Find, Text: "a", Server: "http://127.0.0.1:8123/mcp", TokenFile: "/t", Root: "32u5ar"}, "--root is for current only"},
		{Config{Command: Current, Launch: true, HTTP: "127.0.0.1:0"}, "are for serve"},
		{Config{Command: Current, Launch: true, Tools: true}, "are for serve"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v.Validate() = %v, want nil", tt.cfg, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v.Validate() = %v, want an error with %q", tt.cfg, err, tt.want)
		}
	}
}

func TestBudget(t *testing.T) {
	if got := (Config{}).Budget(); got != mapping.DefaultBudget {
		t.Errorf("zero Config's Budget() = %+v, want %+v", got, mapping.DefaultBudget)
	}
	got := Config{MaxText: 10, MaxElements: 20, MaxBytes: 30}.Budget()
	if want := (mapping.Budget{MaxText: 10, MaxElements: 20, MaxBytes: 30}); got != want {
		t.Errorf("Budget() = %+v, want %+v", got, want)
	}
}
