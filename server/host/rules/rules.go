// Package rules is the static host's route table: its redirect and header rules, in the host's own terms, and the
// _redirects and _headers files that hand them to Netlify. The build writes those files; local mode (server/host)
// applies the same tables; netlify.toml holds only what the files cannot say (signed proxies), checked against them.
package rules

import (
	"strings"

	"twofold/server/paths"
)

// The table has two parts:
//
//   - Redirects: the static host's redirect rules, in order, first match wins. A Static rule serves a file of
//     public/ with a status; a Dynamic rule hands the request to the API server (on Netlify, a signed proxy to
//     API_ORIGIN; in local mode, the server's own endpoints). Every Static rule comes before every Dynamic one:
//     Netlify applies _redirects (the Static rules, which change with the pages) before netlify.toml (the Dynamic
//     ones, which never do), so the two files together keep the table's order.
//   - Headers: the static host's header rules for files of public/.
//
// Everything else is a file of public/, served as the static host serves it, with 404.html for what is missing.

// Kind says who answers a rule.
type Kind int

const (
	Static  Kind = iota // a file of public/
	Dynamic             // the API server
)

// Redirect is one redirect rule of the static host. From may hold ":name" segments and a final "*"; To may use
// them (":splat" for the "*"). Rules are forced: they apply even where a file exists at From.
type Redirect struct {
	From   string
	To     string // Static: a path in public/; Dynamic: the path on the API server
	Status int
	Kind   Kind
}

// Redirects is the redirect table for a site with the given page ids.
func Redirects(pages []string) []Redirect {
	rules := []Redirect{{From: paths.MDIndex, To: paths.MDIndexFile, Status: 200}}
	for _, id := range pages {
		rules = append(rules, Redirect{From: paths.MDPage + id, To: "/" + id + ".md", Status: 200})
	}
	return append(rules,
		Redirect{From: paths.MDPage + "*", To: paths.MD404File, Status: 404},
		Redirect{From: paths.SitemapAPI, To: paths.Sitemap, Status: 200},
		Redirect{From: paths.Board + "*", To: paths.Board + ":splat", Status: 200, Kind: Dynamic},
		Redirect{From: paths.MCP, To: paths.MCP, Status: 200, Kind: Dynamic},
		Redirect{From: paths.Logo + "*", To: paths.Logo + ":splat", Status: 200, Kind: Dynamic},
		Redirect{From: paths.OG, To: paths.OG, Status: 200, Kind: Dynamic},
		Redirect{From: paths.Writing, To: paths.Writing, Status: 200, Kind: Dynamic},
		// Every other /api/ address goes to the API server too, which answers 404 NOT_FOUND as JSON.
		Redirect{From: "/api/*", To: "/api/:splat", Status: 200, Kind: Dynamic},
	)
}

// Header is one header rule of the static host: Values are set on every file whose path matches For, where "*"
// matches any run of characters.
type Header struct {
	For    string
	Values map[string]string
}

// Matches reports whether the rule applies to path.
func (h Header) Matches(path string) bool { return glob(h.For, path) }

// Security headers of every page and file. Script and style come only from the site itself; images may come from
// elsewhere (the writing feed's pictures); nothing may frame the site or post a form.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'none'; frame-ancestors 'none'"

// Content types of the files agents read.
const (
	TypeMarkdown = "text/markdown; charset=utf-8"
	TypeText     = "text/plain; charset=utf-8"
	TypeXML      = "text/xml; charset=utf-8" // SPEC.md: text/xml
	TypeJSON     = "application/json"
)

const (
	cacheShort  = "public, max-age=300"
	cacheAssets = "public, max-age=86400"
)

func agentFile(contentType string) map[string]string {
	return map[string]string{"Content-Type": contentType, "Access-Control-Allow-Origin": "*", "Cache-Control": cacheShort}
}

// Headers is the header table. No two rules that can match one path set the same header.
func Headers() []Header {
	return []Header{
		{For: "/*", Values: map[string]string{
			"Content-Security-Policy": contentSecurityPolicy,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "strict-origin-when-cross-origin",
			"Permissions-Policy":      "camera=(), microphone=(), geolocation=(), interest-cohort=()",
		}},
		{For: "/*.md", Values: agentFile(TypeMarkdown)},
		{For: "/api/md", Values: agentFile(TypeMarkdown)},
		{For: "/api/md/*", Values: agentFile(TypeMarkdown)},
		{For: "/llms.txt", Values: agentFile(TypeText)},
		{For: "/llms-full.txt", Values: agentFile(TypeText)},
		{For: "/sitemap.xml", Values: agentFile(TypeXML)},
		{For: "/api/sitemap.xml", Values: agentFile(TypeXML)},
		{For: "/openapi.json", Values: agentFile(TypeJSON)},
		{For: "/.well-known/mcp.json", Values: agentFile(TypeJSON)},
		{For: "/static/*", Values: map[string]string{"Cache-Control": cacheAssets}},
	}
}

// glob reports whether path matches a header pattern, where "*" matches any run of characters.
func glob(pattern, path string) bool {
	for {
		star := strings.IndexByte(pattern, '*')
		if star < 0 {
			return pattern == path
		}
		if !strings.HasPrefix(path, pattern[:star]) {
			return false
		}
		path, pattern = path[star:], pattern[star+1:]
		if pattern == "" {
			return true
		}
		for i := 0; i <= len(path); i++ {
			if glob(pattern, path[i:]) {
				return true
			}
		}
		return false
	}
}
