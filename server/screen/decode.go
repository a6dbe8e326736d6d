package screen

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Encoded readings: a note can carry its text encoded, and ask the reader to decode it. Each decoder finds runs
// of its encoding, decodes them, and keeps what reads as text; the screen then reads the decoded text as a note of
// its own. Base64 of random bytes, git hashes and UUIDs decode to binary and are dropped.
var (
	base64Run   = regexp.MustCompile(`[A-Za-z0-9+/_-]{12,}={0,2}`)
	hexRun      = regexp.MustCompile(`(?i)(?:(?:0x|\\x)?[0-9a-f]{2}[\s:,]?){8,}`)
	percentRun  = regexp.MustCompile(`(?:%[0-9A-Fa-f]{2}[^%\s]{0,3}){3,}`)
	base64Whole = regexp.MustCompile(`^[A-Za-z0-9+/_-]{16,}={0,2}$`)
	base32Run   = regexp.MustCompile(`\b[A-Z2-7]{16,}=*`)
	codesRun    = regexp.MustCompile(`\b(?:(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])[ ,;.:/|-]+){5,}(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])\b`)
	escapeRun   = regexp.MustCompile(`(?i)\\u[0-9a-f]{4}|\\x[0-9a-f]{2}|&#x?[0-9a-f]+;|&[a-z]+;`)
)

// smallNumbers is the longest run of numbers of two or three digits separated by spaces or punctuation, which a
// run of character codes is made of.
func smallNumbers(s string) int { return measureRuns(s).smallNumbers }

// morse reads the longest stretch of Morse code in s (letters of dots and dashes separated by spaces, words by
// " / "), or "" when s has fewer than eight letters of it in a row.
func morse(s string) string {
	if strings.Count(s, ".")+strings.Count(s, "-") < 16 {
		return ""
	}
	var best, cur strings.Builder
	letters, bestLetters := 0, 0
	flush := func() {
		if letters > bestLetters {
			best.Reset()
			best.WriteString(cur.String())
			bestLetters = letters
		}
		cur.Reset()
		letters = 0
	}
	for _, f := range strings.Fields(s) {
		switch l, ok := morseLetters[f]; {
		case ok:
			cur.WriteByte(l)
			letters++
		case f == "/" || f == "|":
			cur.WriteByte(' ')
		default:
			flush()
		}
	}
	flush()
	if bestLetters < 8 {
		return ""
	}
	return best.String()
}

var morseLetters = map[string]byte{".-": 'a', "-...": 'b', "-.-.": 'c', "-..": 'd', ".": 'e', "..-.": 'f', "--.": 'g',
	"....": 'h', "..": 'i', ".---": 'j', "-.-": 'k', ".-..": 'l', "--": 'm', "-.": 'n', "---": 'o', ".--.": 'p',
	"--.-": 'q', ".-.": 'r', "...": 's', "-": 't', "..-": 'u', "...-": 'v', ".--": 'w', "-..-": 'x', "-.--": 'y',
	"--..": 'z', "-----": '0', ".----": '1', "..---": '2', "...--": '3', "....-": '4', ".....": '5', "-....": '6',
	"--...": '7', "---..": '8', "----.": '9'}

// natoSpelled reads the longest stretch of words of the spelling alphabet in s ("kilo india lima lima", or joined
// by hyphens), "/" or "|" between words, or "" when s has fewer than six letters of it in a row.
func natoSpelled(s string) string {
	var best, cur []byte
	letters, bestLetters, plain := 0, 0, 0 // plain: the ordinary words in a row in the stretch
	flush := func() {
		if letters > bestLetters {
			best, bestLetters = append(best[:0], cur...), letters
		}
		cur, letters, plain = cur[:0], 0, 0
	}
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j]|0x20 >= 'a' && s[j]|0x20 <= 'z' {
			j++
		}
		if j == i {
			switch s[i] {
			case '/', '|':
				if letters > 0 {
					cur = append(cur, ' ')
				}
			case ' ', ',', '.', '\n', '\t', ';', '-', '_':
			default:
				flush()
			}
			i++
			continue
		}
		// The word in lower case (its bytes are ASCII letters), looked up without a copy; the longest spelling
		// word, "november", has eight letters.
		word := s[i:j]
		var buf [8]byte
		var l byte
		ok := false
		if len(word) >= 4 && len(word) <= len(buf) && natoShape[natoPrefix(word)]&(1<<len(word)) != 0 { // the spelling words' first two letters and length
			lower := buf[:len(word)]
			for k := range lower {
				lower[k] = word[k] | 0x20
			}
			l, ok = natoLetters[string(lower)]
		}
		switch {
		case ok:
			cur = append(cur, l)
			letters++
			plain = 0
		case letters > 0 && plain == 0: // one ordinary word among spelled ones: "kilo india lima lima all ..."
			cur = append(cur, ' ')
			for k := range len(word) {
				cur = append(cur, word[k]|0x20)
			}
			cur = append(cur, ' ')
			plain++
		default:
			flush()
		}
		i = j
	}
	flush()
	if bestLetters < 6 {
		return ""
	}
	return strings.Join(strings.Fields(string(best)), " ")
}

