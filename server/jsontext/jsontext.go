// Package jsontext appends JSON text without reflection, byte for byte as encoding/json writes it, for the few
// answers hot enough to be assembled by hand.
package jsontext

// safe marks the bytes that stand for themselves inside a JSON string as encoding/json writes it (HTML-safe):
// everything but control characters, '"', '\\', '<', '>' and '&'. Bytes from 0x80 up are copied; the only
// multi-byte sequences encoding/json escapes, U+2028 and U+2029, start with 0xe2, which is left unsafe.
var safe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = true
	}
	for _, c := range []byte{'"', '\\', '<', '>', '&', 0xe2} {
		t[c] = false
	}
	return t
}()

// AppendString appends s as a JSON string, escaped as encoding/json escapes it (HTML-safe). Runs of bytes that
// need no escaping are copied at once.
func AppendString[S ~string | ~[]byte](b []byte, s S) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if safe[c] {
			continue
		}
		if c == 0xe2 && !(i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9)) {
			continue // another character starting with 0xe2
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case 0xe2: // U+2028, U+2029
			b = append(b, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf])
			i += 2
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
