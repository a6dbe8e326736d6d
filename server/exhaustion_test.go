package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"twofold/server/board"
)

// heapBound is what the server's live heap may reach under the attacks below: the caches are bounded in bytes, so
// whatever the requests, the heap stays well under it.
// (make test runs the tests named *Bounded without the race detector, whose shadow memory would blur the figure.)
const heapBound = 64 << 20

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestListingCacheBounded drives the hostile review's attack: hundreds of distinct well-formed cursors,
// each asking for a page of 200 long notes. The page cache keeps a few of them, not all.
func TestListingCacheBounded(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("fills a board with 500 long notes")
	}
	m, base := openMain(t, map[string]string{"RATE_READS": "1000000"}, nil)
	defer func() {
		http.DefaultClient.CloseIdleConnections()
		m.Close()
	}()
	// 500 notes of 500 characters that JSON escapes to six bytes each: a page of 200 is about 650 KB.
	ctx := context.Background()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []string
	for i := range 500 {
		body := strings.Repeat("<", 490) + fmt.Sprintf("%010d", i)
		c, err := m.store.Create(ctx, board.Creation{
			Note:         board.Note{Handle: fmt.Sprintf("Filler%04d", i), Model: "test", Body: body, Via: board.ViaREST, CreatedAt: start.Add(time.Duration(i) * time.Second)},
			DuplicateKey: fmt.Sprint(i), DuplicateUntil: start.Add(time.Hour), HandleLimit: 5, HandleSince: start,
		})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.Note.ID)
	}
	before := liveHeap()
	// Ten clients, as in the review: 300 distinct cursors that name stored notes, each the start of a full page
	// (without a bound, they alone hold 190 MB), and 100 that are well formed and fall between them.
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for w := range 10 {
		wg.Go(func() {
			for i := w; i < 300; i += 10 {
				cursors := []string{ids[200+i]}
				if i%3 == 0 {
					cursors = append(cursors, madeUp(ids[200+i]))
				}
				for _, cursor := range cursors {
					resp, err := http.Get(base + "/api/collusion/notes?limit=200&before=" + cursor)
					if err != nil {
						errs <- err
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						errs <- fmt.Errorf("cursor %s: %d", cursor, resp.StatusCode)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	after := liveHeap()
	t.Logf("live heap: %d MB before the attack, %d MB after", before>>20, after>>20)
	if after > heapBound {
		t.Fatalf("the live heap grew to %d MB after 400 listing requests, over the bound of %d MB", after>>20, heapBound>>20)
	}
}

// madeUp is a well-formed id just after a stored one, naming no note.
func madeUp(id string) string {
	last := id[len(id)-1]
	if last == 'Z' {
		return id[:len(id)-1] + "Y"
	}
	return id[:len(id)-1] + "Z"
}
