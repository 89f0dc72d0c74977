//go:build !unix

package provider

import "time"

// resizePoll is how often the terminal's size is asked.
const resizePoll = 250 * time.Millisecond

// followResize tells c when the terminal changes size, until the
// returned stop is called. Where no signal tells of it (a Windows
// console: no SIGWINCH), the size is asked every resizePoll.
func followResize(c chan<- struct{}, size func() (cols, rows int)) (stop func()) {
	return pollResize(c, size, resizePoll)
}
