package api

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"twofold/server/board"
	"twofold/server/cache"
	"twofold/server/errcode"
	"twofold/server/jsontext"
	"twofold/server/paths"
	"twofold/server/ratelimit"

	"github.com/valyala/fasthttp"
)

// maxNoteBody caps the body of a POST of a note; a note is at most a few kilobytes of JSON.
const maxNoteBody = 16 << 10

type limiters struct {
	reads, mcp, logos, og, owner *ratelimit.Limiter
}

// limited applies a per-address limit: every answer carries the RateLimit-* headers, and a refusal is 429
// RATE_LIMITED with Retry-After.
func (s *Server) limited(name string, l *ratelimit.Limiter, next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		d := l.Allow(ratelimit.Key(s.clientIP(ctx)))
		rateLimitHeaders(ctx, d.Header())
		if !d.Allowed {
			s.metrics.RateLimited(name)
			s.writeError(ctx, d.Refusal(s.docs()))
			return
		}
		next(ctx)
	}
}

// rateLimitHeaders sets the RateLimit-* headers of a per-address limit's decision.
func rateLimitHeaders(ctx *fasthttp.RequestCtx, r *errcode.RateLimit) {
	h := &ctx.Response.Header
	h.Set("RateLimit-Limit", strconv.Itoa(r.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(r.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(errcode.CeilSeconds(r.Reset)))
}

// caller is the board's view of the request: its channel and address; the board's limit decisions are answered
// as RateLimit-* headers.
func (s *Server) caller(ctx *fasthttp.RequestCtx, via board.Via) board.Caller {
	return board.Caller{Via: via, Addr: s.clientIP(ctx), Decided: func(d ratelimit.Decision) { rateLimitHeaders(ctx, d.Header()) }}
}

func (s *Server) docs() string { return s.site.URL(paths.BoardDocs) }

// listNotes answers a page of the board with a fresh challenge. The page itself is encoded once per version of
// the store and kept (pages), so a read costs a lookup, a challenge and a copy; the answer is board.Listing.
func (s *Server) listNotes(ctx *fasthttp.RequestCtx) {
	args := ctx.QueryArgs()
	limit, err := board.ParseLimit(string(args.Peek("limit")))
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	before, after := string(args.Peek("before")), string(args.Peek("after"))
	if before != "" && after != "" {
		s.writeBoardError(ctx, errcode.New(errcode.IDInvalid, "before and after cannot be given together",
			"pass before to page back through older notes, or after to read what is newer than a note you have"))
		return
	}
	c, cancel := requestContext()
	defer cancel()
	page, err := s.pages.get(c, s.board, pageKey{before: before, after: after, limit: limit})
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	// Written straight into the response's pooled buffer: a page is kilobytes, and copying it once is enough.
	apiHeaders(ctx)
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.WriteString(`{"success":true,"data":`)
	ctx.Write(page[:len(page)-1]) // the page's object, still open
	// The listing's challenge counts against the challenge limit; its headers stay the read limit's.
	if c, closed, hint := s.board.FreshChallenge(board.Caller{Via: board.ViaREST, Addr: s.clientIP(ctx)}); c != nil {
		ctx.WriteString(`,"challenge":`)
		ctx.Write(c.AppendJSON(make([]byte, 0, 512)))
	} else {
		ctx.WriteString(`,"challenge":null`)
		if closed {
			ctx.WriteString(`,"closed":true`)
		}
		ctx.WriteString(`,"hint":`)
		ctx.Write(jsontext.AppendString(nil, hint))
	}
	ctx.Write(s.listingTail) // limits, howToPost, thread, and the closing braces
}

// listingTail is the constant end of every listing.
func listingTail(svc *board.Service) []byte {
	limits, _ := json.Marshal(board.FieldLimits())
	howTo, _ := json.Marshal(svc.HowToPost())
	thread, _ := json.Marshal(svc.ThreadTemplate())
	return []byte(`,"limits":` + string(limits) + `,"howToPost":` + string(howTo) + `,"thread":` + string(thread) + `}}`)
}

// pageCache keeps encoded pages of notes by (before, limit), for the store's version they were read at: a write
// makes every page stale, so the cache starts afresh when the version moves. It is bounded in bytes (a page of 200
// long notes is most of a megabyte), and keeps only pages whose cursor names a stored note, so that made-up
// cursors cannot fill it.
type pageCache struct {
	once         sync.Once
	lru          *cache.LRU[pageKey, []byte]
	mu           sync.Mutex
	version      uint64 // the version the cached pages were read at
	hits, misses atomic.Uint64
}

type pageKey struct {
	before, after string // at most one is set
	limit         int
}

// pageCacheBytes bounds the encoded pages kept: the newest page at every limit, and a few hundred older ones.
const pageCacheBytes = 16 << 20

func (c *pageCache) get(ctx context.Context, svc *board.Service, key pageKey) ([]byte, error) {
	c.once.Do(func() {
		c.lru = cache.New(pageCacheBytes, func(k pageKey, v []byte) int64 { return int64(len(k.before) + len(k.after) + len(v) + 64) })
	})
	version, versioned := svc.Version() // read before the page, so a write during the read makes it stale
	if versioned {
		c.mu.Lock()
		current := c.version == version
		c.mu.Unlock()
		if current {
			if p, ok := c.lru.Get(key); ok {
				c.hits.Add(1)
				return p, nil
			}
		}
	}
	c.misses.Add(1)
	var page *board.Page
	var err error
	cursor := key.before
	if key.after != "" {
		page, err = svc.PageAfter(ctx, key.after, key.limit)
		cursor = key.after
	} else {
		page, err = svc.Page(ctx, key.before, key.limit)
	}
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(page)
	if err != nil {
		return nil, err
	}
	if versioned && (cursor == "" || svc.Stored(ctx, cursor)) {
		c.mu.Lock()
		if version > c.version {
			c.lru.Clear()
			c.version = version
		}
		if version == c.version {
			c.lru.Put(key, data)
		}
		c.mu.Unlock()
	}
	return data, nil
}

func (s *Server) getChallenge(ctx *fasthttp.RequestCtx) {
	c, err := s.board.Challenge(s.caller(ctx, board.ViaREST))
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.writeData(ctx, fasthttp.StatusOK, c)
}

func (s *Server) getThread(ctx *fasthttp.RequestCtx) {
	id, _ := ctx.UserValue("id").(string)
	c, cancel := requestContext()
	defer cancel()
	t, err := s.board.Thread(c, id)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.writeEnvelope(ctx, fasthttp.StatusOK, envelope{Success: true, Docs: s.docs(), Data: t})
}

func (s *Server) postNote(ctx *fasthttp.RequestCtx) {
	caller := s.caller(ctx, board.ViaREST)
	if strings.EqualFold(strings.TrimSpace(string(ctx.Request.Header.Peek("X-Agent-Channel"))), "webmcp") {
		caller.Via = board.ViaWebMCP
	}
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
	c, cancel := requestContext()
	defer cancel()
	posted, err := s.board.Post(c, in, caller)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	ctx.Response.Header.Set("Location", posted.Thread)
	s.writeData(ctx, fasthttp.StatusCreated, posted)
}

// decodeNote reads a note from JSON: one object whose fields are the note's, with the right types. A field the
// API does not know is refused, naming the field and the one that was probably meant, rather than dropped: a reply
// sent with "inReplyTo" must not become a top-level note. Returns INVALID_BODY.
func decodeNote(body []byte) (board.NoteInput, error) {
	var in board.NoteInput
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
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
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		if meant := meantField(name); meant != "" {
			return in, errcode.Errorf(errcode.InvalidBody, "send "+meant+" instead; "+hint, "unknown field %q: did you mean %q?", name, meant)
		}
		return in, errcode.Errorf(errcode.InvalidBody, hint, "unknown field %q", name)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return in, errcode.New(errcode.InvalidBody, "the request has no body", hint)
	}
	return in, errcode.New(errcode.InvalidBody, "the request body is not a JSON object", hint)
}

// noteFields are the fields of a note's body (and of its challenge), each with the spellings that mean it.
var noteFields = map[string][]string{
	"handle":      {"name", "author", "user", "username", "nick", "nickname", "agent"},
	"model":       {"modelname", "agentmodel", "llm"},
	"body":        {"text", "content", "message", "note", "msg"},
	"in_reply_to": {"replyto", "reply", "parent", "parentid", "inreplyto", "replytoid", "thread", "threadid"},
	"challenge":   {"captcha", "challenges"},
	"id":          {"challengeid", "challenge_id"},
	"answer":      {"response", "result", "solution", "value"},
}

// meantField is the field a misspelt name probably meant: the same letters in another case or with other
// separators, or a common synonym. "" when nothing is close.
func meantField(name string) string {
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == ' ' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	f := fold(name)
	for field, others := range noteFields {
		if fold(field) == f {
			return field
		}
		for _, o := range others {
			if fold(o) == f {
				return field
			}
		}
	}
	return ""
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
	c, cancel := requestContext()
	defer cancel()
	a, err := s.board.Rejections(c, limit)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.writeData(ctx, fasthttp.StatusOK, a)
}

// requireOwner answers 401 unless the request carries the owner's token. Wrong tokens are counted per address:
// past the owner limit, the address's wrong tokens are answered 429 until the limit recovers. The right token
// always passes: at 32 characters or more it cannot be guessed, and a lockout would let anyone who shares the
// owner's address (a NAT, an IPv6 /64) keep the owner out.
func (s *Server) requireOwner(ctx *fasthttp.RequestCtx) bool {
	if s.owner(ctx) {
		return true
	}
	if s.cfg.AdminToken != "" {
		key := ratelimit.Key(s.clientIP(ctx))
		if d := s.limits.owner.Allow(key); !d.Allowed {
			s.metrics.RateLimited("owner")
			s.writeBoardError(ctx, d.Refusal(s.docs()))
			return false
		}
		s.log.Warn("wrong owner token", "path", string(ctx.Path()), "client", key)
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
	c, cancel := requestContext()
	defer cancel()
	if err := s.board.Delete(c, id); err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.log.Info("note removed by the owner", "id", id)
	s.writeData(ctx, fasthttp.StatusOK, map[string]string{"id": id})
}

// getBlocks lists the handles the owner blocked.
func (s *Server) getBlocks(ctx *fasthttp.RequestCtx) {
	if !s.requireOwner(ctx) {
		return
	}
	c, cancel := requestContext()
	defer cancel()
	b, err := s.board.Blocks(c)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.writeData(ctx, fasthttp.StatusOK, map[string]any{"blocks": b})
}

// putBlock keeps a handle from posting: its posts get 403 HANDLE_BLOCKED.
func (s *Server) putBlock(ctx *fasthttp.RequestCtx) {
	if !s.requireOwner(ctx) {
		return
	}
	c, cancel := requestContext()
	defer cancel()
	b, err := s.board.Block(c, ctx.UserValue("handle").(string))
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.log.Info("handle blocked by the owner", "handle", b.Handle)
	s.writeData(ctx, fasthttp.StatusOK, b)
}

// deleteBlock lets a blocked handle post again.
func (s *Server) deleteBlock(ctx *fasthttp.RequestCtx) {
	if !s.requireOwner(ctx) {
		return
	}
	handle := ctx.UserValue("handle").(string)
	c, cancel := requestContext()
	defer cancel()
	if err := s.board.Unblock(c, handle); err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.log.Info("handle unblocked by the owner", "handle", handle)
	s.writeData(ctx, fasthttp.StatusOK, map[string]string{"handle": handle})
}

// getExport streams every note, oldest first, as JSON lines: what "server import" reads. The board is read whole
// before the first byte, so an answer that starts is complete (a failure before it is an error envelope).
func (s *Server) getExport(ctx *fasthttp.RequestCtx) {
	if !s.requireOwner(ctx) {
		return
	}
	c, cancel := requestContext()
	defer cancel()
	var b bytes.Buffer
	n, err := s.export(c, &b)
	if err != nil {
		s.writeBoardError(ctx, err)
		return
	}
	s.log.Info("board exported by the owner", "notes", n)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/jsonl; charset=utf-8")
	ctx.SetBody(b.Bytes())
}

// getBackup streams a consistent copy of the store, taken now, as a gzipped tar ("server restore" reads it).
// The copy is made into a temporary file first, so that an answer that starts is complete.
func (s *Server) getBackup(ctx *fasthttp.RequestCtx) {
	if !s.requireOwner(ctx) {
		return
	}
	// The copy waits in DATA_DIR, which the server may write (a container may have no /tmp), beside the store.
	dir := s.cfg.DataDir
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = ""
	}
	f, err := os.CreateTemp(dir, ".twofold-backup-*.tar.gz")
	if err != nil {
		s.writeError(ctx, fmt.Errorf("backup: %w", err))
		return
	}
	os.Remove(f.Name()) // the open file lives until it is sent
	c, cancel := requestContext()
	defer cancel()
	if err := s.backup(c, f); err != nil {
		f.Close()
		s.writeBoardError(ctx, err)
		return
	}
	size, _ := f.Seek(0, io.SeekCurrent)
	f.Seek(0, io.SeekStart)
	s.log.Info("store backed up by the owner", "bytes", size)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.Response.Header.Set("Content-Disposition", `attachment; filename="twofold-backup.tar.gz"`)
	ctx.SetContentType("application/gzip")
	ctx.SetBodyStream(f, int(size)) // fasthttp closes f when it is sent
}

// owner reports whether the request carries ADMIN_TOKEN, compared in constant time. Without a configured token
// nobody is the owner.
func (s *Server) owner(ctx *fasthttp.RequestCtx) bool {
	if s.cfg.AdminToken == "" {
		return false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(string(ctx.Request.Header.Peek("Authorization"))), " ")
	return ok && strings.EqualFold(scheme, "Bearer") && // the scheme is case-insensitive (RFC 9110, 11.1)
		subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.cfg.AdminToken)) == 1
}

// writeBoardError writes an error of the board, pointing its docs at the agents' instructions.
func (s *Server) writeBoardError(ctx *fasthttp.RequestCtx, err error) {
	var e *errcode.Error
	if errors.As(err, &e) {
		if e.Code == errcode.StoreUnavailable {
			s.log.Error("store unavailable", "path", string(ctx.Path()), "err", err)
		}
		if e.Docs == "" { // on a copy: the store may hand one error to several requests
			withDocs := *e
			withDocs.Docs = s.docs()
			err = fmt.Errorf("%w: %w", &withDocs, err)
		}
	}
	s.writeError(ctx, err)
}

// requestContext is the context of the work a request asks of the board and its store: its own, bounded by the
// write timeout. fasthttp's RequestCtx is not one to hand on: a database driver watches a context's Done from its
// own goroutines, and fasthttp reuses the RequestCtx after the request ends.
func requestContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), writeTimeout)
}
