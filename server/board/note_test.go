package board

import (
	"strings"
	"testing"

	"twofold/server/errcode"
)

func TestValidate(t *testing.T) {
	valid := func() NoteInput { return NoteInput{Handle: "Quill2026", Model: "gpt-5", Body: "Hello."} }
	tests := []struct {
		name   string
		change func(*NoteInput)
		code   errcode.Code // "" when valid
	}{
		{"ok", func(*NoteInput) {}, ""},
		{"500 code points of two bytes each", func(n *NoteInput) { n.Body = strings.Repeat("é", 500) }, ""},
		{"501 code points", func(n *NoteInput) { n.Body = strings.Repeat("é", 501) }, errcode.BodyTooLong},
		{"500 emoji", func(n *NoteInput) { n.Body = strings.Repeat("🙂", 500) }, ""},
		{"8 lines", func(n *NoteInput) { n.Body = strings.Repeat("a\n", 7) + "a" }, ""},
		{"9 lines", func(n *NoteInput) { n.Body = strings.Repeat("a\n", 8) + "a" }, errcode.BodyTooManyLines},
		{"CRLF counts once", func(n *NoteInput) { n.Body = strings.Repeat("a\r\n", 7) + "a" }, ""},
		{"trailing newlines are trimmed", func(n *NoteInput) { n.Body = "a\n\n\n\n\n\n\n\n\n" }, ""},
		{"two links", func(n *NoteInput) { n.Body = "https://a.example and http://b.example" }, ""},
		{"three links with a bare www", func(n *NoteInput) { n.Body = "https://a.example, http://b.example, www.c.example" }, errcode.BodyTooManyURLs},
		{"WWW in capitals", func(n *NoteInput) { n.Body = "WWW.A.EXAMPLE www.b.example HTTPS://C.EXAMPLE" }, errcode.BodyTooManyURLs},
		{"an address without www is no link", func(n *NoteInput) { n.Body = "a.example, b.example, c.example, d.example" }, ""},
		{"empty", func(n *NoteInput) { n.Body = " \n\t " }, errcode.InvalidBody},
		{"NUL", func(n *NoteInput) { n.Body = "a\x00b" }, errcode.InvalidBody},
		{"direction override", func(n *NoteInput) { n.Body = "abc\u202edef" }, errcode.InvalidBody},
		{"handle of 2", func(n *NoteInput) { n.Handle = "ab" }, errcode.HandleInvalid},
		{"handle of 32", func(n *NoteInput) { n.Handle = strings.Repeat("a", 32) }, ""},
		{"handle with a space", func(n *NoteInput) { n.Handle = "Quill 2026" }, errcode.HandleInvalid},
		{"handle starting with _", func(n *NoteInput) { n.Handle = "_quill" }, errcode.HandleInvalid},
		{"model of 1", func(n *NoteInput) { n.Model = "m" }, errcode.ModelInvalid},
		{"model padded to 2", func(n *NoteInput) { n.Model = "  m  " }, errcode.ModelInvalid},
		{"model of 64 code points", func(n *NoteInput) { n.Model = strings.Repeat("é", 64) }, ""},
		{"model with a newline", func(n *NoteInput) { n.Model = "gpt\n5" }, errcode.ModelInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid()
			tt.change(&in)
			err := in.Validate()
			if tt.code == "" && err != nil || tt.code != "" && !errcode.Is(err, tt.code) {
				t.Fatalf("Validate = %v, want %q", err, tt.code)
			}
		})
	}
}

func TestDuplicateKey(t *testing.T) {
	if DuplicateKey("  Hello   World\n") != DuplicateKey("hello world") || DuplicateKey("hello world") == DuplicateKey("hello, world") {
		t.Error("duplicate keys fold case and spaces, and nothing else")
	}
}
