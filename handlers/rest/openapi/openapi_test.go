package openapi_test

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/zimmerhq/zimmer/handlers/rest/openapi"
)

func TestTheAssembledDocumentIsValidOpenAPI31(t *testing.T) {
	d, err := openapi.Document()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(d.JSON)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi = %q", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid OpenAPI: %v", err)
	}
	seen := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId (the generated client names its method after it)", method, path)
			}
			if prev, dup := seen[op.OperationID]; dup {
				t.Errorf("operationId %s names both %s and %s %s", op.OperationID, prev, method, path)
			}
			seen[op.OperationID] = method + " " + path
		}
	}
}
