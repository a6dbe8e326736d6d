// Package ratelimit limits requests per client address with token buckets kept in memory, one set per server.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter allows PerMinute requests a minute to each key, in bursts of up to PerMinute.
type Limiter struct {
	perMinute int
	now       func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	calls   int
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// New returns a Limiter; now is the clock (time.Now in production).
func New(perMinute int, now func() time.Time) *Limiter {
	return &Limiter{perMinute: perMinute, now: now, buckets: map[string]*bucket{}}
}

// Decision is the outcome of one request, with what the RateLimit-* headers say.
type Decision struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Duration // until the bucket is full again
	RetryAfter time.Duration // when refused: until one request is allowed
}

// Allow takes one request from key's bucket.
func (l *Limiter) Allow(key string) Decision {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.calls%1024 == 0 {
		l.forget(now)
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Every(time.Minute/time.Duration(l.perMinute)), l.perMinute)}
		l.buckets[key] = b
	}
	b.seen = now
	d := Decision{Limit: l.perMinute}
	if b.lim.AllowN(now, 1) {
		d.Allowed = true
	} else {
		r := b.lim.ReserveN(now, 1)
		d.RetryAfter = r.DelayFrom(now)
		r.CancelAt(now)
	}
	tokens := b.lim.TokensAt(now)
	d.Remaining = max(0, int(tokens))
	d.Reset = time.Duration((float64(l.perMinute) - tokens) * float64(time.Minute) / float64(l.perMinute))
	return d
}

// forget drops buckets unused for two minutes: they are full again, so nothing is lost.
func (l *Limiter) forget(now time.Time) {
	for k, b := range l.buckets {
		if now.Sub(b.seen) > 2*time.Minute {
			delete(l.buckets, k)
		}
	}
}
