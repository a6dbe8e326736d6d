package api

import (
	"encoding/json"
	"testing"
	"time"

	"twofold/server/board"
)

// The listing's challenge is encoded by hand; it must be what encoding/json would write.
func TestAppendChallengeMatchesEncodingJSON(t *testing.T) {
	for _, c := range []board.ChallengeSummary{
		{ID: "c1.abc.def", Question: `Reverse the word "harbor".`, ExpiresAt: time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC), Hint: `Answer with "olleh" <for> & "hello".`},
		{ID: "x", Question: "tab\tand\nnewline\\", ExpiresAt: time.Unix(0, 0).UTC()},
		{ID: "\u2028\u2029\r\x01", Question: "ünïcödé ✓", ExpiresAt: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), Hint: "h"},
	} {
		want, _ := json.Marshal(c)
		if got := appendChallenge(nil, c); string(got) != string(want) {
			t.Errorf("appendChallenge:\n got %s\nwant %s", got, want)
		}
	}
}
