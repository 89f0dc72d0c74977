package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cdpprovider/cdpprovider/provider"
)

// usage is the program's synopsis.
const usage = `cdpprovider reports what a person sees in a Chromium-based browser over MCP.

Usage:
  cdpprovider serve   [--connect auto|URL | --launch [--headed] [--chrome PATH] [URL ...]] [--http HOST:PORT [--token-file F]] [--tools] [flags]
  cdpprovider current [--connect auto|URL | --launch [--headed] [--chrome PATH] [URL ...]] [--json] [--depth N] [--png FILE] [flags]
  cdpprovider current --server URL --token-file F [--root ID] [--json] [--depth N]
  cdpprovider watch   [--connect auto|URL | --launch [--headed] [--chrome PATH] [URL ...]] [--json] [--depth N] [--png FILE] [flags]
  cdpprovider find    TEXT [--role ROLE] [--regex] [--limit N] [--json] [--connect auto|URL | --launch [--headed] [--chrome PATH] [URL ...] | --server URL --token-file F] [flags]
  cdpprovider at      X Y [--json] [--connect auto|URL | --launch [--headed] [--chrome PATH] [URL ...] | --server URL --token-file F] [flags]
  cdpprovider doctor  [--user-data-dir DIR]
  cdpprovider version
  cdpprovider help [command]

Commands:
  serve    serve the UI context protocol over MCP on stdin/stdout, or over HTTP with --http
  current  read current once and print it (an outline, or JSON with --json)
  watch    print current, and again on every change, until Ctrl-C
  find     print the elements of current whose title, value or description holds TEXT (exit status 1: none)
  at       print the element at the point X Y of the screen, in screen points
  doctor   say what it sees of the browsers here, and what to do to read one
  version  print the name and version

Without --connect or --launch, serve, current, watch, find and at read the browser you use
(--connect auto): the one whose person allowed remote debugging at
chrome://inspect/#remote-debugging (found by its DevToolsActivePort file),
or that was started with a debugging port (found by its command line);
never one that a cdpprovider launched. With --server, current, find and at read through a
running serve --http … --tools instead, whose element ids last from one command to the next.

Run "cdpprovider COMMAND --help" for a command's flags.
`

// commands are the commands with a one-line description.
var commands = map[string]string{
	provider.Serve:        "serve the UI context protocol over MCP on stdin/stdout until the client disconnects, or with --http over Streamable HTTP until stopped",
	provider.Current:      "read current once and print it: an outline a person can read, or the JSON with --json",
	provider.Watch:        "print current, and again on every change the browser tells of, until Ctrl-C: redrawn in place on a terminal, one outline (or --json line) per change elsewhere",
	provider.Find:         "read current once and print the elements whose title, value or description holds TEXT, and/or of a role, one a line with where they are in the tree",
	provider.At:           "read current once and print what the person would hit at the point X Y of the screen (screen points, as locate answers): the innermost element there with its ancestors, a window's frame, or no window",
	provider.Doctor:       "say what it sees of the browsers on this machine, and the one next step that makes one readable",
	provider.PrintVersion: "print the name and version",
}

// parseArgs turns the command line (without the program name) into a
// Config. On a usage error it prints the error and the usage to stderr
// and returns the error; on --help it prints the usage and returns
// flag.ErrHelp.
func parseArgs(args []string, stderr io.Writer) (provider.Config, error) {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return provider.Config{}, errors.New("no command")
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if _, ok := commands[rest[0]]; ok {
				return parseArgs([]string{rest[0], "--help"}, stderr)
			}
		}
		fmt.Fprint(stderr, usage)
		return provider.Config{}, flag.ErrHelp
	}
	if _, ok := commands[name]; !ok {
		fmt.Fprintf(stderr, "cdpprovider: unknown command %q\n\n%s", name, usage)
		return provider.Config{}, fmt.Errorf("unknown command %q", name)
	}

	cfg := provider.Config{Command: name}
	fs := newFlagSet(name, &cfg, stderr)
	if name == provider.At {
		// X and Y come first; a negative one would read as a flag.
		if pt, ok := point(rest); ok {
			cfg.Point, rest = pt, rest[2:]
		}
	}
	urls, err := parseInterspersed(fs, rest)
	if err != nil {
		return provider.Config{}, err // fs printed it
	}
	if (name == provider.PrintVersion || name == provider.Doctor) && len(urls) > 0 {
		return provider.Config{}, usageError(fs, stderr, name+" takes no arguments")
	}
	if name == provider.Find {
		// TEXT comes first; with --role alone it may be left out, when no
		// URL follows.
		switch {
		case len(urls) > 1:
			cfg.Text, urls = urls[0], urls[1:]
		case len(urls) == 1:
			cfg.Text, urls = urls[0], nil
		case cfg.Role == "":
			return provider.Config{}, usageError(fs, stderr, `find needs a TEXT to look for, --role ROLE, or both`)
		}
	}
	if name == provider.At && cfg.Point == nil {
		pt, ok := point(urls)
		if !ok {
			return provider.Config{}, usageError(fs, stderr, "at needs the point X Y: two numbers, in screen points as locate answers them (the top-left of the primary screen is 0 0)")
		}
		cfg.Point, urls = pt, urls[2:]
	}
	cfg.URLs = urls
	if err := cfg.Validate(); err != nil {
		return provider.Config{}, usageError(fs, stderr, err.Error())
	}
	return cfg, nil
}

