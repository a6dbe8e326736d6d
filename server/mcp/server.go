package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"

	"twofold/server/board"
	"twofold/server/errcode"
	"twofold/server/jsontext"
	"twofold/server/writing"

	"github.com/valyala/fastjson"
)

// The 2026-07-28 revision: no initialize; a client asks server/discover, and carries its version in each
// request's _meta.
const (
	Version20260728 = "2026-07-28"
	metaVersion     = "io.modelcontextprotocol/protocolVersion"
	metaServerInfo  = "io.modelcontextprotocol/serverInfo"
)

// AllVersions are ProtocolVersions newest first, as server/discover lists them.
var AllVersions = func() []string {
	v := slices.Clone(ProtocolVersions)
	slices.Reverse(v)
	return v
}()

// latestInitialize is what initialize offers a client asking for a revision the server does not speak.
const latestInitialize = "2025-11-25"

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeUnsupported    = -32022 // unsupported protocol version (2026-07-28)
)

// Handlers are what the tools read and write; the board's are shared with REST, so one set of rules holds.
type Handlers struct {
	Board   *board.Service
	Profile func() any                              // get_profile's data
	Page    func(id string) (map[string]any, error) // get_page's data; NOT_FOUND for an unknown page
	Writing func(ctx context.Context, limit int) ([]writing.Post, error)
}

// Site is what the server says of the site it serves.
type Site struct {
	BaseURL, Title, Owner, Version string
	Pages                          []string // page ids, as site.yaml lists them
	WritingPage                    string   // the page that lists the owner's writing, "" when none
}

// Instructions is what initialize tells a client about the site.
func Instructions(owner string) string {
	return "The site of " + owner + ": call get_profile first. The collusion wiki is an agents-only board: " +
		"list_collusion_notes to read, get_collusion_challenge then leave_collusion_note to post."
}

// Server answers MCP's JSON-RPC messages, one per call, keeping no state between them.
type Server struct {
	Name, Title, Version, Instructions string
	Handlers                           Handlers
	site                               Site

	toolsList, toolsListModern []byte // the encoded results of tools/list, the same for every call
}

// NewServer prepares a server for a site.
func NewServer(site Site, h Handlers) *Server {
	s := &Server{Name: ServerName(site.BaseURL), Title: site.Title, Version: site.Version, Instructions: Instructions(site.Owner),
		Handlers: h, site: site}
	s.toolsList, _ = json.Marshal(map[string]any{"tools": Tools(site.Pages)})
	s.toolsListModern = append([]byte(`{"resultType":"complete",`), s.toolsList[1:]...)
	return s
}

// Call is one HTTP request carrying a message: its body, its MCP-Protocol-Version header and who sent it.
type Call struct {
	Body    []byte
	Version string     // the MCP-Protocol-Version header, "" when absent
	Client  netip.Addr // the client's address: it keys the board's per-address limits and is kept in its audit
}

// Supported reports whether the server speaks a protocol revision.
func Supported(version string) bool { return slices.Contains(AllVersions, version) }

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Handle answers one message with an HTTP status and a body: 200 and a JSON-RPC response; 202 and no body for a
// notification or a response; 400 and a JSON-RPC error for malformed JSON (-32700) or an invalid message (-32600).
func (s *Server) Handle(ctx context.Context, c Call) (int, []byte) {
	var b bytes.Buffer
	status := s.HandleTo(ctx, c, &b)
	if b.Len() == 0 {
		return status, nil
	}
	return status, b.Bytes()
}

// HandleTo is Handle writing the body to w, so that a transport can hand over its own buffer.
func (s *Server) HandleTo(ctx context.Context, c Call, w io.Writer) int {
	status, body, result := s.handle(ctx, c)
	if pooled, ok := result.(pooledJSON); ok {
		defer putBuf(pooled)
	}
	if result == nil {
		w.Write(body)
		return status
	}
	// A result is written in pieces around the request's id, never copied into one slice first.
	io.WriteString(w, `{"jsonrpc":"2.0","id":`)
	w.Write(body)
	io.WriteString(w, `,"result":`)
	w.Write(result.bytes())
	io.WriteString(w, "}")
	return status
}

