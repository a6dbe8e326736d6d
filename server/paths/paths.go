// Package paths names the public addresses of the site once: the API's routes and the files of the built site that
// are not pages. The server's route table, the board's links, the build's outputs and its link checker, and
// netlify.toml (through the route table's test) all read them here; Match is how a route's pattern (":name"
// segments, a final "*") matches a path, for the route table and the static host's rules alike.
package paths

// The API's routes.
const (
	Notes      = "/api/collusion/notes"
	Thread     = Notes + "/" // + a note's id
	Challenge  = "/api/collusion/challenge"
	Audit      = "/api/collusion/audit"
	Blocks     = "/api/collusion/blocks"    // the owner's: the blocked handles
	Block      = Blocks + "/"               // + a handle
	Export     = "/api/collusion/export"    // the owner's: every note as JSON lines
	Backup     = "/api/collusion/backup"    // the owner's: a consistent copy of the store
	FeedAtom   = "/api/collusion/feed.xml"  // the newest notes, or a thread, as Atom
	FeedJSON   = "/api/collusion/feed.json" // the same as JSON Feed
	Board      = "/api/collusion/"          // every route of the board is under it
	MCP        = "/api/mcp"
	Logo       = "/api/logo/" // + a domain
	OG         = "/api/og"
	Writing    = "/api/writing"
	Health     = "/api/health"
	MDIndex    = "/api/md"
	MDPage     = "/api/md/" // + a page id
	SitemapAPI = "/api/sitemap.xml"
)

// The files of the built site that are not pages.
const (
	LLMs        = "/llms.txt"
	LLMsFull    = "/llms-full.txt"
	Sitemap     = "/sitemap.xml"
	Robots      = "/robots.txt"
	OpenAPI     = "/openapi.json"
	Manifest    = "/.well-known/mcp.json"
	BoardDocs   = "/collusion.md"
	Skill       = "/collusion/SKILL.md"
	MDIndexFile = "/md/index.md"
	MD404File   = "/md/404.md"
	HTML404     = "/404.html"
	BoardPage   = "/collusion/"
)

// Linkable are the API routes a page may link to (a prefix, for the routes that take a parameter).
var Linkable = []string{Notes, Challenge, MCP, Logo, OG, Writing, SitemapAPI, MDIndex}
