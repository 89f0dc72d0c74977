package cdp

import (
	"embed"
	"fmt"
	"regexp"
	"strings"
)

// The scripts the provider runs in its isolated world of a page live in
// js/, one file each, embedded in the binary; the Go side names each one
// as a variable (stateScript, focusScript, …) whose comment says what it
// does and returns. A file's leading // lines say which variable it is
// and are not sent. A script names a Go-side value as {{name}}, the one
// way one is put in: the binding name, a script it includes (chain.js,
// page.js), a key. fill puts the values in and panics when a placeholder
// is left, so a script missing a value stops the program as it starts
// (every fixed script is filled at package initialisation), not a read.

//go:embed js/*.js
var jsFiles embed.FS

// jsTemplate returns a script of js/ without its leading comment lines.
func jsTemplate(file string) string {
	b, err := jsFiles.ReadFile("js/" + file)
	if err != nil {
		panic(fmt.Sprintf("cdp: script %s: %v", file, err))
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "//") {
		lines = lines[1:]
	}
	return strings.Join(lines, "\n")
}

// placeholder matches a {{name}} a script has left to fill.
var placeholder = regexp.MustCompile(`\{\{[A-Za-z]+\}\}`)

// fill puts values in a script's placeholders: pairs are name, value,
// name, value, …; {{name}} becomes value. It panics when a placeholder is
// left unfilled.
func fill(script string, pairs ...string) string {
	if len(pairs)%2 != 0 {
		panic("cdp: fill wants name, value pairs")
	}
	for i := 0; i < len(pairs); i += 2 {
		script = strings.ReplaceAll(script, "{{"+pairs[i]+"}}", pairs[i+1])
	}
	if left := placeholder.FindString(script); left != "" {
		panic("cdp: script placeholder " + left + " left unfilled")
	}
	return script
}
