//go:build !windows

package browsers

import "os"

// currentUser is the provider's user, as processUsers names a
// process's.
func currentUser() UserID { return uidUser(os.Getuid()) }
