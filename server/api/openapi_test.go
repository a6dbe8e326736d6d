package api

import (
	"regexp"
	"slices"
	"sort"
	"testing"

	"twofold/server/apitest"
	"twofold/server/errcode"
)

// The operations of SPEC.md section 4, all seventeen.
var specOperations = []string{
	"GET /api/writing", "GET /api/md", "GET /api/md/{page}", "GET /{page}.md", "POST /api/mcp", "GET /api/logo/{domain}",
	"GET /api/og", "GET /api/sitemap.xml", "GET /llms.txt", "GET /llms-full.txt", "GET /openapi.json",
	"GET /.well-known/mcp.json", "GET /api/collusion/notes", "POST /api/collusion/notes", "DELETE /api/collusion/notes",
	"GET /api/collusion/challenge", "GET /api/collusion/notes/{id}",
}

// ownerOperations are the operations beyond SPEC.md, for the owner and operators: the rejection audit, the health
// check, blocked handles, the export and the backup; and the board's feeds.
var ownerOperations = []string{"GET /api/collusion/audit", "GET /api/health", "GET /api/collusion/blocks", "PUT /api/collusion/blocks/{handle}",
	"DELETE /api/collusion/blocks/{handle}", "GET /api/collusion/export", "GET /api/collusion/backup",
	"GET /api/collusion/feed.xml", "GET /api/collusion/feed.json"}

func TestOpenAPIDocument(t *testing.T) {
	doc, err := apitest.Load()
	if err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	if doc.OpenAPI != "3.1.0" || !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(doc.Info.Version) {
		t.Errorf("openapi %s, version %q; want 3.1.0 and a version major.minor.patch", doc.OpenAPI, doc.Info.Version)
	}
	var ops []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops = append(ops, method+" "+path)
			if op.OperationID == "" || op.Summary == "" {
				t.Errorf("%s %s lacks an operationId or summary", method, path)
			}
			if r := op.Responses.Value("429"); r != nil {
				resp := r.Value
				if resp == nil {
					t.Fatalf("%s %s: unresolved 429", method, path)
				}
				if _, ok := resp.Headers["Retry-After"]; !ok {
					t.Errorf("%s %s: its 429 has no Retry-After header", method, path)
				}
			}
		}
	}
	sort.Strings(ops)
	want := slices.Sorted(slices.Values(append(slices.Clone(specOperations), ownerOperations...)))
	if !slices.Equal(ops, want) {
		t.Errorf("operations:\n got %v\nwant %v", ops, want)
	}

	// The error codes the document names are exactly the codes the server can answer with.
	var documented []string
	for _, v := range doc.Components.Schemas["Error"].Value.Properties["code"].Value.Enum {
		documented = append(documented, v.(string))
	}
	var codes []string
	for _, c := range errcode.Codes() {
		codes = append(codes, string(c))
	}
	slices.Sort(documented)
	slices.Sort(codes)
	if !slices.Equal(documented, codes) {
		t.Errorf("Error.code enum:\n got %v\nwant %v (errcode's table)", documented, codes)
	}
}
