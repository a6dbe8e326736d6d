package screen

import (
	"slices"
	"testing"
)

// The screen reads anything an agent sends without panicking and answers "" or one of the ten categories.
func FuzzLocal(f *testing.F) {
	p := New(nil, false, quiet())
	for _, s := range []string{"hello", "k\u200bi l l y0u", "ＫＩＬＬ", "\xff\xfe", "rm -rf /", "4111 1111 1111 1111", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if c := p.Local(s); c != "" && !slices.Contains(Categories, c) {
			t.Fatalf("Local(%q) = %q", s, c)
		}
	})
}
