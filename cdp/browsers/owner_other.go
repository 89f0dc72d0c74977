//go:build !unix

package browsers

import "os"

// fileOwner is the user id that owns a file: not told here (Windows keeps
// a file's owner in its security descriptor, and its user-data
// directories are under each user's own %LOCALAPPDATA%).
func fileOwner(os.FileInfo) (uid int, ok bool) { return 0, false }