var natoLetters = map[string]byte{"alfa": 'a', "alpha": 'a', "bravo": 'b', "charlie": 'c', "delta": 'd', "echo": 'e',
	"foxtrot": 'f', "golf": 'g', "hotel": 'h', "india": 'i', "juliet": 'j', "juliett": 'j', "kilo": 'k', "lima": 'l',
	"mike": 'm', "november": 'n', "oscar": 'o', "papa": 'p', "quebec": 'q', "romeo": 'r', "sierra": 's', "tango": 't',
	"uniform": 'u', "victor": 'v', "whiskey": 'w', "whisky": 'w', "xray": 'x', "yankee": 'y', "zulu": 'z'}

func init() {
	for w := range natoLetters {
		if len(w) < 4 || len(w) > 8 {
			panic("natoSpelled looks up words of four letters to eight: " + w)
		}
		natoShape[natoPrefix(w)] |= 1 << len(w)
	}
}

// natoShape has, for the first two letters of each spelling word, a bit for its length: most words of four letters
// to eight are no spelling word by their first two letters and length, without a lookup.
var natoShape [26 * 26]uint16

// natoPrefix numbers the first two letters of w, ASCII letters of either case.
func natoPrefix(w string) int { return int((w[0]|0x20)-'a')*26 + int((w[1]|0x20)-'a') }

// upperRun is the longest run of capital letters and the digits 2 to 7 (base32's alphabet) in s.
func upperRun(s string) int { return measureRuns(s).upper }

