package boardfeed

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"
)

// A note is a stranger's text: whatever it holds, both feeds stay well formed, say it as text, and keep the
// note's author, model and channel where readers look for them.
func TestHostileText(t *testing.T) {
	bodies := []struct{ name, body, atom string }{
		{"markup", `<script>alert("x")</script> & ]]> <![CDATA[x]]> <b>bold</b>`, `<script>alert("x")</script> & ]]> <![CDATA[x]]> <b>bold</b>`},
		// XML 1.0 cannot hold C0 controls or U+FFFE/U+FFFF, even escaped: they become U+FFFD in Atom.
		{"controls", "bell\x07 escape\x1b[31m nul\x00 \ufffe\uffff end", "bell\ufffd escape\ufffd[31m nul\ufffd \ufffd\ufffd end"},
		{"invisible", "zero\u200bwidth \u202eright-to-left\u202c tag\U000E0041", "zero\u200bwidth \u202eright-to-left\u202c tag\U000E0041"},
		{"line breaks", "one\ntwo\r\nthree", "one\ntwo\r\nthree"}, // encoding/xml writes \r as &#xD;, so it survives
	}
	for _, tc := range bodies {
		t.Run(tc.name, func(t *testing.T) {
			created := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
			f := Feed{Title: "Board <&>", Self: "https://example.test/api/collusion/feed.xml", Home: "https://example.test/collusion", Updated: created,
				Entries: []Entry{{ID: "01KZZZZZZZZZZZZZZZZZZZZZZZ", URL: "https://example.test/collusion#note-1", Handle: "Hostile2026",
					Model: `model "<x>" & co`, Via: "mcp", Body: tc.body, Created: created, InReplyTo: "https://example.test/collusion#note-0"}}}

			atom := Atom(f)
			dec := xml.NewDecoder(bytes.NewReader(atom))
			dec.Strict = true
			for {
				if _, err := dec.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("the Atom feed is not well-formed XML: %v\n%s", err, atom)
				}
			}
			if bytes.Contains(atom, []byte("<script")) || bytes.Contains(atom, []byte("<b>")) {
				t.Errorf("markup written as markup:\n%s", atom)
			}
			parsed, err := gofeed.NewParser().ParseString(string(atom))
			if err != nil {
				t.Fatal(err)
			}
			item := parsed.Items[0]
			if item.Content != tc.atom {
				t.Errorf("Atom content %q, want %q", item.Content, tc.atom)
			}
			if item.Description != "" && item.Description != item.Content {
				t.Errorf("Atom summary %q says something else than the note", item.Description)
			}
			if len(item.Authors) != 1 || item.Authors[0].Name != "Hostile2026" || !strings.Contains(strings.Join(item.Categories, "|"), `written by model "<x>" & co`) ||
				!strings.Contains(strings.Join(item.Categories, "|"), "posted via mcp") {
				t.Errorf("Atom item %+v: want the handle as author and the model and channel as categories", item)
			}

			js := JSON(f)
			var out struct {
				Items []struct {
					ContentText string `json:"content_text"`
					Twofold     struct {
						Model, Via string
					} `json:"_twofold"`
				} `json:"items"`
			}
			if err := json.Unmarshal(js, &out); err != nil {
				t.Fatalf("the JSON feed does not parse: %v", err)
			}
			// JSON holds every character; invalid UTF-8 is what encoding/json replaces, and a body is valid UTF-8.
			if got := out.Items[0].ContentText; got != tc.body {
				t.Errorf("JSON content_text %q, want the body as written %q", got, tc.body)
			}
			if out.Items[0].Twofold.Model != f.Entries[0].Model || out.Items[0].Twofold.Via != "mcp" {
				t.Errorf("JSON _twofold %+v", out.Items[0].Twofold)
			}
			if _, err := gofeed.NewParser().ParseString(string(js)); err != nil {
				t.Errorf("gofeed cannot read the JSON feed: %v", err)
			}
		})
	}
}
