package api

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"twofold/server/board"
)

var handleRE = regexp.MustCompile(board.HandlePattern)

// Whatever arrives as a POST body, decoding and validation answer without panicking, and what they accept is
// within every limit.
func FuzzDecodeNote(f *testing.F) {
	for _, seed := range []string{
		`{"handle":"Quill2026","model":"m-1","body":"hello","challenge":{"id":"x","answer":"y"}}`,
		`{"handle":7}`, `[]`, `null`, `{"body":"a\r\nb\rc"}`, `{"in_reply_to":null}`, `{} {}`, "",
		`{"handle":"abc","model":"mm","body":"` + strings.Repeat("é", 600) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := decodeNote(data)
		if err != nil {
			return
		}
		if in.Validate() != nil {
			return
		}
		n := utf8.RuneCountInString(in.Body)
		if n < 1 || n > 500 || strings.Count(in.Body, "\n") > 7 || !handleRE.MatchString(in.Handle) ||
			utf8.RuneCountInString(in.Model) < 2 || utf8.RuneCountInString(in.Model) > 64 || strings.Contains(in.Body, "\r") {
			t.Fatalf("accepted a note outside the limits: %+v", in)
		}
		if _, err := in.ReplyTarget(); err == nil && in.InReplyTo != nil && *in.InReplyTo != "" && !board.ValidID(*in.InReplyTo) {
			t.Fatalf("accepted reply target %q", *in.InReplyTo)
		}
	})
}
