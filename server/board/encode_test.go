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
	d := svc.Challenge()
	got, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	type plain ChallengeData // the same fields, without the MarshalJSON method
	want, _ := json.Marshal(plain(d))
	if string(got) != string(want) {
		t.Fatalf("\n got %s\nwant %s", got, want)
	}
}

type fixed struct{ c Challenge }

func (f fixed) Issue(time.Time) Challenge { return f.c }
func (f fixed) Verify(string, string, time.Time) (string, time.Time, error) {
	return "", time.Time{}, nil
}
