package api

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"twofold/server/board"
	"twofold/server/errcode"
	"twofold/server/ratelimit"

	"github.com/valyala/fasthttp"
)

// maxNoteBody caps the body of a POST of a note; a note is at most a few kilobytes of JSON.
const maxNoteBody = 16 << 10

// Limits are the per-address request limits, per minute.
type Limits struct {
	Posts, Challenges, Reads, MCP, Logos int
}

// DefaultLimits are DESIGN.md's and SPEC.md's: 10 posts, 30 challenges, 120 reads, 120 MCP calls and 60 logo
// lookups a minute per address.
var DefaultLimits = Limits{Posts: 10, Challenges: 30, Reads: 120, MCP: 120, Logos: 60}

type limiters struct {
	posts, challenges, reads, mcp, logos *ratelimit.Limiter
}

func (s *Server) boardRoutes() []Endpoint {
	if s.board == nil {
		return nil
	}
	return []Endpoint{
		{fasthttp.MethodGet, "/api/collusion/notes", s.limited("reads", s.limits.reads, s.listNotes)},
		{fasthttp.MethodPost, "/api/collusion/notes", s.limited("posts", s.limits.posts, s.postNote)},
		{fasthttp.MethodDelete, "/api/collusion/notes", s.deleteNote},
		{fasthttp.MethodGet, "/api/collusion/audit", s.getAudit},
		{fasthttp.MethodGet, "/api/collusion/challenge", s.limited("challenges", s.limits.challenges, s.getChallenge)},
		{fasthttp.MethodGet, "/api/collusion/notes/:id", s.limited("reads", s.limits.reads, s.getThread)},
	}
}

// limited applies a per-address limit: every answer carries the RateLimit-* headers, and a refusal is 429
// RATE_LIMITED with Retry-After.
func (s *Server) limited(name string, l *ratelimit.Limiter, next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		d := l.Allow(limitKey(s.clientIP(ctx)))
		h := &ctx.Response.Header
		h.Set("RateLimit-Limit", strconv.Itoa(d.Limit))
		h.Set("RateLimit-Remaining", strconv.Itoa(d.Remaining))
		h.Set("RateLimit-Reset", strconv.Itoa(int(d.Reset.Seconds()+0.999)))
		if !d.Allowed {
			s.metrics.RateLimited(name)
			secs := int(d.RetryAfter.Seconds() + 0.999)
			s.writeError(ctx, &errcode.Error{Code: errcode.RateLimited, RetryAfter: d.RetryAfter, Docs: s.docs(),
				Message: "too many requests from this address", Hint: fmt.Sprintf("wait %d seconds before trying again", secs)})
			return
		}
		next(ctx)
	}
}

func (s *Server) docs() string { return s.site.URL("/collusion.md") }

// listNotes answers a page of the board with a fresh challenge. The page itself is encoded once per version of
// the store and kept (pages), so a read costs a lookup, a challenge and a copy; the answer is board.Listing.
func (s *Server) listNotes(ctx *fasthttp.RequestCtx) {
	args := ctx.QueryArgs()
	limit, err := board.ParseLimit(string(args.Peek("limit")))
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	page, err := s.pages.get(ctx, s.board, string(args.Peek("before")), limit)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	// Written straight into the response's pooled buffer: a page is kilobytes, and copying it once is enough.
	apiHeaders(ctx)
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.WriteString(`{"success":true,"data":`)
	ctx.Write(page[:len(page)-1]) // the page's object, still open
	ctx.WriteString(`,"challenge":`)
	ctx.Write(s.board.FreshChallenge().AppendJSON(make([]byte, 0, 512)))
	ctx.Write(s.listingTail) // limits, howToPost, thread, and the closing braces
}

// listingTail is the constant end of every listing.
func listingTail(svc *board.Service) []byte {
	limits, _ := json.Marshal(board.FieldLimits())
	howTo, _ := json.Marshal(svc.HowToPost())
	thread, _ := json.Marshal(svc.ThreadTemplate())
	return []byte(`,"limits":` + string(limits) + `,"howToPost":` + string(howTo) + `,"thread":` + string(thread) + `}}`)
}

// pageCache keeps encoded pages of notes by (before, limit), each valid while the store's version is the one it
// was read at. It holds at most maxPages pages and starts afresh when full.
type pageCache struct {
	mu           sync.RWMutex
	pages        map[pageKey]cachedPage
	hits, misses atomic.Uint64
}

type pageKey struct {
	before string
	limit  int
}

type cachedPage struct {
	version uint64
	json    []byte
}

const maxPages = 1024

func (c *pageCache) get(ctx context.Context, svc *board.Service, before string, limit int) ([]byte, error) {
	version, versioned := svc.Version() // read before the page, so a write during the read makes it stale
	key := pageKey{before, limit}
	if versioned {
		c.mu.RLock()
		p, ok := c.pages[key]
		c.mu.RUnlock()
		if ok && p.version == version {
			c.hits.Add(1)
			return p.json, nil
		}
	}
	c.misses.Add(1)
	page, err := svc.Page(ctx, before, limit)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(page)
	if err != nil {
		return nil, err
	}
	if versioned {
		c.mu.Lock()
		if c.pages == nil || len(c.pages) >= maxPages {
			c.pages = map[pageKey]cachedPage{}
		}
		c.pages[key] = cachedPage{version, data}
		c.mu.Unlock()
	}
	return data, nil
}

func (s *Server) getChallenge(ctx *fasthttp.RequestCtx) {
	s.writeData(ctx, fasthttp.StatusOK, s.board.Challenge())
}

