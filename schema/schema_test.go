package schema_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"testing"

	"github.com/cdpprovider/cdpprovider/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSchemas checks that each file is a valid 2020-12 schema (the
// compiler validates it against the meta-schema), carries the $id of its
// constant and is the same bytes as its variable, and that FS holds
// nothing else.
func TestSchemas(t *testing.T) {
	tests := []struct {
		file string
		data []byte
		id   string
	}{
		{"current-0.2.0.json", schema.Current, schema.CurrentID},
		{"location-0.2.0.json", schema.Location, schema.LocationID},
		{"descriptor-0.2.0.json", schema.Descriptor, schema.DescriptorID},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			fromFS, err := fs.ReadFile(schema.FS, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(fromFS, tt.data) {
				t.Errorf("FS and the variable hold different bytes for %s", tt.file)
			}
			var head struct {
				Schema string `json:"$schema"`
				ID     string `json:"$id"`
			}
			if err := json.Unmarshal(tt.data, &head); err != nil {
				t.Fatal(err)
			}
			if head.ID != tt.id {
				t.Errorf("$id = %q, want %q", head.ID, tt.id)
			}
			if head.Schema != "https://json-schema.org/draft/2020-12/schema" {
				t.Errorf("$schema = %q, want draft 2020-12", head.Schema)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			if err := c.AddResource(tt.id, doc); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile(tt.id); err != nil {
				t.Fatalf("compile: %v", err)
			}
		})
	}
	files, err := fs.Glob(schema.FS, "*")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(tests) {
		t.Errorf("FS holds %v, want the %d schemas", files, len(tests))
	}
}
