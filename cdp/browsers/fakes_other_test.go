//go:build !unix

package browsers

// fakeWatched is Unix's alone: Windows' guard is a job object.
func fakeWatched() {}
