package mcp

import (
	"errors"
	"net/url"
	"strings"

	"github.com/cdpprovider/cdpprovider/mapping"
)

// The names of the binding (sections 7 and 10). This is the only place
// they are spelled.
const (
	// Scheme is the URI scheme of every resource of the provider.
	Scheme = "uicontext"
	// ExtensionID is the extension the server declares in its capabilities.
	ExtensionID = "uicontext/provider"
	// CurrentURI is the resource of the current operation (4.1).
	CurrentURI = Scheme + "://current"
	// ScreenURI is current's answer for what is on screen only
	// (docs/protocol.md, "The screen"): the same JSON, the elements on
	// screen with their ancestors.
	ScreenURI = CurrentURI + "?scope=screen"
	// DescriptorURI is the resource of the descriptor (section 8).
	DescriptorURI = Scheme + "://descriptor"
	// LocateTemplate is the RFC 6570 template of the locate operation's
	// resources (4.2); {id} is an element id.
	LocateTemplate = locatePrefix + "{id}"
	// MIMEType is the type of every resource's one content item.
	MIMEType = "application/json"
)

const locatePrefix = Scheme + "://locate/"

// Operation names, as the descriptor and the extension list them.
const (
	opCurrent = "current"
	opLocate  = "locate"
)

// errNoResource is the cause of a read of a URI that names no resource.
var errNoResource = errors.New("no resource matches the uri")

// route says whether uri names a resource of the provider and, for a
// locate URI, returns the element id it holds, percent-decoded. It fails
// with errNoResource for a URI that matches nothing (including every
// locate URI when locate is off) and with mapping.ErrMalformedID, and the
// offending id, for a locate URI whose id is not of the form of 5.2.
func route(uri string, locate bool) (id string, err error) {
	if uri == CurrentURI || uri == ScreenURI || uri == DescriptorURI {
		return "", nil
	}
	raw, ok := strings.CutPrefix(uri, locatePrefix)
	if !ok || !locate || raw == "" || strings.ContainsAny(raw, "/?#") {
		return "", errNoResource
	}
	id, err = url.PathUnescape(raw)
	if err != nil {
		return raw, mapping.ErrMalformedID
	}
	if !validID(id) {
		return id, mapping.ErrMalformedID
	}
	return id, nil
}

// validID reports whether id has the form of 5.2: 1 to 128 characters of
// A-Z a-z 0-9 . _ ~ - (the URI-unreserved characters).
func validID(id string) bool {
	if len(id) < 1 || len(id) > 128 {
		return false
	}
	for i := range len(id) {
		c := id[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '.' || c == '_' || c == '~' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}
