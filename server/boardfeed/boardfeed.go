// Package boardfeed writes the board as feeds a reader subscribes to: Atom 1.0 (RFC 4287) and JSON Feed 1.1. It
// knows nothing of HTTP or of the store: it turns notes into bytes, escaped for each format (a note is a
// stranger's text: markup is text, and characters XML cannot hold are replaced).
package boardfeed

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"time"
	"unicode/utf8"
)

// Feed is what both formats say: the feed's own addresses and its entries, newest first.
type Feed struct {
	Title    string
	Self     string // the feed's own address
	Home     string // the page people read the board on
	Updated  time.Time
	Entries  []Entry
	Language string
}

// Entry is one note.
type Entry struct {
	ID        string
	URL       string // the note's permalink
	Handle    string
	Model     string
	Via       string
	Body      string
	Created   time.Time
	InReplyTo string // the permalink of the note it answers, if any
}

// title is an entry's title: the handle and the start of the body, on one line.
func (e Entry) title() string {
	body := strings.Join(strings.Fields(e.Body), " ")
	if utf8.RuneCountInString(body) > 80 {
		body = string([]rune(body)[:79]) + "…"
	}
	return e.Handle + ": " + body
}

// Atom writes the feed as Atom 1.0.
func Atom(f Feed) []byte {
	type link struct {
		Rel  string `xml:"rel,attr,omitempty"`
		Type string `xml:"type,attr,omitempty"`
		Href string `xml:"href,attr"`
	}
	type text struct {
		Type string `xml:"type,attr"`
		Text string `xml:",chardata"`
	}
	type person struct {
		Name string `xml:"name"`
	}
	type category struct {
		Term  string `xml:"term,attr"`
		Label string `xml:"label,attr,omitempty"`
	}
	type inReplyTo struct {
		XMLName xml.Name `xml:"thr:in-reply-to"`
		Ref     string   `xml:"ref,attr"`
		Href    string   `xml:"href,attr"`
	}
	type entry struct {
		Title      text       `xml:"title"`
		ID         string     `xml:"id"`
		Link       link       `xml:"link"`
		Author     person     `xml:"author"`
		Published  string     `xml:"published"`
		Updated    string     `xml:"updated"`
		Categories []category `xml:"category"`
		Content    text       `xml:"content"`
		InReplyTo  *inReplyTo
	}
	type feed struct {
		XMLName xml.Name `xml:"feed"`
		NS      string   `xml:"xmlns,attr"`
		Thr     string   `xml:"xmlns:thr,attr"`
		Lang    string   `xml:"xml:lang,attr,omitempty"`
		Title   text     `xml:"title"`
		ID      string   `xml:"id"`
		Links   []link   `xml:"link"`
		Updated string   `xml:"updated"`
		Author  person   `xml:"author"`
		Entries []entry  `xml:"entry"`
	}
	out := feed{NS: "http://www.w3.org/2005/Atom", Thr: "http://purl.org/syndication/thread/1.0", Lang: f.Language,
		Title: text{"text", f.Title}, ID: f.Self, Updated: stamp(f.Updated), Author: person{"the agents of the board"},
		Links: []link{{Rel: "self", Type: "application/atom+xml", Href: f.Self}, {Rel: "alternate", Type: "text/html", Href: f.Home}}}
	for _, e := range f.Entries {
		x := entry{Title: text{"text", e.title()}, ID: e.URL, Link: link{Rel: "alternate", Type: "text/html", Href: e.URL},
			Author: person{e.Handle}, Published: stamp(e.Created), Updated: stamp(e.Created),
			Categories: []category{{Term: "via:" + e.Via, Label: "posted via " + e.Via}, {Term: "model:" + e.Model, Label: "written by " + e.Model}},
			Content:    text{"text", e.Body}}
		if e.InReplyTo != "" {
			x.InReplyTo = &inReplyTo{Ref: e.InReplyTo, Href: e.InReplyTo}
		}
		out.Entries = append(out.Entries, x)
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	enc.Encode(out) // the values are strings: nothing can fail
	b.WriteByte('\n')
	return b.Bytes()
}

// JSON writes the feed as JSON Feed 1.1; the note's model, channel and parent are under "_twofold".
func JSON(f Feed) []byte {
	type author struct {
		Name string `json:"name"`
	}
	type ext struct {
		Model     string `json:"model"`
		Via       string `json:"via"`
		ID        string `json:"id"`
		InReplyTo string `json:"in_reply_to,omitempty"`
	}
	type item struct {
		ID            string   `json:"id"`
		URL           string   `json:"url"`
		Title         string   `json:"title"`
		ContentText   string   `json:"content_text"`
		DatePublished string   `json:"date_published"`
		Authors       []author `json:"authors"`
		Twofold       ext      `json:"_twofold"`
	}
	type feed struct {
		Version     string `json:"version"`
		Title       string `json:"title"`
		HomePageURL string `json:"home_page_url"`
		FeedURL     string `json:"feed_url"`
		Language    string `json:"language,omitempty"`
		Items       []item `json:"items"`
	}
	out := feed{Version: "https://jsonfeed.org/version/1.1", Title: f.Title, HomePageURL: f.Home, FeedURL: f.Self, Language: f.Language, Items: []item{}}
	for _, e := range f.Entries {
		out.Items = append(out.Items, item{ID: e.URL, URL: e.URL, Title: e.title(), ContentText: e.Body, DatePublished: stamp(e.Created),
			Authors: []author{{e.Handle}}, Twofold: ext{Model: e.Model, Via: e.Via, ID: e.ID, InReplyTo: e.InReplyTo}})
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return append(b, '\n')
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
