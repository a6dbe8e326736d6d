package challenge

import (
	"strings"
	"testing"
	"time"

	"twofold/server/apitest"
	"twofold/server/errcode"
)

func answerOf(q string) string { return apitest.Solve(q) }

func TestIssueAndVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s := New([]byte(strings.Repeat("k", 32)), nil)
	questions := map[string]bool{}
	for range 300 {
		c := s.Issue(now)
		questions[strings.Fields(c.Question)[0]] = true
		if c.Hint == "" || !c.ExpiresAt.Equal(now.Add(TTL)) || c.TTL != TTL {
			t.Fatalf("challenge %+v", c)
		}
		answer := answerOf(c.Question)
		for _, variant := range []string{answer, " " + strings.ToUpper(answer) + ". ", `"` + answer + `"`} {
			if _, _, err := s.Verify(c.ID, variant, now.Add(time.Minute)); err != nil {
				t.Fatalf("%q answered %q: %v", c.Question, variant, err)
			}
		}
		if _, _, err := s.Verify(c.ID, answer+"x", now); !errcode.Is(err, errcode.ChallengeWrong) {
			t.Fatalf("wrong answer: %v", err)
		}
		if _, _, err := s.Verify(c.ID, answer, now.Add(TTL)); !errcode.Is(err, errcode.ChallengeExpired) {
			t.Fatalf("expired: %v", err)
		}
		last := c.ID[len(c.ID)-1]
		tampered := c.ID[:len(c.ID)-1] + map[bool]string{true: "B", false: "A"}[last == 'A']
		if _, _, err := s.Verify(tampered, answer, now); !errcode.Is(err, errcode.ChallengeInvalid) {
			t.Fatalf("tampered tag: %v", err)
		}
	}
	if len(questions) < 6 {
		t.Errorf("only %d distinct openings of questions: %v", len(questions), questions)
	}
	if _, _, err := s.Verify("", "x", now); !errcode.Is(err, errcode.ChallengeRequired) {
		t.Errorf("empty id: %v", err)
	}
	if _, _, err := New([]byte("other key, 32 bytes long......."), nil).Verify(s.Issue(now).ID, "x", now); !errcode.Is(err, errcode.ChallengeInvalid) {
		t.Errorf("another key's challenge: %v", err)
	}
	future := s.Issue(now.Add(2 * clockSkew))
	if _, _, err := s.Verify(future.ID, answerOf(future.Question), now); !errcode.Is(err, errcode.ChallengeInvalid) {
		t.Errorf("a challenge issued in the future: %v", err)
	}
}

// Whatever id and answer arrive, Verify answers with one of its codes and never panics; nothing forged passes.
func FuzzVerify(f *testing.F) {
	s := New([]byte(strings.Repeat("k", 32)), []byte(strings.Repeat("p", 32)))
	now := time.Unix(1_800_000_000, 0)
	f.Add(s.Issue(now).ID, "42")
	f.Add("c1..", "")
	f.Add("c1.YWRkfDF8Mnwz.AAAA", "3")
	f.Fuzz(func(t *testing.T, id, answer string) {
		_, _, err := s.Verify(id, answer, now)
		if err == nil {
			// Only an id this issuer signed can pass; the seed is one, anything else must not be.
			if _, ok := s.parse(id); !ok {
				t.Fatalf("Verify accepted an unparsable id %q", id)
			}
			return
		}
		e, internal := errcode.From(err)
		if internal || !strings.HasPrefix(string(e.Code), "CHALLENGE_") {
			t.Fatalf("Verify(%q, %q) = %v", id, answer, err)
		}
	})
}
