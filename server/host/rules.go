package host

import (
	"strings"

	"twofold/server/paths"
)

// The route table. It has three parts, all in the static host's own terms, so that netlify.toml can be checked
// against it line by line (netlify_test.go) and local mode can apply it exactly:
//
//   - Rules: the static host's redirect rules, in order, first match wins. A Static rule serves a file of
//     public/ with a status; a Dynamic rule hands the request to the API server (on Netlify, a proxy to
//     API_ORIGIN; here, the endpoints below).
//   - Endpoints: what the API server answers. Only capabilities that work are registered.
//   - Headers: the static host's header rules for files of public/.
//
// Everything else is a file of public/, served as the static host serves it, with 404.html for what is missing.

// Kind says who answers a rule.
type Kind int

const (
	Static  Kind = iota // a file of public/
	Dynamic             // the API server
)

// Rule is one redirect rule of the static host. From may hold ":name" segments and a final "*"; To may use them
// (":splat" for the "*"). Rules are forced: they apply even where a file exists at From.
type Rule struct {
	From   string
	To     string // Static: a path in public/; Dynamic: the path on the API server
	Status int
	Kind   Kind
}

// Rules is the redirect table for a site with the given page ids.
func Rules(pages []string) []Rule {
	rules := []Rule{{From: paths.MDIndex, To: paths.MDIndexFile, Status: 200}}
	for _, id := range pages {
		rules = append(rules, Rule{From: paths.MDPage + id, To: "/" + id + ".md", Status: 200})
	}
	return append(rules,
		Rule{From: paths.MDPage + "*", To: paths.MD404File, Status: 404},
		Rule{From: paths.SitemapAPI, To: paths.Sitemap, Status: 200},
		Rule{From: paths.Board + "*", To: paths.Board + ":splat", Status: 200, Kind: Dynamic},
		Rule{From: paths.MCP, To: paths.MCP, Status: 200, Kind: Dynamic},
		Rule{From: paths.Logo + "*", To: paths.Logo + ":splat", Status: 200, Kind: Dynamic},
		Rule{From: paths.OG, To: paths.OG, Status: 200, Kind: Dynamic},
		Rule{From: paths.Writing, To: paths.Writing, Status: 200, Kind: Dynamic},
		// Every other /api/ address goes to the API server too, which answers 404 NOT_FOUND as JSON.
		Rule{From: "/api/*", To: "/api/:splat", Status: 200, Kind: Dynamic},
	)
}

// HeaderRule is one header rule of the static host: Values are set on every file whose path matches For, where
// "*" matches any run of characters.
type HeaderRule struct {
	For    string
	Values map[string]string
}

// Security headers of every page and file. Script and style come only from the site itself; images may come from
// elsewhere (the writing feed's pictures); nothing may frame the site or post a form.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data: https:; style-src 'self'; script-src 'self'; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'none'; frame-ancestors 'none'"

const (
	typeMarkdown = "text/markdown; charset=utf-8"
	typeText     = "text/plain; charset=utf-8"
	typeXML      = "text/xml; charset=utf-8" // SPEC.md: text/xml
	typeJSON     = "application/json"
	cacheShort   = "public, max-age=300"
	cacheAssets  = "public, max-age=86400"
)

func agentFile(contentType string) map[string]string {
	return map[string]string{"Content-Type": contentType, "Access-Control-Allow-Origin": "*", "Cache-Control": cacheShort}
}

// Headers is the header table. No two rules that can match one path set the same header.
func Headers() []HeaderRule {
	return []HeaderRule{
		{For: "/*", Values: map[string]string{
			"Content-Security-Policy": contentSecurityPolicy,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "strict-origin-when-cross-origin",
			"Permissions-Policy":      "camera=(), microphone=(), geolocation=(), interest-cohort=()",
		}},
		{For: "/*.md", Values: agentFile(typeMarkdown)},
		{For: "/api/md", Values: agentFile(typeMarkdown)},
		{For: "/api/md/*", Values: agentFile(typeMarkdown)},
		{For: "/llms.txt", Values: agentFile(typeText)},
		{For: "/llms-full.txt", Values: agentFile(typeText)},
		{For: "/sitemap.xml", Values: agentFile(typeXML)},
		{For: "/api/sitemap.xml", Values: agentFile(typeXML)},
		{For: "/openapi.json", Values: agentFile(typeJSON)},
		{For: "/.well-known/mcp.json", Values: agentFile(typeJSON)},
		{For: "/static/*", Values: map[string]string{"Cache-Control": cacheAssets}},
	}
}

// literalPrefix is the part of a pattern before its first placeholder; a path without it cannot match.
func literalPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, ":*"); i >= 0 {
		return pattern[:i]
	}
	return strings.TrimSuffix(pattern, "/")
}

// expand fills ":name" segments and ":splat" of to with vars.
func expand(to string, vars map[string]string) string {
	if !strings.Contains(to, ":") {
		return to
	}
	parts := strings.Split(to, "/")
	for i, p := range parts {
		if name, ok := strings.CutPrefix(p, ":"); ok && isName(name) {
			parts[i] = vars[name]
		}
	}
	return strings.Join(parts, "/")
}

func isName(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && r != '_' {
			return false
		}
	}
	return s != ""
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
