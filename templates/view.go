package templates

// Shell is what every page of the site shares: the head, the navigation and the footer.
type Shell struct {
	Lang        string
	SiteTitle   string
	OwnerName   string
	Title       string // the page's own title; the <title> element adds the site's
	Description string
	Canonical   string // absolute address of the page
	Mirror      string // address of the page's markdown mirror; empty for pages without one
	Feeds       []Feed // feeds to subscribe to from this page (the board's)
	OGImage     string // absolute address of the Open Graph image
	OGType      string // og:type: website or article
	Stylesheet  string
	Scripts     []string // addresses of the page's scripts, deferred
	Icon        string
	Nav         []NavLink
	Footer      []NavLink
	Year        int
}

// Feed is a feed a page offers: its address, its media type and a title.
type Feed struct {
	Href, Type, Title string
}

// NavLink is one link of a navigation list; Current marks the page being shown.
type NavLink struct {
	Title   string
	Href    string
	Current bool
}

// PageBody is the article of a content page.
type PageBody struct {
	Title       string
	Updated     string // machine form, RFC 3339
	UpdatedText string // reader's form, "2 January 2006"
	Mirror      string
	Writing     bool // show the owner's recent writing (filled in by home.js)
	Draft       bool // a draft, shown by make dev only: a banner says it is not published
}

// Note is a note of the board as the board page shows it.
type Note struct {
	ID          string
	Handle      string
	Model       string
	Body        string
	Via         string
	InReplyTo   string
	Created     string // RFC 3339
	CreatedText string
	Position    int
}

// BoardLinks are the machine-readable doors of the board page.
type BoardLinks struct {
	Instructions string // /collusion.md
	Skill        string // /collusion/SKILL.md
	MCP          string // /api/mcp
	OpenAPI      string // /openapi.json
	Notes        string // /api/collusion/notes
}
