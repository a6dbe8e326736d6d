package screen

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"twofold/server/errcode"
)

// fakeLLM answers like an OpenAI-compatible endpoint with a fixed body, or after a delay.
func fakeLLM(t *testing.T, status int, body string, delay time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("request: %v, auth %q", err, r.Header.Get("Authorization"))
		}
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			msgs, _ := req["messages"].([]any)
			if len(msgs) != 2 || !strings.Contains(msgs[1].(map[string]any)["content"].(string), "<<<NOTE") {
				t.Errorf("chat request does not fence the note: %v", req["messages"])
			}
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func chatAnswer(content string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"content": content}}}})
	return string(b)
}

func TestClassifier(t *testing.T) {
	tests := []struct {
		name, path, body string
		status           int
		delay            time.Duration
		want             string
		wantErr          bool
	}{
		{"chat: none", "/v1/chat/completions", chatAnswer(`{"category": "none"}`), 200, 0, "", false},
		{"chat: harassment", "/v1/chat/completions", chatAnswer("```json\n{\"category\": \"harassment\"}\n```"), 200, 0, Harassment, false},
		{"chat: unknown category", "/v1/chat/completions", chatAnswer(`{"category": "rude"}`), 200, 0, "", true},
		{"chat: prose instead of JSON", "/v1/chat/completions", chatAnswer("This note seems fine to me."), 200, 0, "", true},
		{"garbage body", "/v1/chat/completions", "<html>oops</html>", 200, 0, "", true},
		{"server error", "/v1/chat/completions", `{"error":"boom"}`, 500, 0, "", true},
		{"timeout", "/v1/chat/completions", chatAnswer(`{"category":"none"}`), 200, 2 * time.Second, "", true},
		{"moderation: clean", "/v1/moderations", `{"results":[{"flagged":false,"categories":{}}]}`, 200, 0, "", false},
		{"moderation: minors first", "/v1/moderations", `{"results":[{"flagged":true,"categories":{"sexual":true,"sexual/minors":true}}]}`, 200, 0, SexualMinors, false},
		{"moderation: self-harm", "/v1/moderations", `{"results":[{"flagged":true,"categories":{"self-harm/intent":true}}]}`, 200, 0, SelfHarm, false},
		{"moderation: empty results", "/v1/moderations", `{"results":[]}`, 200, 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeLLM(t, tt.status, tt.body, tt.delay)
			c := &Classifier{URL: srv.URL + tt.path, Model: "m", Key: "k", Timeout: 200 * time.Millisecond}
			got, err := c.Classify(context.Background(), "a perfectly ordinary note")
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("Classify = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestFailOpenAndClosed(t *testing.T) {
	srv := fakeLLM(t, 500, "down", 0)
	c := &Classifier{URL: srv.URL + "/v1/chat/completions", Model: "m", Key: "k"}

	open := New(c, false, quiet())
	if got, err := open.Check(context.Background(), "hello agents"); got != "" || err != nil {
		t.Errorf("fail open: %q, %v; want the local verdict (publish)", got, err)
	}
	if got, _ := open.Check(context.Background(), "you are worthless"); got != Harassment {
		t.Errorf("fail open still refuses what the local screen refuses; got %q", got)
	}
	closed := New(c, true, quiet())
	if _, err := closed.Check(context.Background(), "hello agents"); !errcode.Is(err, errcode.ScreenUnavailable) {
		t.Errorf("fail closed: %v, want SCREEN_UNAVAILABLE", err)
	}

	// A verdict of the classifier refuses what the local screen lets through.
	refusing := fakeLLM(t, 200, chatAnswer(`{"category":"spam"}`), 0)
	p := New(&Classifier{URL: refusing.URL + "/v1/chat/completions", Model: "m", Key: "k"}, false, quiet())
	if got, _ := p.Check(context.Background(), "a subtle advert"); got != Spam {
		t.Errorf("classifier verdict ignored: %q", got)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"K\u200bI\u200cL\u200dL", "kil"}, // zero-width characters
		{"kіll", "kil"},                   // Cyrillic і
		{"k1ll", "kil"},                   // leetspeak
		{"kiiiiill", "kil"},               // repeated letters
		{"Ｋｉｌｌ", "kil"},                   // full-width forms (NFKC)
		{"kíll", "kil"},                   // accents
		{"k i l l", "kil"},                // spaced letters (joined reading)
		{"2025 release", "2025 release"},  // numbers stay numbers
	}
	for _, tt := range tests {
		v := normalize(tt.in)
		readings := []string{strings.Join(v.words, " "), strings.Join(v.leet, " "), strings.Join(v.joined, " ")}
		found := false
		for _, r := range readings {
			if strings.Contains(r, squeeze(tt.want)) || r == tt.want {
				found = true
			}
		}
		if !found {
			t.Errorf("normalize(%q) readings %q, want one containing %q", tt.in, readings, tt.want)
		}
	}
}
