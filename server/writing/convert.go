package writing

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// DescriptionRunes is the longest description a post carries; longer text is cut at a word and ends in "…".
const DescriptionRunes = 280

// Convert turns a parsed feed into at most MaxPosts posts, newest first. Items without an address are skipped;
// relative addresses are resolved against the item's link, the feed's link and the feed's own address.
func Convert(feed *gofeed.Feed, feedURL string) []Post {
	base, _ := url.Parse(feedURL)
	if feed.Link != "" {
		if u := resolve(base, feed.Link); u != nil {
			base = u
		}
	}
	type dated struct {
		Post
		at    time.Time
		order int
	}
	var items []dated
	for i, it := range feed.Items {
		link := resolve(base, firstNonEmpty(it.Link, firstOf(it.Links), guidURL(it.GUID)))
		if link == nil {
			continue
		}
		desc := PlainText(firstNonEmpty(it.Description, it.Content), DescriptionRunes)
		title := PlainText(it.Title, 200)
		if title == "" {
			if title = PlainText(desc, 80); title == "" {
				continue
			}
		}
		p := dated{Post: Post{Title: title, URL: link.String(), Description: desc}, order: i}
		if img := resolve(link, image(it)); img != nil {
			p.ImageURL = img.String()
		}
		if t := firstTime(it.PublishedParsed, it.UpdatedParsed); t != nil {
			p.at = t.UTC()
			p.PublishedAt = p.at.Format(time.RFC3339)
		}
		items = append(items, p)
	}
	// Newest first; undated items keep the feed's order after the dated ones.
	slices.SortStableFunc(items, func(a, b dated) int {
		switch {
		case a.at.IsZero() && b.at.IsZero():
			return cmp.Compare(a.order, b.order)
		case a.at.IsZero():
			return 1
		case b.at.IsZero():
			return -1
		}
		return b.at.Compare(a.at)
	})
	posts := make([]Post, 0, min(len(items), MaxPosts))
	for _, it := range items[:min(len(items), MaxPosts)] {
		posts = append(posts, it.Post)
	}
	return posts
}

// image finds an item's picture: gofeed's own choice, then an image enclosure, media:content or media:thumbnail
// (also inside media:group), the item's iTunes image, and the first image of its content or description.
func image(it *gofeed.Item) string {
	if it.Image != nil && it.Image.URL != "" {
		return it.Image.URL
	}
	for _, e := range it.Enclosures {
		if strings.HasPrefix(e.Type, "image/") && e.URL != "" {
			return e.URL
		}
	}
	if media, ok := it.Extensions["media"]; ok {
		for _, name := range []string{"content", "thumbnail"} {
			for _, e := range media[name] {
				if u := e.Attrs["url"]; u != "" && (name == "thumbnail" || isImage(e.Attrs["type"], e.Attrs["medium"], u)) {
					return u
				}
			}
		}
		for _, g := range media["group"] {
			for _, name := range []string{"content", "thumbnail"} {
				for _, e := range g.Children[name] {
					if u := e.Attrs["url"]; u != "" && (name == "thumbnail" || isImage(e.Attrs["type"], e.Attrs["medium"], u)) {
						return u
					}
				}
			}
		}
	}
	if it.ITunesExt != nil && it.ITunesExt.Image != "" {
		return it.ITunesExt.Image
	}
	if u := firstImage(it.Content); u != "" {
		return u
	}
	return firstImage(it.Description)
}

func isImage(typ, medium, u string) bool {
	if strings.HasPrefix(typ, "image/") || medium == "image" {
		return true
	}
	if typ != "" || medium != "" {
		return false
	}
	ext := strings.ToLower(u)
	if i := strings.IndexAny(ext, "?#"); i >= 0 {
		ext = ext[:i]
	}
	for _, e := range []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".svg"} {
		if strings.HasSuffix(ext, e) {
			return true
		}
	}
	return false
}

// firstImage returns the src of the first <img> in an HTML fragment.
func firstImage(fragment string) string {
	if !strings.Contains(fragment, "<") {
		return ""
	}
	z := html.NewTokenizer(strings.NewReader(fragment))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if atom.Lookup(name) != atom.Img {
				continue
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if string(k) == "src" && len(strings.TrimSpace(string(v))) > 0 {
					return strings.TrimSpace(string(v))
				}
			}
		}
	}
}

// PlainText returns the text of an HTML fragment (or of plain text, entities decoded), without the contents of
// script and style, with whitespace collapsed, and at most max runes long: longer text is cut at a word boundary
// and ends in "…".
func PlainText(fragment string, max int) string {
	var b strings.Builder
	if strings.ContainsAny(fragment, "<&") {
		z := html.NewTokenizer(strings.NewReader(fragment))
		skip := 0
	loop:
		for {
			switch tt := z.Next(); tt {
			case html.ErrorToken:
				break loop
			case html.TextToken:
				if skip == 0 {
					b.Write(z.Text())
				}
			case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
				name, _ := z.TagName()
				a := atom.Lookup(name)
				switch a {
				case atom.Script, atom.Style, atom.Noscript, atom.Template:
					if tt == html.StartTagToken {
						skip++
					} else if tt == html.EndTagToken && skip > 0 {
						skip--
					}
				case atom.Br, atom.P, atom.Div, atom.Li, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
					atom.Blockquote, atom.Pre, atom.Tr, atom.Td, atom.Th, atom.Figcaption, atom.Section, atom.Article:
					b.WriteByte(' ')
				}
			}
		}
	} else {
		b.WriteString(fragment)
	}
	return truncate(strings.Join(strings.FieldsFunc(b.String(), unicode.IsSpace), " "), max)
}

// truncate cuts s to at most max runes, at a word boundary when one is near, ending in "…".
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	cut, n := 0, 0
	for i := range s {
		if n == max-1 {
			cut = i
			break
		}
		n++
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut*2/3 {
		cut = sp
	}
	return strings.TrimRightFunc(s[:cut], func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) + "…"
}

// resolve returns ref as an absolute http(s) address resolved against base, or nil.
func resolve(base *url.URL, ref string) *url.URL {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil
	}
	u, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil
	}
	return u
}

func guidURL(guid string) string {
	if strings.HasPrefix(guid, "http://") || strings.HasPrefix(guid, "https://") {
		return guid
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func firstOf(s []string) string {
	if len(s) > 0 {
		return s[0]
	}
	return ""
}

func firstTime(ts ...*time.Time) *time.Time {
	for _, t := range ts {
		if t != nil && !t.IsZero() {
			return t
		}
	}
	return nil
}