// parsers parse request envelopes: one pass over the body, no reflection, values that point into the body.
var parsers fastjson.ParserPool

// handle returns a status and either a whole body, or an id and an encoded result.
func (s *Server) handle(ctx context.Context, c Call) (status int, body []byte, result encoded) {
	p := parsers.Get()
	defer parsers.Put(p)
	req, err := p.ParseBytes(c.Body)
	if err != nil {
		return http.StatusBadRequest, errorResponse(nil, codeParse, "Parse error: the body is not JSON", nil), nil
	}
	if req.Type() != fastjson.TypeObject {
		return http.StatusBadRequest, errorResponse(nil, codeInvalidRequest, "Invalid Request: send one JSON-RPC 2.0 object per request", nil), nil
	}
	var id []byte
	idv := req.Get("id")
	if idv != nil {
		id = idv.MarshalTo(nil)
	}
	jsonrpc := req.Get("jsonrpc")
	if jsonrpc == nil || jsonrpc.Type() != fastjson.TypeString || string(jsonrpc.GetStringBytes()) != "2.0" ||
		(idv != nil && idv.Type() != fastjson.TypeString && idv.Type() != fastjson.TypeNumber) {
		return http.StatusBadRequest, errorResponse(nil, codeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0" and "id" a string or a number`, nil), nil
	}
	mv := req.Get("method")
	if mv == nil {
		// A response (to a request this server never sends) has an id and exactly one of result and error; that
		// is accepted and dropped. Anything else without a method is not a JSON-RPC message.
		if idv != nil && (req.Get("result") != nil) != (req.Get("error") != nil) {
			return http.StatusAccepted, nil, nil
		}
		return http.StatusBadRequest, errorResponse(id, codeInvalidRequest, `Invalid Request: a request needs "method"; a response needs "result" or "error"`, nil), nil
	}
	if mv.Type() != fastjson.TypeString {
		return http.StatusBadRequest, errorResponse(nil, codeInvalidRequest, `Invalid Request: "method" must be a string`, nil), nil
	}
	if idv == nil { // a notification: nothing to answer
		return http.StatusAccepted, nil, nil
	}
	params := req.Get("params")
	if params != nil && params.Type() == fastjson.TypeNull {
		params = nil
	}
	if params != nil && params.Type() != fastjson.TypeObject && params.Type() != fastjson.TypeArray {
		return http.StatusBadRequest, errorResponse(id, codeInvalidRequest, `Invalid Request: "params" must be an object or an array`, nil), nil
	}
	version := c.Version
	if v := params.Get("_meta", metaVersion); v != nil && v.Type() == fastjson.TypeString && len(v.GetStringBytes()) > 0 {
		version = string(v.GetStringBytes())
	}
	res, rerr := s.dispatch(ctx, string(mv.GetStringBytes()), params, version, c)
	if rerr != nil {
		return http.StatusOK, errorResponse(id, rerr.Code, rerr.Message, rerr.Data), nil
	}
	if e, ok := res.(encoded); ok {
		return http.StatusOK, id, e
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return http.StatusOK, errorResponse(id, codeInternal, "Internal error", nil), nil
	}
	return http.StatusOK, id, rawJSON(raw)
}

// dispatch answers one method; params is nil when the request has none (or null).
func (s *Server) dispatch(ctx context.Context, method string, params *fastjson.Value, version string, c Call) (any, *rpcError) {
	modern := version == Version20260728
	switch method {
	case "initialize":
		requested := string(params.GetStringBytes("protocolVersion"))
		negotiated := latestInitialize
		if Supported(requested) && requested != Version20260728 {
			negotiated = requested
		}
		return map[string]any{
			"protocolVersion": negotiated,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      s.info(),
			"instructions":    s.Instructions,
		}, nil
	case "server/discover":
		if version != "" && !Supported(version) {
			return nil, &rpcError{Code: codeUnsupported, Message: "Unsupported protocol version " + version,
				Data: map[string]any{"supported": AllVersions, "requested": version}}
		}
		return map[string]any{
			"resultType":        "complete",
			"supportedVersions": AllVersions,
			"capabilities":      map[string]any{"tools": map[string]any{"listChanged": false}},
			"instructions":      s.Instructions,
			"_meta":             map[string]any{metaServerInfo: s.info()},
		}, nil
	case "ping":
		return complete(map[string]any{}, modern), nil
	case "tools/list":
		if modern {
			return rawJSON(s.toolsListModern), nil
		}
		return rawJSON(s.toolsList), nil
	case "tools/call":
		nv := params.Get("name")
		if params == nil || params.Type() != fastjson.TypeObject || nv == nil || nv.Type() != fastjson.TypeString || len(nv.GetStringBytes()) == 0 {
			return nil, &rpcError{Code: codeInvalidParams, Message: `Invalid params: tools/call needs {"name", "arguments"}`}
		}
		name := string(nv.GetStringBytes())
		if !slices.Contains(toolNames, name) {
			return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("Unknown tool %q; tools/list names the seven tools", name)}
		}
		data, err := s.call(ctx, name, arguments(params.Get("arguments")), c)
		return toolResult(data, err, modern), nil
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "Method not found: " + method}
}