// base64Runs is base64Run.FindAllString without the regular expression engine: the runs of base64's alphabet of
// twelve characters or more, each with up to two "=" after it, at most n of them.
func base64Runs(s string, n int) []string {
	var out []string
	for i := 0; i < len(s) && len(out) < n; {
		j := i
		for j < len(s) && base64Byte(s[j]) {
			j++
		}
		if j-i < 12 {
			i = j + 1
			continue
		}
		for k := 0; k < 2 && j < len(s) && s[j] == '='; k++ {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func base64Byte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '_' || c == '-'
}

// encodedRuns measures what base64Run and hexRun need: the longest run of base64's alphabet, and the most
// hexadecimal digits in one run of hex digits, their prefixes and separators. Most notes have neither.
func encodedRuns(s string) (b64, hexDigits int) {
	r := measureRuns(s)
	return r.b64, r.hexDigits
}

// runs are what the decoders need to know of a text before they run, measured in one pass (see encodedRuns,
// upperRun, smallNumbers; dotsDashes counts the dots and dashes Morse code is written in).
type runs struct {
	b64, hexDigits, upper, smallNumbers, dotsDashes int
}

func measureRuns(s string) runs {
	var r runs
	b64, hex, upper := 0, 0, 0
	small, digits := 0, 0 // numbers of two or three digits in a row, and the digits of the number being read
	for i := 0; i <= len(s); i++ {
		k := byteKind(0) // past the end: ends every run, and separates no numbers
		if i < len(s) {
			k = byteKinds[s[i]]
		}
		extend(&b64, &r.b64, k&base64Kind != 0, false)
		extend(&hex, &r.hexDigits, k&hexKind != 0, k&hexBetween != 0)
		extend(&upper, &r.upper, k&base32Kind != 0, false)
		if k&morseKind != 0 {
			r.dotsDashes++
		}
		if k&digitKind != 0 {
			digits++
			continue
		}
		if digits == 2 || digits == 3 {
			small++
			r.smallNumbers = max(r.smallNumbers, small)
		} else if digits > 0 {
			small = 0
		}
		digits = 0
		if i < len(s) && k&codeBetween == 0 {
			small = 0
		}
	}
	return r
}

// extend counts a byte into a run (in), keeps it going past one that only stands between its bytes (between), or
// ends it; longest is the longest run so far.
func extend(run, longest *int, in, between bool) {
	switch {
	case in:
		*run++
		*longest = max(*longest, *run)
	case !between:
		*run = 0
	}
}

// byteKind is what measureRuns reads a byte as, one bit per measure.
type byteKind uint8

const (
	base64Kind  byteKind = 1 << iota // base64's alphabet (base64Byte)
	hexKind                          // a hexadecimal digit
	hexBetween                       // what runs of hex digits hold between them: prefixes and separators
	base32Kind                       // a capital or a digit from 2 to 7
	morseKind                        // a dot or a dash
	digitKind                        // a decimal digit
	codeBetween                      // what separates character codes
)

var byteKinds = func() (t [256]byteKind) {
	for c := range 256 {
		b := byte(c)
		k := byteKind(0)
		if base64Byte(b) {
			k |= base64Kind
		}
		if '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F' {
			k |= hexKind
		}
		if strings.IndexByte("xX\\ \t\n\r\f:,", b) >= 0 {
			k |= hexBetween
		}
		if 'A' <= b && b <= 'Z' || '2' <= b && b <= '7' {
			k |= base32Kind
		}
		if b == '.' || b == '-' {
			k |= morseKind
		}
		if '0' <= b && b <= '9' {
			k |= digitKind
		}
		if strings.IndexByte(" ,;.:/|-", b) >= 0 {
			k |= codeBetween
		}
		t[c] = k
	}
	return t
}()

// decoded returns the texts hidden in encodings inside s: base64, hex, percent-encoding, HTML entities and
// backslash escapes.
func decoded(s string) []string {
	var out []string
	keep := func(t string) {
		t = strings.TrimSpace(t)
		// Readable text, or another run of base64: decoded again, to the depth the screen allows.
		if utf8.RuneCountInString(t) >= 4 && (readable(t) || base64Whole.MatchString(t)) && t != s {
			out = append(out, t)
		}
	}
	r := measureRuns(s)
	b64, hexDigits := r.b64, r.hexDigits
	for _, m := range when(b64 >= 12, base64Runs)(s, 8) {
		if !strings.ContainsFunc(m, unicode.IsUpper) && !strings.ContainsAny(m, "0123456789+/=") {
			continue // one lower-case word is not base64
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(m); err == nil {
				keep(string(b))
				break
			}
		}
	}
	for _, m := range when(hexDigits >= 16, hexRun.FindAllString)(s, 8) {
		h := strings.Map(func(r rune) rune {
			if unicode.Is(unicode.ASCII_Hex_Digit, r) {
				return r
			}
			return -1
		}, strings.NewReplacer("0x", "", "0X", "", `\x`, "", `\X`, "").Replace(m))
		if len(h)%2 == 1 {
			h = h[:len(h)-1]
		}
		if b, err := hex.DecodeString(h); err == nil {
			keep(string(b))
		}
	}
	if r.dotsDashes >= 16 { // what morse needs: sixteen dots and dashes
		if m := morse(s); m != "" {
			keep(m)
		}
	}
	if m := natoSpelled(s); m != "" {
		keep(m)
	}
	for _, m := range when(r.upper >= 16, base32Run.FindAllString)(s, 8) {
		if b, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(strings.TrimRight(m, "=")); err == nil {
			keep(string(b))
		}
	}
	for _, m := range when(r.smallNumbers >= 6, codesRun.FindAllString)(s, 4) { // "107 105 108 108 32 ...": character codes
		var b strings.Builder
		for _, f := range strings.FieldsFunc(m, func(r rune) bool { return strings.ContainsRune(" ,;.:/|-", r) }) {
			if n, err := strconv.Atoi(f); err == nil && n >= 32 && n < 0x10000 {
				b.WriteRune(rune(n))
			}
		}
		keep(b.String())
	}
	if strings.Contains(s, "%") && percentRun.MatchString(s) {
		if t, err := url.QueryUnescape(strings.ReplaceAll(s, "+", "%2B")); err == nil {
			keep(t)
		} else if t, err := url.PathUnescape(s); err == nil {
			keep(t)
		}
	}
	if strings.ContainsAny(s, `\&`) && escapeRun.MatchString(s) {
		t := html.UnescapeString(s)
		if strings.Contains(t, `\`) {
			if u, err := strconv.Unquote(`"` + strings.ReplaceAll(t, `"`, `\"`) + `"`); err == nil {
				t = u
			}
		}
		keep(t)
	}
	return out
}

// readable reports whether decoded bytes are text: valid UTF-8, mostly letters and spaces, few controls.
func readable(t string) bool {
	if !utf8.ValidString(t) {
		return false
	}
	letters, bad, n := 0, 0, 0
	for _, r := range t {
		n++
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == '\n' || r == '\t' || r == ' ':
		case unicode.IsControl(r) || r == utf8.RuneError:
			bad++
		}
	}
	return bad == 0 && letters*2 >= n && strings.ContainsRune(t, ' ')
}

// rot13 rotates Latin letters by 13 places.
func rot13(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return 'a' + (r-'a'+13)%26
		case r >= 'A' && r <= 'Z':
			return 'A' + (r-'A'+13)%26
		}
		return r
	}, s)
}

// reverse reverses s by code points.
func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