// newFlagSet makes the flags of one command, bound to cfg.
func newFlagSet(name string, cfg *provider.Config, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		args := ""
		switch name {
		case provider.Serve:
			args = " [--connect auto|URL | --launch [URL ...]] [--http HOST:PORT [--token-file F]] [--tools] [flags]"
		case provider.Current:
			args = " [--connect auto|URL | --launch [URL ...] | --server URL --token-file F [--root ID]] [flags]"
		case provider.Watch:
			args = " [--connect auto|URL | --launch [URL ...]] [flags]"
		case provider.Find:
			args = " TEXT [--role ROLE] [--regex] [--limit N] [--json] [--connect auto|URL | --launch [URL ...] | --server URL --token-file F] [flags]"
		case provider.At:
			args = " X Y [--json] [--connect auto|URL | --launch [URL ...] | --server URL --token-file F] [flags]"
		case provider.Doctor:
			args = " [--user-data-dir DIR]"
		}
		fmt.Fprintf(stderr, "Usage: cdpprovider %s%s\n\n%s.\n", name, args, commands[name])
		if name == provider.Doctor {
			fmt.Fprint(stderr, "\nExit status 0 when a browser can be read, 1 when not.\n\nFlags:\n")
		}
		if name == provider.Find {
			fmt.Fprint(stderr, "\nTEXT is found in the elements' titles, values and descriptions, case ignored; with --regex it\n"+
				"is a regular expression (RE2 syntax; (?-i) keeps case). --role alone (or with TEXT \"\") finds every\n"+
				"element of the role. The first argument is TEXT; with --launch, the URLs to open follow it.\n"+
				"Each match is a line, in reading order: its line of the outline in full (a Text's too, with its id;\n"+
				"its address whole), then \"in:\" and its ancestors' roles and titles. A password field's value is never read, so it is never found.\n"+
				"\nExit status 0 when an element matches, 1 when none does (nothing printed; with --json the\n"+
				"JSON of no matches), 2 for a usage error or a browser that could not be read.\n")
		}
		if name == provider.At {
			fmt.Fprint(stderr, "\nX Y is a point of the screen in screen points, as locate answers (the top-left of the primary\n"+
				"screen is 0 0; xdotool getmouselocation gives the pointer's on X11 at scale 1). It prints the\n"+
				"innermost element there in the window on top (the focused window, then the one activated last),\n"+
				"by the page's own hit test, through iframes: its line of the outline, then \"in:\" and its\n"+
				"ancestors. A point on a window's tab strip, toolbar or border prints that window's frame; a\n"+
				"point on no window says so. With --launch, the URLs to open follow X Y.\n")
		}
		if name == provider.Serve || name == provider.Current || name == provider.Watch || name == provider.Find || name == provider.At {
			fmt.Fprint(stderr, "\nWithout --connect or --launch, the browser you use is found (--connect auto).\n")
			fmt.Fprint(stderr, "\nWith --launch and no URL, the browser opens the built-in demo page.\n")
			if name == provider.Serve {
				fmt.Fprint(stderr, "With --http, stdout carries one line, the endpoint's URL, once it serves; without --token-file\n"+
					"a random bearer token is printed on stderr with it. SIGINT or SIGTERM stops it.\n"+
					"When the browser cannot be had (a launch that fails, an address or header that cannot be\n"+
					"used), serve starts all the same and every read answers why; a failed launch is tried\n"+
					"again on a read 10 s after the last try.\n")
			}
			if name == provider.Current || name == provider.Find || name == provider.At {
				fmt.Fprintf(stderr, "With --launch, %s reads once the pages have loaded (waiting at most %v).\n", name, provider.LoadWait)
			}
			if name == provider.Current || name == provider.Watch {
				fmt.Fprint(stderr, "\n--depth N prints N levels below the Application (with --root, below that element).\n")
			}
			if name == provider.Current || name == provider.Find || name == provider.At {
				fmt.Fprint(stderr, "\nElement ids are minted anew by each run of the provider: an id printed by one run names\n"+
					"nothing in the next. With --server URL --token-file F, "+name+" reads through a running\n"+
					"cdpprovider serve --http HOST:PORT --token-file F --tools instead, whose ids last as long as it\n"+
					"runs, so an id that find or at prints there can be given to current --root.\n")
			}
			if name == provider.Watch {
				fmt.Fprint(stderr, "\nOn a terminal, watch redraws in place: the focused element's line in orange, the\n"+
					"hovered one's in magenta. Elsewhere (a pipe, a file) it prints each answer after a\n"+
					"line of dashes, ending with an empty line. Ctrl-C ends it (exit status 0).\n")
			}
			fmt.Fprint(stderr, "\nFlags:\n")
		}
		printFlags(fs, stderr)
	}
	fs.StringVar(&cfg.LogLevel, "log-level", "info", "log `level` on stderr: debug, info, warn or error")
	fs.StringVar(&cfg.LogFile, "log-file", "", "append the log to this `file` instead of writing it on stderr")
	if name == provider.PrintVersion {
		return fs
	}
	fs.StringVar(&cfg.UserDataDir, "user-data-dir", "", "read only the browser on this user-data `directory`: its DevToolsActivePort, or a running browser on it with --remote-debugging-port (default: every running browser's, and the default directories of Chrome, Chromium, Edge and Brave)")
	if name == provider.Doctor {
		return fs
	}
	fs.StringVar(&cfg.Connect, "connect", "", "read the running browser at this debugging `address`: auto (the default: find the browser you use);\n"+
		"http://HOST:PORT, HOST:PORT or ws://HOST:PORT (its websocket found through /json/version, or, when that answers 404,\n"+
		"in the DevToolsActivePort of the browser on that port); https://HOST[:PORT]; the browser's ws:// or wss:// websocket URL;\n"+
		"or a browser service's address with its token (http://HOST:3000?token=T: the agent's session is found in its list, never a new browser)")
	fs.Func("header", "send this `'Name: value'` with every request to the browser's endpoint: the websocket handshake and the /json requests\n"+
		"(repeatable; for browser services that want a token; never logged)", func(v string) error {
		cfg.Headers = append(cfg.Headers, v)
		return nil
	})
	fs.StringVar(&cfg.Session, "session", "", "with --connect at a browser service: read the session of this `id` (its browser's, from the service's list of sessions)\n"+
		"(default: the one session whose browser has pages; the service's bare address, which starts a new, blank browser, is never read)")
	fs.BoolVar(&cfg.HoldSession, "hold-session", false, "with --connect at a browser service: keep the session connected after the agent's client left, so that the service does not end it\n"+
		"(default: let go of it, as the agent did)")
	fs.BoolVar(&cfg.Launch, "launch", false, "start a browser of our own (temporary profile, dies with the provider) on the URLs given, or on the demo page")
	fs.BoolVar(&cfg.Headed, "headed", false, "with --launch: show the browser's windows instead of running headless")
	fs.StringVar(&cfg.Chrome, "chrome", "", "with --launch: the browser executable (default: $CHROME, then chromium, chromium-browser, google-chrome, ... on PATH)")
	fs.BoolVar(&cfg.AllowRemote, "allow-remote", false, "allow a --connect address that is not on loopback (the endpoint is as powerful as the browser), and for serve an --http address that is not")
	fs.BoolVar(&cfg.NoLocate, "no-locate", false, "do not offer locate (no positions on screen)")
	fs.StringVar(&cfg.BundleID, "bundle-id", "", "the app's bundle `identifier` in the descriptor (default: derived from the browser, e.g. org.chromium.Chromium)")
	fs.IntVar(&cfg.MaxText, "max-text", 0, "most characters of one string (0: 4096)")
	fs.IntVar(&cfg.MaxElements, "max-elements", 0, "most elements of one answer (0: 50000)")
	fs.IntVar(&cfg.MaxBytes, "max-bytes", 0, "most bytes of one answer's JSON (0: 8 MiB)")
	if name == provider.Current || name == provider.Find || name == provider.At {
		fs.StringVar(&cfg.Server, "server", "", "read through the provider serving at this `URL` (serve --http … --tools printed it: http://HOST:PORT/mcp), by its tools,\n"+
			"instead of reading a browser: its ids are valid from one command to the next (needs --token-file)")
		fs.StringVar(&cfg.TokenFile, "token-file", "", "with --server: the bearer token to send, read from this `file` (the one serve --http was given, or the token it printed)")
	}
	switch name {
	case provider.Serve:
		fs.StringVar(&cfg.HTTP, "http", "", "serve MCP over Streamable HTTP at http://`HOST:PORT`/mcp instead of on stdin/stdout, to several clients at once (port 0: any free port; loopback only unless --allow-remote)")
		fs.StringVar(&cfg.TokenFile, "token-file", "", "with --http: the bearer token every request must carry, read from this `file` (default: a random one, printed on stderr at start)")
		fs.BoolVar(&cfg.Tools, "tools", false, "also offer current and locate as the read-only tools ui_current and ui_locate, and ui_find and ui_at, for hosts whose model is given tools only")
		fs.Func("rest-after", "rest this long after a host's last read when none is subscribed: no background work in the browser until the next read,\n"+
			"which reads the shown pages whole (`duration`, e.g. 30s or 5m; default 30s; never: stay awake)", func(v string) error {
			if v == "never" {
				cfg.RestAfter = -1
				return nil
			}
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("give a duration such as 30s or 5m, or never")
			}
			cfg.RestAfter = d
			return nil
		})
	case provider.Current:
		fs.BoolVar(&cfg.JSON, "json", false, "print the compact JSON answer instead of the outline")
		screenFlag(fs, cfg)
		depthFlag(fs, cfg)
		fs.StringVar(&cfg.Root, "root", "", "with --server: print only the element with this `id` and what is below it, after a line \"in:\" with its ancestors")
		fs.StringVar(&cfg.PNG, "png", "", "also write a picture of what locate says to this PNG `file`: the active tab with the frame of each element on screen (focused orange, hovered magenta, others blue)")
	case provider.Find:
		fs.StringVar(&cfg.Role, "role", "", "find only elements of this `role`, spelled as current prints it: Button, Link, TextField, Heading, ...")
		fs.BoolVar(&cfg.Regex, "regex", false, "TEXT is a regular expression (RE2 syntax, case ignored unless it has (?-i)) rather than a substring")
		fs.IntVar(&cfg.Limit, "limit", 0, "print only the first `N` matches, in reading order, then a line (+M more) (0: all)")
		fs.BoolVar(&cfg.JSON, "json", false, `print the matches as one JSON object, {"matches": [{"id", "role", "title", ..., "in": [{"role", "title"}]}], "more": M}`)
	case provider.At:
		fs.BoolVar(&cfg.JSON, "json", false, `print what is there as one JSON object, {"x", "y", "where": "page"|"window-frame"|"none", "element": {"id", "role", "title", ..., "in": [{"role", "title"}]}}`)
	case provider.Watch:
		fs.BoolVar(&cfg.JSON, "json", false, "print one compact JSON answer per line, one per change, instead of the outline")
		screenFlag(fs, cfg)
		depthFlag(fs, cfg)
		fs.StringVar(&cfg.PNG, "png", "", "also write a picture of what locate says to this PNG `file`, again after every read: the active tab with the frame of each element on screen (focused orange, hovered magenta, others blue)")
	}
	return fs
}

