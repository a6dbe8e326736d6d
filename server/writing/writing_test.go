package writing

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"twofold/server/errcode"
)

const rssFeed = `<?xml version="1.0"?>
<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>Notes</title><link>https://notes.example/</link>
<item><title>Older &amp; wiser</title><link>/older</link><pubDate>Mon, 01 Sep 2025 08:00:00 GMT</pubDate>
  <description>&lt;p&gt;An &lt;b&gt;HTML&lt;/b&gt; description&lt;script&gt;alert(1)&lt;/script&gt; with   spaces.&lt;/p&gt;</description>
  <enclosure url="/img/older.jpg" type="image/jpeg" length="1"/></item>
<item><title>Newest</title><link>https://notes.example/newest</link><pubDate>Thu, 02 Oct 2025 08:00:00 GMT</pubDate>
  <description>Plain.</description><media:thumbnail url="https://cdn.example/newest.png"/></item>
<item><title>Middle</title><link>https://notes.example/middle</link><pubDate>Mon, 15 Sep 2025 08:00:00 GMT</pubDate>
  <content:encoded><![CDATA[<p>Text <img src="pics/middle.webp"> more.</p>]]></content:encoded></item>
<item><title>No link</title><description>skipped</description></item>
</channel></rss>`

const atomFeed = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Notes</title><link href="https://notes.example/"/>
<entry><title>Atom post</title><link href="https://notes.example/atom-post"/><updated>2025-10-05T10:00:00+02:00</updated>
<summary type="html">&lt;p&gt;Summary &lt;img src="/a.png"&gt;&lt;/p&gt;</summary></entry>
</feed>`

const jsonFeed = `{"version":"https://jsonfeed.org/version/1.1","title":"Notes","home_page_url":"https://notes.example/",
"items":[{"id":"1","url":"https://notes.example/json-post","title":"JSON post","content_html":"<p>Hello</p>","image":"https://notes.example/j.png","date_published":"2025-10-06T09:00:00Z"}]}`

func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func body(s string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, s) }
}

func TestFormats(t *testing.T) {
	t.Run("RSS", func(t *testing.T) {
		f := &Feed{URL: serve(t, body(rssFeed)).URL + "/feed.xml"}
		posts, err := f.Posts(context.Background(), 50)
		if err != nil {
			t.Fatal(err)
		}
		want := []Post{
			{Title: "Newest", URL: "https://notes.example/newest", ImageURL: "https://cdn.example/newest.png", Description: "Plain.", PublishedAt: "2025-10-02T08:00:00Z"},
			{Title: "Middle", URL: "https://notes.example/middle", ImageURL: "https://notes.example/pics/middle.webp", Description: "Text more.", PublishedAt: "2025-09-15T08:00:00Z"},
			{Title: "Older & wiser", URL: "https://notes.example/older", ImageURL: "https://notes.example/img/older.jpg", Description: "An HTML description with spaces.", PublishedAt: "2025-09-01T08:00:00Z"},
		}
		if fmt.Sprint(posts) != fmt.Sprint(want) {
			t.Errorf("posts:\n got %+v\nwant %+v", posts, want)
		}
	})
	t.Run("Atom", func(t *testing.T) {
		f := &Feed{URL: serve(t, body(atomFeed)).URL}
		posts, err := f.Posts(context.Background(), 50)
		if err != nil || len(posts) != 1 {
			t.Fatal(posts, err)
		}
		p := posts[0]
		if p.Title != "Atom post" || p.URL != "https://notes.example/atom-post" || p.PublishedAt != "2025-10-05T08:00:00Z" ||
			p.ImageURL != "https://notes.example/a.png" || p.Description != "Summary" {
			t.Errorf("%+v", p)
		}
	})
	t.Run("JSON Feed", func(t *testing.T) {
		f := &Feed{URL: serve(t, body(jsonFeed)).URL}
		posts, err := f.Posts(context.Background(), 50)
		if err != nil || len(posts) != 1 {
			t.Fatal(posts, err)
		}
		if p := posts[0]; p.Title != "JSON post" || p.ImageURL != "https://notes.example/j.png" || p.Description != "Hello" || p.PublishedAt != "2025-10-06T09:00:00Z" {
			t.Errorf("%+v", p)
		}
	})
}

func TestAtMostFiftyNewestFirst(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<rss version="2.0"><channel><title>T</title><link>https://n.example/</link>`)
	for i := range 80 {
		fmt.Fprintf(&b, `<item><title>Post %d</title><link>https://n.example/%d</link><pubDate>%s</pubDate></item>`, i, i,
			time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*37%80)*time.Hour).Format(time.RFC1123Z))
	}
	b.WriteString(`</channel></rss>`)
	f := &Feed{URL: serve(t, body(b.String())).URL}
	posts, err := f.Posts(context.Background(), 50)
	if err != nil || len(posts) != 50 {
		t.Fatalf("%d posts, %v", len(posts), err)
	}
	for i := 1; i < len(posts); i++ {
		if posts[i-1].PublishedAt < posts[i].PublishedAt {
			t.Fatalf("not newest first at %d: %s before %s", i, posts[i-1].PublishedAt, posts[i].PublishedAt)
		}
	}
	if short, _ := f.Posts(context.Background(), 3); len(short) != 3 || short[0] != posts[0] {
		t.Errorf("limit 3: %v", short)
	}
}

