package jsontext

import (
	"encoding/json"
	"testing"
)

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", `a"b\c`, "tab\tnl\nret\r", "<&>", "\u2028\u2029", "\x00\x1f", "ünï ✓", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			// encoding/json replaces invalid UTF-8 with U+FFFD; valid text must match exactly.
			var back string
			if err := json.Unmarshal(got, &back); err != nil || (back != s && validUTF8(s)) {
				t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
			}
		}
	})
}

func validUTF8(s string) bool { return json.Valid([]byte(`"`+s+`"`)) && string([]rune(s)) == s }

func FuzzAppendBytes(f *testing.F) {
	for _, s := range []string{"", "\u2028x\u2029", "\xe2\x80", "\xe2\x80\xa8", "€ and \xe2", `{"a":"<b>"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if got, want := AppendString(nil, s), AppendString(nil, string(s)); string(got) != string(want) {
			t.Fatalf("bytes and string differ for %q: %s vs %s", s, got, want)
		}
	})
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `a"b\c`, "tab\tnl\nret\r", "<&>", "\u2028\u2029", "x\u2028", "€ \xe2\x82\xac", "\x00\x1f\x7f", "ünï ✓ 日本"} {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("prefix"), s); string(got) != "prefix"+string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got[6:], want)
		}
	}
}