// screenFlag adds --screen, which sets cfg.Screen.
func screenFlag(fs *flag.FlagSet, cfg *provider.Config) {
	fs.BoolVar(&cfg.Screen, "screen", false, "print only what is on screen: in each page, the elements on screen with the elements they are in;\n"+
		"lines \"… N above\", \"… N below\", \"… N off screen\" count what was left out (omitted in the JSON)")
}

// depthFlag adds --depth, which sets cfg.Depth.
func depthFlag(fs *flag.FlagSet, cfg *provider.Config) {
	fs.Func("depth", "print only this many `levels` below the Application (0: the Application alone; default all); an element whose\n"+
		"children were cut shows how many elements were left out below it, (+N omitted) or \"omitted\": N", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("give a number of levels, 0 or more")
		}
		cfg.Depth = &n
		return nil
	})
}

// point reads the first two arguments as the point X Y.
func point(args []string) ([]float64, bool) {
	if len(args) < 2 {
		return nil, false
	}
	x, errX := strconv.ParseFloat(args[0], 64)
	y, errY := strconv.ParseFloat(args[1], 64)
	if errX != nil || errY != nil {
		return nil, false
	}
	return []float64{x, y}, true
}

// parseInterspersed parses flags that may come before, between or after
// the positional arguments (Go's flag package stops at the first of
// them), and returns the positional arguments. "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageError prints msg and where to find the flags, and returns msg as
// an error.
func usageError(fs *flag.FlagSet, stderr io.Writer, msg string) error {
	fmt.Fprintf(stderr, "cdpprovider %s: %s\nRun \"cdpprovider %s --help\" for the flags.\n", fs.Name(), msg, fs.Name())
	return errors.New(msg)
}

// printFlags is flag.PrintDefaults with the double dashes this program's
// documentation uses.
func printFlags(fs *flag.FlagSet, w io.Writer) {
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		line += "\n    \t" + strings.ReplaceAll(help, "\n", "\n    \t")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			line += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}
