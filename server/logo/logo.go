// Package logo finds a domain's logo: the icons its home page links to and its web manifest lists, then
// /apple-touch-icon.png, /favicon.ico and configured icon services, fetched through a guarded client that reaches
// public addresses only (fetch.go). PNG and ICO are served as they are; JPEG, GIF and WebP become PNG; SVG from
// outside is never served. Hits are cached for 7 days and misses for a day; a miss is answered with a generated
// SVG monogram.
package logo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/sync/singleflight"
)

// How long lookups are remembered.
const (
	HitTTL        = 7 * 24 * time.Hour
	MissTTL       = 24 * time.Hour
	LookupTimeout = 12 * time.Second // one lookup, all its sources together
	maxCandidates = 4                // icons of the page and the manifest tried, largest first
)

// Cache keeps encoded lookups; the store implements it.
type Cache interface {
	CacheGet(key string, now time.Time) ([]byte, bool, error)
	CachePut(key string, value []byte, until time.Time) error
}

// Logo is an answer: image bytes and their type, or the placeholder.
type Logo struct {
	Data        []byte
	ContentType string // image/png, image/x-icon or image/svg+xml
	ETag        string
	Placeholder bool
}

// Service looks logos up. Fetcher and Cache are required; Services are icon services' address templates in which
// {domain} stands for the domain.
type Service struct {
	Fetcher  *Fetcher
	Cache    Cache
	Services []string
	Now      func() time.Time
	Log      *slog.Logger

	group        singleflight.Group
	hits, misses atomic.Uint64
}

// Stats are the lookups answered from the cache and those that fetched.
func (s *Service) Stats() (hits, misses uint64) { return s.hits.Load(), s.misses.Load() }

// Lookup returns the logo of a domain that Normalize accepted. Concurrent lookups of one domain share one fetch,
// which runs apart from the callers' contexts so that one caller giving up does not fail the others.
func (s *Service) Lookup(ctx context.Context, domain string) (Logo, error) {
	key := "logo/" + domain
	if v, ok, err := s.Cache.CacheGet(key, s.now()); err == nil && ok {
		if l, ok := decodeEntry(domain, v); ok {
			s.hits.Add(1)
			return l, nil
		}
	}
	s.misses.Add(1)
	ch := s.group.DoChan(domain, func() (any, error) {
		// Not derived from ctx: the fetch outlives a caller that gives up, and a request's context (fasthttp's
		// RequestCtx) must not be touched after its request ends.
		fctx, cancel := context.WithTimeout(context.Background(), LookupTimeout)
		defer cancel()
		l, found := s.find(fctx, domain)
		ttl := MissTTL
		if found {
			ttl = HitTTL
		}
		if err := s.Cache.CachePut(key, EncodeEntry(l), s.now().Add(ttl)); err != nil {
			s.log().Warn("logo cache write failed", "domain", domain, "err", err)
		}
		return l, nil
	})
	select {
	case r := <-ch:
		return r.Val.(Logo), nil
	case <-ctx.Done():
		return Placeholder(domain), nil
	}
}

// find tries the sources in order and returns the first that decodes, or the placeholder.
func (s *Service) find(ctx context.Context, domain string) (Logo, bool) {
	origins := []string{"https://" + domain, "http://" + domain} // until a home page answers
	var candidates []string
	for _, origin := range origins {
		body, _, final, err := s.Fetcher.Get(ctx, origin+"/")
		if err != nil {
			s.log().Debug("logo: home page", "domain", domain, "origin", origin, "err", err)
			continue
		}
		origins = []string{final.Scheme + "://" + final.Host}
		candidates = s.pageIcons(ctx, final, body) // whatever its declared type: tokenizing is harmless
		break
	}
	for _, origin := range origins {
		candidates = append(candidates, origin+"/apple-touch-icon.png", origin+"/favicon.ico")
	}
	for _, t := range s.Services {
		candidates = append(candidates, strings.ReplaceAll(t, "{domain}", url.QueryEscape(domain)))
	}
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] || ctx.Err() != nil {
			continue
		}
		seen[c] = true
		body, _, _, err := s.Fetcher.Get(ctx, c)
		if err != nil {
			s.log().Debug("logo: candidate", "domain", domain, "url", c, "err", err)
			continue
		}
		data, ctype, err := Image(body)
		if err != nil {
			s.log().Debug("logo: candidate is not a usable image", "domain", domain, "url", c, "err", err)
			continue
		}
		return Logo{Data: data, ContentType: ctype, ETag: etag(data)}, true
	}
	return Placeholder(domain), false
}

