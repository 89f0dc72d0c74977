//go:build windows

package provider

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// prepareConsole turns on the virtual-terminal processing of the console
// f (enableVT), which a Windows console leaves off unless the program
// asks: without it the control sequences would be printed as text.
func prepareConsole(f *os.File) (console, error) {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return console{}, fmt.Errorf("read the console's mode: %w", err)
	}
	return enableVT(mode, func(m uint32) error { return windows.SetConsoleMode(h, m) })
}