func TestDescriptionIsPlainTextOfReasonableLength(t *testing.T) {
	long := strings.Repeat("word ", 200)
	got := PlainText("<div><p>"+long+"</p><style>p{}</style></div>", DescriptionRunes)
	if n := len([]rune(got)); n > DescriptionRunes || !strings.HasSuffix(got, "…") || strings.Contains(got, "<") || strings.Contains(got, "p{}") {
		t.Errorf("%d runes: %q", n, got)
	}
	if got := PlainText("Caf&eacute; <em>ümlaut</em>&nbsp;&lt;tag&gt;", 100); got != "Café ümlaut <tag>" {
		t.Errorf("%q", got)
	}
}

// A failing feed is served stale from the cache up to Stale; past it, FEED_FETCH_ERROR.
func TestStaleServingAndRefresh(t *testing.T) {
	var fail atomic.Bool
	var version, fetches atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		if fail.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		fmt.Fprintf(w, `<rss version="2.0"><channel><title>T</title><item><title>v%d</title><link>https://n.example/p</link></item></channel></rss>`, version.Load())
	})
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	f := &Feed{URL: srv.URL, Now: clock}
	title := func() string {
		t.Helper()
		posts, err := f.Posts(context.Background(), 1)
		if err != nil {
			t.Fatal(err)
		}
		return posts[0].Title
	}
	if got := title(); got != "v0" {
		t.Fatal(got)
	}
	version.Store(1)
	advance(5 * time.Minute)
	if got := title(); got != "v0" || fetches.Load() != 1 {
		t.Fatalf("fresh cache: %s after %d fetches", got, fetches.Load())
	}
	advance(11 * time.Minute) // 16 minutes: stale; served at once while one fetch refreshes
	if got := title(); got != "v0" {
		t.Fatalf("stale while revalidating: %s", got)
	}
	waitFor(t, func() bool { return title() == "v1" })

	fail.Store(true)
	advance(20 * time.Minute)
	if got := title(); got != "v1" {
		t.Fatalf("failing feed: %s", got)
	}
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.inflight == nil && !f.failedAt.IsZero() })
	advance(23 * time.Hour) // 23 h 20 min since the last good fetch: still served
	if got := title(); got != "v1" {
		t.Fatalf("stale copy within a day: %s", got)
	}
	advance(time.Hour) // over a day
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.inflight == nil })
	if _, err := f.Posts(context.Background(), 1); !errcode.Is(err, errcode.FeedFetchError) {
		t.Fatalf("a day after the last good fetch: %v", err)
	}
	fail.Store(false)
	advance(2 * time.Minute) // past the retry pause
	waitFor(t, func() bool { _, err := f.Posts(context.Background(), 1); return err == nil })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}

func TestNothingCachedIsFeedFetchError(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"not found":  func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) },
		"not a feed": body("<html><body>hello</body></html>"),
		"broken XML": body(`<rss version="2.0"><channel><item><title>x`),
		"huge": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `<rss version="2.0"><channel><title>`)
			chunk := strings.Repeat("x", 64<<10)
			for range 100 { // 6.4 MB, over the 4 MiB cap
				fmt.Fprint(w, chunk)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := &Feed{URL: serve(t, h).URL}
			if _, err := f.Posts(context.Background(), 50); !errcode.Is(err, errcode.FeedFetchError) {
				t.Fatalf("%v", err)
			}
		})
	}
}

// A slow feed is cut off by the client's timeout; the caller sees FEED_FETCH_ERROR, not a hang.
func TestSlowFeed(t *testing.T) {
	release := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	f := &Feed{URL: srv.URL, Client: &http.Client{Timeout: 200 * time.Millisecond}}
	if _, err := f.Posts(context.Background(), 50); !errcode.Is(err, errcode.FeedFetchError) {
		t.Fatalf("%v", err)
	}
}

// Concurrent callers with nothing cached share one fetch.
func TestOneFetchAtATime(t *testing.T) {
	var fetches atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		time.Sleep(50 * time.Millisecond)
		fmt.Fprint(w, rssFeed)
	})
	f := &Feed{URL: srv.URL}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, err := f.Posts(context.Background(), 50); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches for 20 concurrent callers", n)
	}
}

// A 304 keeps the cached posts and counts as a good fetch.
func TestConditionalFetch(t *testing.T) {
	var conditional atomic.Int32
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			conditional.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		fmt.Fprint(w, rssFeed)
	})
	now := time.Now()
	f := &Feed{URL: srv.URL, Now: func() time.Time { return now }}
	first, err := f.Posts(context.Background(), 50)
	if err != nil {
		t.Fatal(err)
	}
	now = now.Add(20 * time.Minute)
	f.Posts(context.Background(), 50)
	waitFor(t, func() bool { return conditional.Load() == 1 })
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.inflight == nil })
	if f.confirmed != now {
		t.Errorf("a 304 did not confirm the cache")
	}
	again, _ := f.Posts(context.Background(), 50)
	if fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("posts changed after a 304")
	}
}

func FuzzConvert(f *testing.F) {
	for _, s := range []string{rssFeed, atomFeed, jsonFeed} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		srv := httptest.NewServer(body(s))
		defer srv.Close()
		feed := &Feed{URL: srv.URL}
		posts, _ := feed.Posts(context.Background(), 50)
		for _, p := range posts {
			if p.Title == "" || !strings.HasPrefix(p.URL, "http") || len(posts) > MaxPosts {
				t.Fatalf("bad post %+v", p)
			}
		}
	})
}
