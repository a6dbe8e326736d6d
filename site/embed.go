// Package site embeds the site's content (pages, site.yaml, the board's files, static assets, openapi.json)
// so that the build and the server read one copy of it.
package site

import "embed"

// FS holds every content file of this folder, rooted at the folder itself.
//
//go:embed site.yaml openapi.json pages collusion static
var FS embed.FS
