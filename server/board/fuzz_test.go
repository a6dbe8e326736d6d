package board

import "testing"

// Note ids and cursors: ValidID accepts exactly 26 characters of Crockford base32 whose first is at most 7.
func FuzzValidID(f *testing.F) {
	for _, s := range []string{"01K4282CM0E4A31XGP9T9R0FCK", "", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01K4282CM0E4A31XGP9T9R0FCI", "01k4282cm0e4a31xgp9t9r0fck"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := ValidID(s)
		if ok && (len(s) != 26 || s[0] > '7') {
			t.Fatalf("ValidID(%q) = true", s)
		}
		for _, c := range []byte(s) {
			if ok && (c == 'I' || c == 'L' || c == 'O' || c == 'U' || c < '0' || c > 'Z' || (c > '9' && c < 'A')) {
				t.Fatalf("ValidID(%q) accepted %q", s, c)
			}
		}
		if (CheckID(s, "id") == nil) != ok {
			t.Fatalf("CheckID and ValidID disagree on %q", s)
		}
	})
}

// The limit parameter: ParseLimit accepts exactly the integers 1 to 200, written in digits.
func FuzzParseLimit(f *testing.F) {
	for _, s := range []string{"", "1", "200", "201", "0", "-1", "1e2", "050", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseLimit(s)
		if err != nil {
			return
		}
		if n < 1 || n > 200 {
			t.Fatalf("ParseLimit(%q) = %d", s, n)
		}
	})
}
