//go:build windows

package provider

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// Windows tells of a pipe whose reader has gone as ERROR_NO_DATA (a
// write to it) or ERROR_BROKEN_PIPE, wrapped by os as a *PathError.
func TestReaderGoneOnWindows(t *testing.T) {
	for _, errno := range []error{windows.ERROR_NO_DATA, windows.ERROR_BROKEN_PIPE} {
		err := fmt.Errorf("write response: %w", &os.PathError{Op: "write", Path: "|1", Err: errno})
		if !readerGone(err) {
			t.Errorf("readerGone(%v) = false, want true", err)
		}
	}
	if readerGone(windows.ERROR_ACCESS_DENIED) {
		t.Error("readerGone(ERROR_ACCESS_DENIED) = true")
	}
}

// The console modes enableVT sets are Windows' own.
func TestConsoleModesAreWindows(t *testing.T) {
	if vtProcessing != windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING || noAutoReturn != windows.DISABLE_NEWLINE_AUTO_RETURN {
		t.Errorf("vtProcessing %#x, noAutoReturn %#x; Windows says %#x, %#x", vtProcessing, noAutoReturn,
			windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING, windows.DISABLE_NEWLINE_AUTO_RETURN)
	}
}