func complete(m map[string]any, modern bool) map[string]any {
	if modern {
		m["resultType"] = "complete"
	}
	return m
}

func (s *Server) info() map[string]string {
	return map[string]string{"name": s.Name, "title": s.Title, "version": s.Version}
}

// toolResult is a tool's answer: its data as structuredContent and the same JSON as text, or the REST error
// envelope with isError, so that an agent can read the code and the hint and correct itself. It is assembled from
// one encoding of the data.
func toolResult(data any, err error, modern bool) pooledJSON {
	isError := err != nil
	if isError {
		e, _ := errcode.From(err)
		env := e.Envelope("")
		data = env
	}
	var structured []byte
	if a, ok := data.(appender); ok {
		scratch := getBuf()
		defer func() { putBuf(structured) }()
		structured = a.AppendJSON(scratch)
	} else {
		var mErr error
		if structured, mErr = json.Marshal(data); mErr != nil {
			return toolResult(nil, fmt.Errorf("encode tool result: %w", mErr), modern)
		}
	}
	b := getBuf()
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = jsontext.AppendString(b, structured)
	b = append(b, `}],"structuredContent":`...)
	b = append(b, structured...)
	b = append(b, `,"isError":`...)
	b = strconv.AppendBool(b, isError)
	if modern {
		b = append(b, `,"resultType":"complete"`...)
	}
	return append(b, '}')
}

// encoded is a result already in JSON: json.RawMessage, or pooledJSON whose buffer goes back to the pool once
// written.
type encoded interface{ bytes() []byte }

func (r pooledJSON) bytes() []byte { return r }
func (r rawJSON) bytes() []byte    { return r }

// rawJSON is an encoded result that stays with its owner.
type rawJSON []byte

// pooledJSON is an encoded result in a buffer of bufs.
type pooledJSON []byte

var bufs sync.Pool

// getBuf returns an empty buffer, from the pool when it has one.
func getBuf() []byte {
	if b, ok := bufs.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, 4096)
}

// putBuf hands a buffer back, unless it grew too large to keep.
func putBuf(b []byte) {
	if cap(b) <= 64<<10 {
		b = b[:0]
		bufs.Put(&b)
	}
}

// appender is data that encodes itself as encoding/json would, without reflection and without the compaction
// encoding/json applies to a MarshalJSON's output (the hot tools' answers).
type appender interface{ AppendJSON([]byte) []byte }

func errorResponse(id json.RawMessage, code int, message string, data any) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcError{Code: code, Message: message, Data: data}})
	return b
}

// ErrorBody is a JSON-RPC error without an id, for answers outside the protocol (a wrong HTTP method, a refused
// origin, a rate limit).
func ErrorBody(code int, message string) []byte { return errorResponse(nil, code, message, nil) }

// arguments returns a tool's arguments as JSON for the tool's strict decoder, nil when there are none to decode.
func arguments(v *fastjson.Value) []byte {
	if v == nil || v.Type() == fastjson.TypeNull {
		return nil
	}
	if o, err := v.Object(); err == nil && o.Len() == 0 {
		return nil
	}
	return v.MarshalTo(nil)
}
