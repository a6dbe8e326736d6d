// Package apitest checks the server's real answers against openapi.json, for the tests of every capability.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"twofold/site"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

func init() {
	for _, t := range []string{"text/markdown", "text/xml", "text/html", "image/png", "image/svg+xml", "image/x-icon"} {
		openapi3filter.RegisterBodyDecoder(t, openapi3filter.PlainBodyDecoder)
	}
}

// Load reads the committed openapi.json and validates it as an OpenAPI 3.1 document.
func Load() (*openapi3.T, error) {
	data, err := site.FS.ReadFile("openapi.json")
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	return doc, nil
}

// Contract validates answers against openapi.json.
type Contract struct {
	doc    *openapi3.T
	router routers.Router
	server *url.URL
}

// NewContract loads openapi.json; a test that cannot load it fails.
func NewContract(t testing.TB) *Contract {
	t.Helper()
	doc, err := Load()
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	server, err := url.Parse(doc.Servers[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	return &Contract{doc: doc, router: router, server: server}
}

// Check validates one answer: against its operation when openapi.json describes the path and method, and as the
// error envelope when the path is described but the method is not. It reports whether the operation is known.
func (c *Contract) Check(t testing.TB, req *http.Request, resp *http.Response, body []byte) bool {
	t.Helper()
	r := req.Clone(context.Background())
	u := *req.URL
	u.Scheme, u.Host = c.server.Scheme, c.server.Host
	r.URL, r.Host = &u, c.server.Host
	route, params, err := c.router.FindRoute(r)
	if errors.Is(err, routers.ErrMethodNotAllowed) {
		c.CheckError(t, resp, body)
		return false
	}
	if err != nil {
		return false
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s answered %d, which openapi.json does not allow: %v", req.Method, req.URL.Path, resp.StatusCode, err)
	}
	return true
}

// CheckError validates a JSON body against the error envelope schema.
func (c *Contract) CheckError(t testing.TB, resp *http.Response, body []byte) {
	t.Helper()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("error answer has Content-Type %q, want application/json", resp.Header.Get("Content-Type"))
		return
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("error answer is not JSON: %v", err)
		return
	}
	if err := c.doc.Components.Schemas["Error"].Value.VisitJSON(v); err != nil {
		t.Errorf("error answer %s does not match the Error schema: %v", body, err)
	}
}
