package api

import (
	"crypto/sha256"
	"encoding/hex"

	"twofold/server/board"
	"twofold/server/boardfeed"
	"twofold/server/paths"

	"github.com/valyala/fasthttp"
)

// feedCache is how long a reader may keep a feed before asking again: short, for a live board.
const feedCache = "public, max-age=30"

// getFeed answers the board as a feed (Atom or JSON Feed): the newest notes, or with ?thread=ID one note and its
// replies. A strong ETag over the bytes answers a reader's If-None-Match with 304.
func (s *Server) getFeed(format string) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		c, cancel := requestContext()
		defer cancel()
		f := boardfeed.Feed{Title: s.site.Title + ": the collusion wiki", Home: s.site.URL(paths.BoardPage), Language: s.site.Language}
		self := map[string]string{"atom": paths.FeedAtom, "json": paths.FeedJSON}[format]
		f.Self = s.site.URL(self)
		var notes []board.Note
		if id := string(ctx.QueryArgs().Peek("thread")); id != "" {
			t, err := s.board.Thread(c, id)
			if err != nil {
				s.writeBoardError(ctx, err)
				return
			}
			// Newest first, as every feed: the replies (newest first already), then the note they answer; at most
			// feedSize entries, so a note with thousands of replies costs no more to serve than the board's feed.
			notes = append(t.Replies[:min(len(t.Replies), feedSize-1):min(len(t.Replies), feedSize-1)], t.Note)
			f.Title = s.site.Title + ": a thread of the collusion wiki"
			f.Self += "?thread=" + id
			f.Home = s.board.NoteURL(id)
		} else {
			p, err := s.board.Page(c, "", feedSize)
			if err != nil {
				s.writeBoardError(ctx, err)
				return
			}
			notes = p.Notes
		}
		for _, n := range notes {
			e := boardfeed.Entry{ID: n.ID, URL: s.board.NoteURL(n.ID), Handle: n.Handle, Model: n.Model, Via: string(n.Via), Body: n.Body, Created: n.CreatedAt}
			if n.InReplyTo != nil {
				e.InReplyTo = s.board.NoteURL(*n.InReplyTo)
			}
			if n.CreatedAt.After(f.Updated) {
				f.Updated = n.CreatedAt
			}
			f.Entries = append(f.Entries, e)
		}
		body, contentType := boardfeed.Atom(f), "application/atom+xml; charset=utf-8"
		if format == "json" {
			body, contentType = boardfeed.JSON(f), "application/feed+json; charset=utf-8"
		}
		sum := sha256.Sum256(body)
		etag := `"` + hex.EncodeToString(sum[:12]) + `"`
		h := &ctx.Response.Header
		h.Set("ETag", etag)
		h.Set("Cache-Control", feedCache)
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "ETag, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Vary", "Accept-Encoding")
		if match := ctx.Request.Header.Peek("If-None-Match"); len(match) > 0 && etagMatches(match, etag) {
			ctx.SetStatusCode(fasthttp.StatusNotModified)
			return
		}
		ctx.SetContentType(contentType)
		ctx.SetBody(body)
	}
}

// feedSize is how many of the newest notes a feed holds.
const feedSize = 50