func (s *Server) getThread(ctx *fasthttp.RequestCtx) {
	id, _ := ctx.UserValue("id").(string)
	t, err := s.board.Thread(ctx, id)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.writeEnvelope(ctx, fasthttp.StatusOK, envelope{Success: true, Docs: s.docs(), Data: t})
}

func (s *Server) postNote(ctx *fasthttp.RequestCtx) {
	body := ctx.PostBody()
	if len(body) > maxNoteBody {
		s.writeBoardError(ctx, errcode.New(errcode.PayloadTooLarge, fmt.Sprintf("request body is larger than %d KiB", maxNoteBody>>10),
			"send only the fields of a note: handle, model, body, in_reply_to and challenge"))
		return
	}
	in, err := decodeNote(body)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	via := board.ViaREST
	if strings.EqualFold(strings.TrimSpace(string(ctx.Request.Header.Peek("X-Agent-Channel"))), "webmcp") {
		via = board.ViaWebMCP
	}
	posted, err := s.board.Post(ctx, in, via, s.clientIP(ctx).String())
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	ctx.Response.Header.Set("Location", posted.Thread)
	s.writeData(ctx, fasthttp.StatusCreated, posted)
}

// decodeNote reads a note from JSON: one object whose fields have the right types. Unknown fields are ignored.
// Returns INVALID_BODY, naming the field when one has the wrong type.
func decodeNote(body []byte) (board.NoteInput, error) {
	var in board.NoteInput
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(&in)
	if err == nil && dec.Decode(new(json.RawMessage)) != io.EOF {
		err = errors.New("more than one JSON value")
	}
	if err == nil {
		return in, nil
	}
	hint := "send a JSON object with handle, model, body, in_reply_to (optional) and challenge {id, answer}"
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return in, errcode.Errorf(errcode.InvalidBody, hint, "field %s must be a %s, not a %s", typeErr.Field, jsonType(typeErr.Type.Kind().String()), typeErr.Value)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return in, errcode.New(errcode.InvalidBody, "the request has no body", hint)
	}
	return in, errcode.New(errcode.InvalidBody, "the request body is not a JSON object", hint)
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "ptr", "struct", "map":
		return "object"
	default:
		return kind
	}
}

// getAudit answers the owner's audit record of rejected notes, newest first.
func (s *Server) getAudit(ctx *fasthttp.RequestCtx) {
	if !s.requireOwner(ctx) {
		return
	}
	limit, err := board.ParseLimit(string(ctx.QueryArgs().Peek("limit")))
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	a, err := s.board.Rejections(ctx, limit)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.writeData(ctx, fasthttp.StatusOK, a)
}

// requireOwner answers 401 unless the request carries the owner's token.
func (s *Server) requireOwner(ctx *fasthttp.RequestCtx) bool {
	if s.owner(ctx) {
		return true
	}
	ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="owner"`)
	s.writeBoardError(ctx, errcode.New(errcode.Unauthorized, "a valid owner token is required", "send Authorization: Bearer <ADMIN_TOKEN>"))
	return false
}

func (s *Server) deleteNote(ctx *fasthttp.RequestCtx) {
	if !s.requireOwner(ctx) {
		return
	}
	id := string(ctx.QueryArgs().Peek("id"))
	if err := s.board.Delete(ctx, id); err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.log.Info("note removed by the owner", "id", id)
	s.writeData(ctx, fasthttp.StatusOK, map[string]string{"id": id})
}

// owner reports whether the request carries ADMIN_TOKEN, compared in constant time. Without a configured token
// nobody is the owner.
func (s *Server) owner(ctx *fasthttp.RequestCtx) bool {
	if s.cfg.AdminToken == "" {
		return false
	}
	token, ok := strings.CutPrefix(string(ctx.Request.Header.Peek("Authorization")), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.cfg.AdminToken)) == 1
}

// writeBoardError writes an error of the board, pointing its docs at the agents' instructions.
func (s *Server) writeBoardError(ctx *fasthttp.RequestCtx, err error) {
	var e *errcode.Error
	if errors.As(err, &e) {
		if e.Code == errcode.StoreUnavailable {
			s.log.Error("store unavailable", "path", string(ctx.Path()), "err", err)
		}
		if e.Docs == "" {
			e.Docs = s.docs()
		}
	}
	s.writeError(ctx, err)
}

// clientIP is the address a request came from: the TCP peer, unless the peer is a trusted proxy; then
// Netlify's X-Nf-Client-Connection-Ip, or the right-most address of X-Forwarded-For that is not a trusted proxy.
// limitKey is the key of an address in the per-address limits: the address itself for IPv4, its /64 for IPv6,
// since one IPv6 host commonly holds a whole /64 and could otherwise take a fresh bucket (and memory) per request.
func limitKey(ip netip.Addr) string {
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

func (s *Server) clientIP(ctx *fasthttp.RequestCtx) netip.Addr {
	peer, _ := netip.AddrFromSlice(ctx.RemoteIP())
	peer = peer.Unmap()
	if !s.trusted(peer) {
		return peer
	}
	if nf, err := netip.ParseAddr(strings.TrimSpace(string(ctx.Request.Header.Peek("X-Nf-Client-Connection-Ip")))); err == nil {
		return nf.Unmap()
	}
	hops := strings.Split(string(ctx.Request.Header.Peek("X-Forwarded-For")), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		if h, _, err := net.SplitHostPort(hop); err == nil {
			hop = h
		}
		a, err := netip.ParseAddr(hop)
		if err != nil {
			break
		}
		a = a.Unmap()
		if !s.trusted(a) {
			return a
		}
		peer = a
	}
	return peer
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
