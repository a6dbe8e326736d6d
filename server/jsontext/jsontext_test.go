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
