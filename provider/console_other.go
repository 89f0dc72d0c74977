//go:build !windows

package provider

import "os"

// prepareConsole has nothing to do on a terminal that acts on control
// sequences as they come.
func prepareConsole(*os.File) (console, error) { return console{}, nil }
