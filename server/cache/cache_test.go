package cache

import (
	"fmt"
	"sync"
	"testing"
)

func bytesOf(k string, v []byte) int64 { return int64(len(k) + len(v)) }

func TestBoundInBytes(t *testing.T) {
	c := New[string, []byte](100, bytesOf)
	for i := range 50 {
		c.Put(fmt.Sprintf("k%02d", i), make([]byte, 17)) // 20 bytes each
		if c.Bytes() > 100 {
			t.Fatalf("after %d puts the cache holds %d bytes, over its bound of 100", i+1, c.Bytes())
		}
	}
	if c.Len() != 5 {
		t.Fatalf("Len = %d, want 5 entries of 20 bytes", c.Len())
	}
	if _, ok := c.Get("k49"); !ok {
		t.Fatal("the newest entry was dropped")
	}
	if _, ok := c.Get("k00"); ok {
		t.Fatal("the oldest entry is still there")
	}
}

func TestLeastRecentlyUsedGoesFirst(t *testing.T) {
	c := New[string, []byte](60, bytesOf)
	c.Put("a", make([]byte, 19))
	c.Put("b", make([]byte, 19))
	c.Put("c", make([]byte, 19))
	c.Get("a") // a is now the most recent
	c.Put("d", make([]byte, 19))
	if _, ok := c.Get("b"); ok {
		t.Fatal("b was the least recently used and should have gone")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := c.Get(k); !ok {
			t.Fatalf("%s was dropped", k)
		}
	}
}

func TestTooLargeIsNotKept(t *testing.T) {
	c := New[string, []byte](10, bytesOf)
	c.Put("small", []byte("x"))
	c.Put("huge", make([]byte, 100))
	if _, ok := c.Get("huge"); ok {
		t.Fatal("a value larger than the bound was kept")
	}
	if _, ok := c.Get("small"); !ok {
		t.Fatal("a value larger than the bound pushed out what fits")
	}
}

func TestReplaceAndUpdateKeepTheCount(t *testing.T) {
	c := New[string, []byte](100, bytesOf)
	c.Put("a", make([]byte, 9))
	c.Put("a", make([]byte, 29))
	if c.Bytes() != 30 || c.Len() != 1 {
		t.Fatalf("after replacing: %d bytes in %d entries, want 30 in 1", c.Bytes(), c.Len())
	}
	c.Update("a", func([]byte) []byte { return make([]byte, 4) })
	if c.Bytes() != 5 {
		t.Fatalf("after Update: %d bytes, want 5", c.Bytes())
	}
	c.Update("missing", func([]byte) []byte { t.Fatal("Update ran for a missing key"); return nil })
	c.Clear()
	if c.Bytes() != 0 || c.Len() != 0 {
		t.Fatal("Clear left entries")
	}
}

func TestConcurrentUse(t *testing.T) {
	c := New[int, []byte](1000, func(_ int, v []byte) int64 { return int64(len(v)) })
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				c.Put(g*1000+i, make([]byte, 10))
				c.Get(i)
			}
		})
	}
	wg.Wait()
	if c.Bytes() > 1000 {
		t.Fatalf("%d bytes, over the bound", c.Bytes())
	}
}
