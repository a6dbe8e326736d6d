// Package writing reads the owner's external blog feed (RSS 2.0, Atom or JSON Feed, through gofeed) and keeps the
// newest posts in memory: fresh for 15 minutes, then served while one background fetch refreshes them, and served
// stale for up to 24 hours while the feed fails. Only when nothing usable is cached does a caller see
// FEED_FETCH_ERROR.
package writing

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"twofold/server/errcode"

	"github.com/mmcdole/gofeed"
)

// Defaults of a Feed.
const (
	MaxPosts        = 50
	DefaultFresh    = 15 * time.Minute
	DefaultStale    = 24 * time.Hour
	DefaultRetry    = time.Minute // after a failed fetch, the next one waits this long
	DefaultTimeout  = 10 * time.Second
	DefaultMaxBytes = 4 << 20
)

// Post is one post of the feed, as GET /api/writing returns it.
type Post struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	ImageURL    string `json:"imageUrl,omitempty"`
	Description string `json:"description,omitempty"`
	PublishedAt string `json:"publishedAt,omitempty"`
}

// Snapshot is the feed as last fetched: its posts, newest first, and the same posts encoded as a JSON array.
type Snapshot struct {
	Posts     []Post
	JSON      []byte
	FetchedAt time.Time
}

// Feed is the cached feed at one address. Set the exported fields before the first call; zero values take the
// defaults above, and a nil Client is a plain client with DefaultTimeout.
type Feed struct {
	URL       string
	Client    *http.Client
	Now       func() time.Time
	Log       *slog.Logger
	UserAgent string
	Fresh     time.Duration
	Stale     time.Duration
	Retry     time.Duration
	MaxBytes  int64

	mu           sync.Mutex
	snap         *Snapshot     // nil until a fetch succeeds
	confirmed    time.Time     // when the feed last answered with these posts (200 or 304)
	failedAt     time.Time     // when the last fetch failed
	lastErr      error         // why
	inflight     chan struct{} // closed when the running fetch ends; nil when none runs
	etag, lastMo string

	hits, misses atomic.Uint64
}

// Stats are the calls answered from the cache (fresh or stale) and those that waited for a fetch.
func (f *Feed) Stats() (hits, misses uint64) { return f.hits.Load(), f.misses.Load() }

// Snapshot returns the posts: at once when the cache is fresh, or stale but younger than Stale (a background fetch
// then refreshes it); otherwise it waits for a fetch. The error is FEED_FETCH_ERROR when nothing usable is cached
// and the feed cannot be read.
func (f *Feed) Snapshot(ctx context.Context) (*Snapshot, error) {
	now := f.now()
	f.mu.Lock()
	usable := f.snap != nil && now.Sub(f.confirmed) < f.stale()
	if f.snap != nil && now.Sub(f.confirmed) < f.fresh() {
		s := f.snap
		f.mu.Unlock()
		f.hits.Add(1)
		return s, nil
	}
	if f.inflight == nil && (f.failedAt.IsZero() || now.Sub(f.failedAt) >= f.retry()) {
		f.inflight = make(chan struct{})
		go f.refresh(f.inflight)
	}
	wait := f.inflight
	if usable {
		s := f.snap
		f.mu.Unlock()
		f.hits.Add(1)
		return s, nil
	}
	f.mu.Unlock()
	f.misses.Add(1)
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, errcode.New(errcode.FeedFetchError, "the blog's feed is still being fetched", "try again in a few seconds")
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.snap != nil && f.now().Sub(f.confirmed) < f.stale() {
		return f.snap, nil
	}
	return nil, f.fetchError()
}

// Posts is Snapshot's posts, at most limit of them.
func (f *Feed) Posts(ctx context.Context, limit int) ([]Post, error) {
	s, err := f.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return s.Posts[:min(limit, len(s.Posts))], nil
}

// fetchError is what a caller sees when nothing usable is cached; the cause is in the log, not in the answer.
func (f *Feed) fetchError() error {
	return errcode.New(errcode.FeedFetchError, "the blog's feed could not be fetched", "try again in a few minutes")
}

// refresh fetches the feed once, detached from any request, and records the outcome.
func (f *Feed) refresh(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTimeout)
	defer cancel()
	f.mu.Lock()
	etag, lastMo := f.etag, f.lastMo
	f.mu.Unlock()
	snap, etag, lastMo, err := f.fetch(ctx, etag, lastMo)
	f.mu.Lock()
	defer func() {
		f.inflight = nil
		f.mu.Unlock()
		close(done)
	}()
	now := f.now()
	if err != nil {
		f.failedAt, f.lastErr = now, err
		f.logger().Warn("writing feed fetch failed", "url", f.URL, "err", err, "cached", f.snap != nil)
		return
	}
	f.failedAt, f.lastErr, f.confirmed = time.Time{}, nil, now
	f.etag, f.lastMo = etag, lastMo
	if snap != nil { // nil: 304, the cached posts stand
		snap.FetchedAt = now
		f.snap = snap
	}
}

// fetch reads and parses the feed. A 304 (the cache still holds) returns a nil snapshot and no error.
func (f *Feed) fetch(ctx context.Context, etag, lastMo string) (*Snapshot, string, string, error) {
	if f.URL == "" {
		return nil, "", "", errors.New("no feed address is configured (WRITING_FEED_URL or site.yaml's writingFeedURL)")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.URL, nil)
	if err != nil {
		return nil, "", "", fmt.Errorf("feed address: %w", err)
	}
	req.Header.Set("Accept", "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.8, */*;q=0.5")
	if f.UserAgent != "" {
		req.Header.Set("User-Agent", f.UserAgent)
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if lastMo != "" {
		req.Header.Set("If-Modified-Since", lastMo)
	}
	resp, err := f.client().Do(req)
	if err != nil {
		return nil, "", "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotModified && (etag != "" || lastMo != "") {
		return nil, etag, lastMo, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", "", fmt.Errorf("feed answered %s", resp.Status)
	}
	max := f.maxBytes()
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, "", "", fmt.Errorf("reading the feed: %w", err)
	}
	if int64(len(body)) > max {
		return nil, "", "", fmt.Errorf("the feed is larger than %d bytes", max)
	}
	feed, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		return nil, "", "", fmt.Errorf("parsing the feed: %w", err)
	}
	posts := Convert(feed, f.URL)
	data, err := json.Marshal(posts)
	if err != nil {
		return nil, "", "", err
	}
	return &Snapshot{Posts: posts, JSON: data}, resp.Header.Get("ETag"), resp.Header.Get("Last-Modified"), nil
}

func (f *Feed) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Feed) client() *http.Client {
	if f.Client != nil {
		return f.Client
	}
	return defaultClient
}

var defaultClient = &http.Client{Timeout: DefaultTimeout}

func (f *Feed) logger() *slog.Logger {
	if f.Log != nil {
		return f.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (f *Feed) fresh() time.Duration { return orDefault(f.Fresh, DefaultFresh) }
func (f *Feed) stale() time.Duration { return orDefault(f.Stale, DefaultStale) }
func (f *Feed) retry() time.Duration { return orDefault(f.Retry, DefaultRetry) }
func (f *Feed) maxBytes() int64 {
	if f.MaxBytes > 0 {
		return f.MaxBytes
	}
	return DefaultMaxBytes
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
