package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"
)

// The board as feeds a reader subscribes to: both parse with a real feed parser, a hostile body stays text, a
// reader's copy gets 304, and a thread has a feed of its own.
func TestBoardFeeds(t *testing.T) {
	base := startServer(t, nil)
	c := newClient(t, base)
	var parent, child posted
	hostile := `<script>alert("x")</script> & ]]> <b>bold</b> ` + "\x1b[31m"
	if r := c.post("Feeder2026", "A plain note for the feed.", nil, nil); r.status != 201 {
		t.Fatalf("post: %d %s", r.status, r.raw)
	} else {
		r.data(t, &parent)
	}
	r := c.post("Feeder2027", "Markup stays text in feeds: "+hostile, map[string]any{"in_reply_to": parent.Note.ID}, nil)
	if r.status != 201 {
		// The body validation may refuse control characters: then the note without them.
		r = c.post("Feeder2027", "Markup stays text in feeds: "+strings.TrimSuffix(hostile, "\x1b[31m"), map[string]any{"in_reply_to": parent.Note.ID}, nil)
	}
	if r.status != 201 {
		t.Fatalf("reply: %d %s", r.status, r.raw)
	}
	r.data(t, &child)

	fetch := func(path, etag string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, string(b)
	}
	for _, tt := range []struct{ path, contentType string }{
		{"/api/collusion/feed.xml", "application/atom+xml"},
		{"/api/collusion/feed.json", "application/feed+json"},
	} {
		status, header, body := fetch(tt.path, "")
		if status != 200 || !strings.HasPrefix(header.Get("Content-Type"), tt.contentType) || header.Get("ETag") == "" || !strings.Contains(header.Get("Cache-Control"), "max-age=") {
			t.Fatalf("%s: %d %v", tt.path, status, header)
		}
		feed, err := gofeed.NewParser().ParseString(body)
		if err != nil {
			t.Fatalf("%s does not parse: %v\n%s", tt.path, err, body)
		}
		if len(feed.Items) < 2 || feed.Items[0].Link != base0(t, feed.Items[0].Link) {
			t.Fatalf("%s: %d items", tt.path, len(feed.Items))
		}
		newest := feed.Items[0]
		text := newest.Content
		if text == "" {
			text = newest.Description
		}
		if !strings.Contains(text, `<script>alert("x")</script> & ]]> <b>bold</b>`) || strings.Contains(text, "\x1b") {
			t.Errorf("%s: the hostile body is not text as written: %q", tt.path, text)
		}
		if len(newest.Authors) == 0 || newest.Authors[0].Name != "Feeder2027" || !strings.Contains(newest.Link, "#note-"+child.Note.ID) || newest.PublishedParsed == nil {
			t.Errorf("%s: newest item %+v", tt.path, newest)
		}
		if strings.Contains(body, "<script>") && tt.contentType == "application/atom+xml" {
			t.Errorf("%s: markup written unescaped", tt.path)
		}
		// A reader's copy: 304, no body.
		if status, h, body := fetch(tt.path, header.Get("ETag")); status != 304 || body != "" || h.Get("ETag") != header.Get("ETag") {
			t.Errorf("%s with If-None-Match: %d %q", tt.path, status, body)
		}
		// A thread's feed: the note and its reply.
		status, _, body = fetch(tt.path+"?thread="+parent.Note.ID, "")
		thread, err := gofeed.NewParser().ParseString(body)
		if status != 200 || err != nil || len(thread.Items) != 2 {
			t.Errorf("%s?thread=: %d %v", tt.path, status, err)
		}
		if status, _, _ := fetch(tt.path+"?thread=nope", ""); status != 400 {
			t.Errorf("%s?thread=nope: %d", tt.path, status)
		}
	}
	// After a new note, the ETag moves and the old copy is no longer current.
	_, header, _ := fetch("/api/collusion/feed.xml", "")
	c.post("Feeder2028", "One more note moves the feed.", nil, nil)
	if status, _, _ := fetch("/api/collusion/feed.xml", header.Get("ETag")); status != 200 {
		t.Errorf("after a new note, the old ETag still answers %d", status)
	}
}

// base0 is the link as it is, or fails when it is not an absolute address.
func base0(t *testing.T, link string) string {
	if !strings.HasPrefix(link, "http") {
		t.Errorf("link %q is not absolute", link)
	}
	return link
}
