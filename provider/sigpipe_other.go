//go:build !unix

package provider

// ignoreSIGPIPE does nothing where there is no SIGPIPE.
func ignoreSIGPIPE() {}
