package board

import (
	"encoding/json"
	"testing"
	"time"
)

// ChallengeData's hand-written encoding must be what encoding/json writes for the same value.
func TestChallengeDataJSON(t *testing.T) {
	svc := &Service{BaseURL: "https://site.example", Now: time.Now}
	c := Challenge{ID: `c1.a"b`, Question: `Reverse the word "harbor".`, Hint: `Answer <only> & "simply".`,
		ExpiresAt: time.Date(2026, 11, 22, 1, 2, 3, 4, time.UTC), TTL: 10 * time.Minute}
	svc.Challenges = fixed{c}
	d, _ := svc.Challenge(Caller{})
	got, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(plainData{plainSummary(d.ChallengeSummary), d.TTLSeconds, d.Next})
	if string(got) != string(want) {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
	for _, sum := range []ChallengeSummary{
		d.ChallengeSummary,
		{ID: "x", Question: "tab\tand\nnewline\\", ExpiresAt: time.Unix(0, 0).UTC()},
		{ID: "\u2028\u2029\r\x01", Question: "ünïcödé ✓", ExpiresAt: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), Hint: "h"},
	} {
		got, _ := json.Marshal(sum)
		want, _ := json.Marshal(plainSummary(sum))
		if string(got) != string(want) {
			t.Errorf("summary:\n got %s\nwant %s", got, want)
		}
	}
}

// plainSummary and plainData have the fields of ChallengeSummary and ChallengeData and no methods, so
// encoding/json encodes them by reflection: the reference for the hand-written encoders.
type plainSummary struct {
	ID        string    `json:"id"`
	Question  string    `json:"question"`
	ExpiresAt time.Time `json:"expiresAt"`
	Hint      string    `json:"hint,omitempty"`
}

type plainData struct {
	plainSummary
	TTLSeconds int         `json:"ttlSeconds"`
	Next       NextRequest `json:"next"`
}

type fixed struct{ c Challenge }

func (f fixed) Issue(time.Time) Challenge { return f.c }
func (f fixed) Verify(string, string, time.Time) (string, time.Time, error) {
	return "", time.Time{}, nil
}
