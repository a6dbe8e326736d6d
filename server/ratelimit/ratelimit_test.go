package ratelimit

import (
	"net/netip"
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

func TestCheckTakesNothing(t *testing.T) {
	now := time.Unix(1000, 0)
	l := New(2, func() time.Time { return now })
	for range 5 {
		if d := l.Check("a"); !d.Allowed || d.Remaining != 2 {
			t.Fatalf("Check of a fresh key: %+v", d)
		}
	}
	l.Allow("a")
	l.Allow("a")
	if d := l.Check("a"); d.Allowed || d.RetryAfter != 30*time.Second {
		t.Fatalf("Check of a spent key: %+v, want refused for 30s", d)
	}
	now = now.Add(30 * time.Second)
	if !l.Check("a").Allowed || !l.Check("a").Allowed {
		t.Fatal("Check refused a key with a token, or took it")
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.7":               "192.0.2.7",
		"::ffff:192.0.2.7":        "192.0.2.7",
		"2001:db8:1:2:3:4:5:6":    "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff::9999": "2001:db8:1:2::/64",
	} {
		if got := Key(netip.MustParseAddr(in)); got != want {
			t.Errorf("Key(%s) = %s, want %s", in, got, want)
		}
	}
}
