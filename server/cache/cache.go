// Package cache is the server's one in-memory cache: least recently used entries go first, and the bound is in
// bytes, not entries, so that no request pattern can grow the heap past it (a page of the board is 1 KB or 700 KB
// depending on its limit; an Open Graph image 20 KB or 200 KB).
package cache

import (
	"container/list"
	"sync"
)

// LRU maps keys to values, holding at most MaxBytes of them as Size counts them. It is safe for concurrent use.
type LRU[K comparable, V any] struct {
	maxBytes int64
	size     func(K, V) int64

	mu    sync.Mutex
	order *list.List // of *item[K, V], most recent first
	index map[K]*list.Element
	bytes int64
}

type item[K comparable, V any] struct {
	key   K
	value V
	size  int64
}

// New returns an empty cache of at most maxBytes, where size tells the bytes an entry holds (its key included,
// when keys can be large).
func New[K comparable, V any](maxBytes int64, size func(K, V) int64) *LRU[K, V] {
	return &LRU[K, V]{maxBytes: maxBytes, size: size, order: list.New(), index: map[K]*list.Element{}}
}

// Get returns the value of key and marks it as recently used.
func (c *LRU[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.index[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*item[K, V]).value, true
}

// Put sets key to value and drops the least recently used entries until the cache fits its bound. A value larger
// than the whole bound is not kept.
func (c *LRU[K, V]) Put(key K, value V) {
	n := c.size(key, value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[key]; ok {
		it := e.Value.(*item[K, V])
		c.bytes += n - it.size
		it.value, it.size = value, n
		c.order.MoveToFront(e)
	} else {
		if n > c.maxBytes {
			return
		}
		c.index[key] = c.order.PushFront(&item[K, V]{key, value, n})
		c.bytes += n
	}
	for c.bytes > c.maxBytes {
		c.drop(c.order.Back())
	}
}

// Update replaces the value of key, if it is still cached, with what f returns; f runs under the cache's lock.
func (c *LRU[K, V]) Update(key K, f func(V) V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.index[key]; ok {
		it := e.Value.(*item[K, V])
		it.value = f(it.value)
		n := c.size(key, it.value)
		c.bytes += n - it.size
		it.size = n
	}
}

// Clear empties the cache.
func (c *LRU[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	clear(c.index)
	c.bytes = 0
}

// Len is the number of entries, and Bytes their size.
func (c *LRU[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.index)
}

// Bytes is the size of the entries held, as Size counts it.
func (c *LRU[K, V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

func (c *LRU[K, V]) drop(e *list.Element) {
	it := c.order.Remove(e).(*item[K, V])
	delete(c.index, it.key)
	c.bytes -= it.size
}