// icon is a candidate from a page or a manifest.
type icon struct {
	href string
	size int
}

// pageIcons returns the icons a home page links to and its manifest lists, largest first, SVG left out.
func (s *Service) pageIcons(ctx context.Context, page *url.URL, body []byte) []string {
	var icons []icon
	var manifest string
	z := html.NewTokenizer(bytes.NewReader(body))
	for done := false; !done; {
		switch z.Next() {
		case html.ErrorToken:
			done = true
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if a := atom.Lookup(name); a == atom.Body {
				done = true
			} else if a != atom.Link {
				continue
			}
			attrs := map[string]string{}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				attrs[string(k)] = string(v)
			}
			rel := strings.Fields(strings.ToLower(attrs["rel"]))
			href := strings.TrimSpace(attrs["href"])
			if href == "" {
				continue
			}
			switch {
			case slices.Contains(rel, "manifest"):
				manifest = href
			case slices.Contains(rel, "apple-touch-icon") || slices.Contains(rel, "apple-touch-icon-precomposed"):
				icons = append(icons, icon{href, max(largest(attrs["sizes"]), 180)})
			case slices.Contains(rel, "icon"):
				if !svg(attrs["type"], href) {
					icons = append(icons, icon{href, largest(attrs["sizes"])})
				}
			}
		}
	}
	if manifest != "" {
		if mu, err := page.Parse(manifest); err == nil {
			if data, _, final, err := s.Fetcher.Get(ctx, mu.String()); err == nil {
				var m struct {
					Icons []struct{ Src, Sizes, Type string } `json:"icons"`
				}
				if json.Unmarshal(data, &m) == nil {
					for _, i := range m.Icons {
						if i.Src != "" && !svg(i.Type, i.Src) {
							if u, err := final.Parse(i.Src); err == nil {
								icons = append(icons, icon{u.String(), largest(i.Sizes)})
							}
						}
					}
				}
			}
		}
	}
	slices.SortStableFunc(icons, func(a, b icon) int { return b.size - a.size })
	var out []string
	for _, i := range icons {
		if u, err := page.Parse(i.href); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			out = append(out, u.String())
		}
		if len(out) == maxCandidates {
			break
		}
	}
	return out
}

// largest reads a sizes attribute ("16x16 32x32", "any") and returns the largest width, 0 when none.
func largest(sizes string) int {
	best := 0
	for _, f := range strings.Fields(strings.ToLower(sizes)) {
		if w, _, ok := strings.Cut(f, "x"); ok {
			if n, err := strconv.Atoi(w); err == nil && n > best {
				best = n
			}
		}
	}
	return best
}

func svg(typ, href string) bool {
	h := strings.ToLower(href)
	if i := strings.IndexAny(h, "?#"); i >= 0 {
		h = h[:i]
	}
	return strings.Contains(typ, "svg") || strings.HasSuffix(h, ".svg") || strings.HasPrefix(h, "data:")
}

// EncodeEntry is a lookup as the cache keeps it (tools that prepare a cache use it too): a kind byte (1 image,
// 0 miss), the content type's length and the content type, then the data.
func EncodeEntry(l Logo) []byte {
	if l.Placeholder {
		return []byte{0}
	}
	b := []byte{1}
	b = binary.AppendUvarint(b, uint64(len(l.ContentType)))
	b = append(b, l.ContentType...)
	return append(b, l.Data...)
}

func decodeEntry(domain string, v []byte) (Logo, bool) {
	if len(v) == 0 {
		return Logo{}, false
	}
	if v[0] == 0 {
		return Placeholder(domain), true
	}
	n, k := binary.Uvarint(v[1:])
	if k <= 0 || uint64(len(v)-1-k) < n {
		return Logo{}, false
	}
	data := v[1+k+int(n):]
	return Logo{Data: data, ContentType: string(v[1+k : 1+k+int(n)]), ETag: etag(data)}, true
}

func etag(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

// String describes a logo for logs and test failures.
func (l Logo) String() string {
	return fmt.Sprintf("%s, %d bytes, placeholder %v", l.ContentType, len(l.Data), l.Placeholder)
}
