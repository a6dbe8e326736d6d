// Package ratelimit limits requests per client address with token buckets kept in memory, one set per server.
package ratelimit

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"twofold/server/errcode"

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

// Key is the key of a client address: the address itself for IPv4, its /64 for IPv6, since one IPv6 host
// commonly holds a whole /64 and could otherwise take a fresh bucket (and memory) per request. Every limit of the
// server keys addresses this way.
func Key(ip netip.Addr) string {
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.Unmap().String()
}

// Allow takes one request from key's bucket.
func (l *Limiter) Allow(key string) Decision { return l.decide(key, true) }

// Check says whether key's bucket would allow a request, taking nothing from it: for limits that count only
// failures, such as wrong owner tokens.
func (l *Limiter) Check(key string) Decision { return l.decide(key, false) }

func (l *Limiter) decide(key string, take bool) Decision {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls++
	if l.calls%1024 == 0 {
		l.forget(now)
	}
	b := l.buckets[key]
	if b == nil {
		if !take {
			return Decision{Allowed: true, Limit: l.perMinute, Remaining: l.perMinute}
		}
		b = &bucket{lim: rate.NewLimiter(rate.Every(time.Minute/time.Duration(l.perMinute)), l.perMinute)}
		l.buckets[key] = b
	}
	b.seen = now
	d := Decision{Limit: l.perMinute}
	if !take && b.lim.TokensAt(now) >= 1 {
		d.Allowed = true
	} else if take && b.lim.AllowN(now, 1) {
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

// Header is the decision as the RateLimit-* headers say it.
func (d Decision) Header() *errcode.RateLimit {
	return &errcode.RateLimit{Limit: d.Limit, Remaining: d.Remaining, Reset: d.Reset}
}

// Refusal is RATE_LIMITED for a refused decision, with Retry-After and the RateLimit-* headers.
func (d Decision) Refusal(docs string) *errcode.Error {
	return &errcode.Error{Code: errcode.RateLimited, RetryAfter: d.RetryAfter, RateLimit: d.Header(), Docs: docs,
		Message: "too many requests from this address",
		Hint:    fmt.Sprintf("wait %d seconds before trying again", errcode.CeilSeconds(d.RetryAfter))}
}
