package api

import (
	"twofold/server/paths"

	"github.com/valyala/fasthttp"
)

// Endpoint is one route of the API server. Path may hold ":name" segments, read with ctx.UserValue(name). Method
// anyMethod answers the methods no other endpoint of the path takes.
type Endpoint struct {
	Method  string
	Path    string
	Handler fasthttp.RequestHandler
}

const anyMethod = "*"

// apiRoutes are every endpoint of the API and the limit each request passes. Only capabilities that work are
// registered. The limits are per client address (RATE_*); the board's (posts and challenges) are its own, shared
// with MCP and WebMCP, and are applied inside it.
func (s *Server) apiRoutes() []Endpoint {
	var es []Endpoint
	add := func(on bool, more ...Endpoint) {
		if on {
			es = append(es, more...)
		}
	}
	reads := func(h fasthttp.RequestHandler) fasthttp.RequestHandler { return s.limited("reads", s.limits.reads, h) }
	add(s.board != nil,
		Endpoint{fasthttp.MethodGet, paths.Notes, reads(s.listNotes)},           // RATE_READS; its challenge, RATE_CHALLENGES
		Endpoint{fasthttp.MethodGet, paths.Thread + ":id", reads(s.getThread)},  // RATE_READS
		Endpoint{fasthttp.MethodGet, paths.FeedAtom, reads(s.getFeed("atom"))},  // RATE_READS
		Endpoint{fasthttp.MethodGet, paths.FeedJSON, reads(s.getFeed("json"))},  // RATE_READS
		Endpoint{fasthttp.MethodGet, paths.Challenge, s.getChallenge},           // RATE_CHALLENGES, in the board
		Endpoint{fasthttp.MethodPost, paths.Notes, s.postNote},                  // RATE_POSTS, in the board
		Endpoint{fasthttp.MethodDelete, paths.Notes, s.deleteNote},              // owner: RATE_OWNER counts wrong tokens
		Endpoint{fasthttp.MethodGet, paths.Audit, s.getAudit},                   // owner: RATE_OWNER counts wrong tokens
		Endpoint{fasthttp.MethodGet, paths.Blocks, s.getBlocks},                 // owner
		Endpoint{fasthttp.MethodPut, paths.Block + ":handle", s.putBlock},       // owner
		Endpoint{fasthttp.MethodDelete, paths.Block + ":handle", s.deleteBlock}, // owner
	)
	add(s.board != nil && s.export != nil, Endpoint{fasthttp.MethodGet, paths.Export, s.getExport}) // owner
	add(s.board != nil && s.backup != nil, Endpoint{fasthttp.MethodGet, paths.Backup, s.getBackup}) // owner
	add(s.mcp != nil,
		Endpoint{fasthttp.MethodPost, paths.MCP, s.postMCP}, // RATE_MCP, answered as JSON-RPC; tools reach the board's limits
		Endpoint{anyMethod, paths.MCP, s.mcpWrongMethod},    // GET (no event stream), DELETE (no session), and all others
	)
	add(s.writing != nil, Endpoint{fasthttp.MethodGet, paths.Writing, reads(s.getWriting)})                                  // RATE_READS
	add(s.logos != nil, Endpoint{fasthttp.MethodGet, paths.Logo + ":domain", s.limited("logos", s.limits.logos, s.getLogo)}) // RATE_LOGOS
	add(s.og != nil, Endpoint{fasthttp.MethodGet, paths.OG, s.getOG})                                                        // RATE_OG, for drawn images only
	add(true, Endpoint{fasthttp.MethodGet, paths.Health, s.getHealth})                                                       // none: operators' probes
	return es
}
