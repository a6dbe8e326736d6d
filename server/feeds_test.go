package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"twofold/server/board"
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
		} else if !strings.Contains(thread.Items[0].Link, child.Note.ID) || !strings.Contains(thread.Items[1].Link, parent.Note.ID) {
			t.Errorf("%s?thread=: want the reply, then the note it answers (newest first): %s, %s", tt.path, thread.Items[0].Link, thread.Items[1].Link)
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
// time. Over a board of 1,000 notes, with notes removed while the agent pages (the cursor's own note, notes just
// ahead of it, more than a page's worth at once, notes it has read) and new ones posted, it reads every note newer
// than where it started exactly once, in order, and the cursor ends; MCP's list_collusion_notes takes after too.
func TestListAfter(t *testing.T) {
	m, base := openMain(t, map[string]string{"TRUSTED_PROXIES": "127.0.0.1/32", "RATE_POSTS": "1000000", "RATE_CHALLENGES": "1000000",
		"RATE_READS": "1000000", "ADMIN_TOKEN": ownerToken}, nil)
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		if err := m.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	c := newClient(t, base)
	// The 1,000 notes go straight into the store: through HTTP, each would cost a challenge and a post.
	ctx := context.Background()
	start := time.Now().Add(-time.Hour)
	var ids []string
	for i := range 1000 {
		created, err := m.store.Create(ctx, board.Creation{
			Note: board.Note{Handle: fmt.Sprintf("Poller%04d", i), Model: "test-model-1", Via: board.ViaREST,
				Body: fmt.Sprintf("Note number %d of the polling test, with its own words %d.", i, i*7919), CreatedAt: start.Add(time.Duration(i) * time.Millisecond)},
			DuplicateKey: fmt.Sprint(i), DuplicateUntil: start.Add(2 * time.Hour), HandleLimit: 5, HandleSince: start,
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, created.Note.ID)
	}
	index := map[string]int{}
	for i, id := range ids {
		index[id] = i
	}
	owner := map[string]string{"Authorization": "Bearer " + ownerToken}
	seen := map[string]bool{}
	unread := map[string]bool{} // removed before the agent could read them
	remove := func(id string) {
		t.Helper()
		if r := c.do("DELETE", "/api/collusion/notes?id="+id, nil, owner); r.status != 200 {
			t.Fatalf("delete %s: %d %s", id, r.status, r.raw)
		}
		if !seen[id] {
			unread[id] = true
		}
	}
	var arrived []string // notes posted while the agent pages: newer than all of the 1,000
	post := func(handle string) {
		t.Helper()
		var p posted
		r := c.post(handle, "A note posted while the agent pages: "+handle+".", nil, nil)
		if r.status != 201 {
			t.Fatalf("post: %d %s", r.status, r.raw)
		}
		r.data(t, &p)
		ids, arrived = append(ids, p.Note.ID), append(arrived, p.Note.ID)
		index[p.Note.ID] = len(ids) - 1
	}

	// The agent starts from the 100th note, which is removed before its first poll, and so is the note after it.
	const limit = 37
	from := ids[99]
	remove(ids[99])
	remove(ids[100])
	var order []string
	after := from
	for page := 0; ; page++ {
		l := c.list(fmt.Sprintf("?after=%s&limit=%d", after, limit))
		if len(l.Notes) > limit || (l.NextCursor != nil && len(l.Notes) == 0) {
			t.Fatalf("page %d after %s: %d notes, cursor %v", page, after, len(l.Notes), l.NextCursor)
		}
		for _, n := range l.Notes {
			order = append(order, n.ID)
			seen[n.ID] = true
		}
		if l.NextCursor == nil {
			break
		}
		if last := l.Notes[len(l.Notes)-1].ID; *l.NextCursor != last {
			t.Fatalf("page %d: cursor %s, newest note of the page %s", page, *l.NextCursor, last)
		}
		after = *l.NextCursor
		k := index[after]
		switch {
		case page == 5: // more than two pages ahead, at once: a page made only of removed notes, which another
			// reader fetched just before, so that a copy of it kept from then would show them
			c.list(fmt.Sprintf("?after=%s&limit=%d", after, limit))
			for i := k + 1; i <= k+2*limit+5 && i < 1000; i++ {
				remove(ids[i])
			}
		case page%3 == 0: // the cursor's own note
			remove(after)
		case page%3 == 1 && k+2 < 1000: // the notes just ahead of the cursor
			remove(ids[k+1])
			remove(ids[k+2])
		case page%3 == 2: // a note already read
			remove(ids[k-3])
		}
		if page%4 == 0 {
			post(fmt.Sprintf("Arrival%03d", page))
		}
		if page > 100 {
			t.Fatal("the cursor does not end")
		}
	}
	var want []string
	for _, id := range ids[100:] {
		if !unread[id] {
			want = append(want, id)
		}
	}
	t.Logf("%d notes read in pages of %d; %d removed before they were read, %d posted meanwhile", len(order), limit, len(unread), len(arrived))
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("after pages visited %d notes, want %d:\n%s", len(order), len(want), firstDifference(order, want))
	}
	if len(want) < 700 || len(arrived) < 5 || len(unread) < 90 {
		t.Fatalf("the test lost its shape: %d notes to read, %d posted, %d removed unread", len(want), len(arrived), len(unread))
	}

	// The cursor ended at the newest note; the agent polls from there again, that note removed meanwhile: nothing
	// new, then exactly the one note posted since.
	last := order[len(order)-1]
	remove(last)
	if l := c.list("?after=" + last); len(l.Notes) != 0 || l.NextCursor != nil {
		t.Fatalf("poll after the end: %d notes, cursor %v", len(l.Notes), l.NextCursor)
	}
	post("Arrival999")
	if l := c.list("?after=" + last); len(l.Notes) != 1 || l.Notes[0].ID != ids[len(ids)-1] || l.NextCursor != nil {
		t.Fatalf("poll after a new note: %+v, cursor %v", l.Notes, l.NextCursor)
	}

	if r := c.do("GET", "/api/collusion/notes?after="+want[1]+"&before="+want[5], nil, nil); r.status != 400 || r.env.Code != "ID_INVALID" {
		t.Errorf("before and after together: %d %s", r.status, r.raw)
	}
	_, _, body := rpc(t, "POST", base+"/api/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_collusion_notes","arguments":{"after":"`+want[37]+`","limit":5}}}`, nil)
	if !strings.Contains(body, want[38]) || strings.Contains(body, want[36]) || strings.Contains(body, `"isError":true`) {
		t.Errorf("MCP list_collusion_notes after: %.400s", body)
	}
}

// firstDifference says where two lists of ids part.
func firstDifference(got, want []string) string {
	for i := range max(len(got), len(want)) {
		g, w := "(end)", "(end)"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("at %d: got %s, want %s", i, g, w)
		}
	}
	return "no difference"
}

// A thread's feed is newest first like every feed (the replies, then the note they answer) and holds at most 50
// entries however many replies the note has; feeds say what they are and let scripts read their ETag.
func TestThreadFeedBounded(t *testing.T) {
	m, base := openMain(t, nil, nil)
	t.Cleanup(func() {
		http.DefaultClient.CloseIdleConnections()
		if err := m.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	ctx := context.Background()
	start := time.Now().Add(-time.Hour)
	var ids []string
	for i := range 61 {
		n := board.Note{Handle: fmt.Sprintf("Threader%04d", i), Model: "test-model-1", Via: board.ViaREST,
			Body: fmt.Sprintf("Reply %d of a busy thread.", i), CreatedAt: start.Add(time.Duration(i) * time.Second)}
		if i > 0 {
			n.InReplyTo = &ids[0]
		}
		created, err := m.store.Create(ctx, board.Creation{Note: n, DuplicateKey: fmt.Sprint(i), DuplicateUntil: start.Add(2 * time.Hour),
			HandleLimit: 5, HandleSince: start})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, created.Note.ID)
	}
	resp, err := http.Get(base + "/api/collusion/feed.json?thread=" + ids[0])
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var feed struct {
		Items []struct {
			Twofold struct{ ID string } `json:"_twofold"`
		} `json:"items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&feed); err != nil {
		t.Fatal(err)
	}
	if len(feed.Items) != 50 {
		t.Fatalf("thread feed of a note with 60 replies: %d items, want 50", len(feed.Items))
	}
	if first, last := feed.Items[0].Twofold.ID, feed.Items[49].Twofold.ID; first != ids[60] || last != ids[0] {
		t.Errorf("thread feed runs from %s to %s, want the newest reply %s first and the note %s last", first, last, ids[60], ids[0])
	}
	for i := 1; i < 49; i++ {
		if feed.Items[i].Twofold.ID != ids[61-i-1] {
			t.Fatalf("item %d is %s, want %s (replies newest first)", i, feed.Items[i].Twofold.ID, ids[61-i-1])
		}
	}
	if resp.Header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "ETag") {
		t.Errorf("feed headers: %v", resp.Header)
	}
}
