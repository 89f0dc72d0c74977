// Package schema owns the JSON Schemas (draft 2020-12) of the protocol's
// wire documents, version 0.2.0 (docs/protocol.md): the answer of current
// (§4.1 and §5), a location (§6) and the descriptor (§8). The files
// beside this one are the source; they are embedded so that tests and
// tools need no file system.
//
// A schema checks what a schema can. The rules of §5 it cannot
// state (unique ids, the focus path, the single hovered element) are
// checked by internal/conformance, which validates against these files.
//
// The package holds data only: it validates nothing itself and imports
// nothing of the project.
package schema

import "embed"

// FS holds the three schema files, by their file names.
//
//go:embed current-0.2.0.json location-0.2.0.json descriptor-0.2.0.json
var FS embed.FS

// Current is the schema of the current answer, current-0.2.0.json.
//
//go:embed current-0.2.0.json
var Current []byte

// Location is the schema of a location, location-0.2.0.json.
//
//go:embed location-0.2.0.json
var Location []byte

// Descriptor is the schema of the descriptor, descriptor-0.2.0.json.
//
//go:embed descriptor-0.2.0.json
var Descriptor []byte

// The $id of each schema. A validator registers the schema under it.
const (
	CurrentID    = base + "current-0.2.0.json"
	LocationID   = base + "location-0.2.0.json"
	DescriptorID = base + "descriptor-0.2.0.json"
)

const base = "https://github.com/cdpprovider/cdpprovider/schema/"
