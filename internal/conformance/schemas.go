package conformance

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/cdpprovider/cdpprovider/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemas are the compiled schemas of package schema.
type schemas struct {
	current, location, descriptor *jsonschema.Schema
}

// compiled compiles the schemas on first use. The schema package's own
// test proves they compile, so a failure here is a broken build.
var compiled = sync.OnceValue(func() schemas {
	c := jsonschema.NewCompiler()
	return schemas{
		current:    mustCompile(c, schema.CurrentID, schema.Current),
		location:   mustCompile(c, schema.LocationID, schema.Location),
		descriptor: mustCompile(c, schema.DescriptorID, schema.Descriptor),
	}
})

func mustCompile(c *jsonschema.Compiler, id string, data []byte) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err == nil {
		err = c.AddResource(id, doc)
	}
	if err != nil {
		panic(fmt.Errorf("conformance: loading schema %s: %w", id, err))
	}
	return c.MustCompile(id)
}
