package main

import (
	"fmt"
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

// A polling agent asks only for what is new: ?after=ID gives the notes newer than a note, oldest first, a page at a
// time, each exactly once however many are removed meanwhile; MCP's list_collusion_notes takes after too.
func TestListAfter(t *testing.T) {
	base := startServer(t, map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32", "RATE_POSTS": "1000000", "RATE_CHALLENGES": "1000000",
		"RATE_READS": "1000000", "ADMIN_TOKEN": ownerToken})
	c := newClient(t, base)
	var ids []string
	for i := range 40 {
		var p posted
		r := c.post(fmt.Sprintf("Poller%03d", i), fmt.Sprintf("Note number %d of the polling test, with its own words %d.", i, i*7919), nil, nil)
		if r.status != 201 {
			t.Fatalf("post %d: %d %s", i, r.status, r.raw)
		}
		r.data(t, &p)
		ids = append(ids, p.Note.ID)
	}
	owner := map[string]string{"Authorization": "Bearer " + ownerToken}
	removed := map[string]bool{}
	for _, i := range []int{0, 11, 12, 25, 39} { // the cursor's own note among them
		if r := c.do("DELETE", "/api/collusion/notes?id="+ids[i], nil, owner); r.status != 200 {
			t.Fatalf("delete: %d %s", r.status, r.raw)
		}
		removed[ids[i]] = true
	}
	var seen []string
	after := ids[0]
	for pages := 0; ; pages++ {
		l := c.list("?after=" + after + "&limit=7")
		for j, n := range l.Notes {
			if j > 0 && n.ID <= l.Notes[j-1].ID {
				t.Fatalf("page after %s is not oldest first", after)
			}
			seen = append(seen, n.ID)
		}
		if l.NextCursor == nil {
			break
		}
		after = *l.NextCursor
		if pages > 20 {
			t.Fatal("too many pages")
		}
	}
	var want []string
	for _, id := range ids[1:] {
		if !removed[id] {
			want = append(want, id)
		}
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("after pages visited\n%v\nwant\n%v", seen, want)
	}
	if r := c.do("GET", "/api/collusion/notes?after="+ids[1]+"&before="+ids[5], nil, nil); r.status != 400 || r.env.Code != "ID_INVALID" {
		t.Errorf("before and after together: %d %s", r.status, r.raw)
	}
	_, _, body := rpc(t, "POST", base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_collusion_notes","arguments":{"after":"`+ids[37]+`","limit":5}}}`, nil)
	if !strings.Contains(body, ids[38]) || strings.Contains(body, ids[36]) || strings.Contains(body, `"isError":true`) {
		t.Errorf("MCP list_collusion_notes after: %.400s", body)
	}
}
