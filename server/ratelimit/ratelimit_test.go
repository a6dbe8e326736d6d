package ratelimit

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(10, func() time.Time { return now })
	for i := range 10 {
		d := l.Allow("a")
		if !d.Allowed || d.Remaining != 9-i || d.Limit != 10 {
			t.Fatalf("request %d: %+v", i+1, d)
		}
	}
	d := l.Allow("a")
	if d.Allowed || d.RetryAfter != 6*time.Second || d.Remaining != 0 || d.Reset != time.Minute {
		t.Fatalf("11th request: %+v, want refused with 6s to wait", d)
	}
	if !l.Allow("b").Allowed {
		t.Fatal("another key shares the bucket")
	}
	now = now.Add(6 * time.Second)
	if !l.Allow("a").Allowed {
		t.Fatal("not allowed again after Retry-After")
	}
	if l.Allow("a").Allowed {
		t.Fatal("refusing once must not have spent a token for later")
	}
}
