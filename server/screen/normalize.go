package screen

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// views are the forms of a note the screeners read. Each undoes a family of evasions, and each keeps word
// boundaries so that a term inside a longer word ("skill" for "kill") does not match.
type views struct {
	raw   string // the note as sent, for detectors of structure (emails, card numbers, links)
	plain string // NFKC, lower case, look-alikes and accents folded, zero-width characters removed
	words []string
	// leet and joined are further readings of plain: digits and symbols read as letters ("k1ll" → "kill"), and
	// runs of single letters joined ("k i l l" → "kill"). Terms are matched in each.
	leet   []string
	joined []string
	// exact is the leet reading without squeezing, for terms that squeezing would blur into common words.
	exact []string
}

// confusables maps letters of other scripts that look like Latin ones.
var confusables = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't',
	'у': 'y', 'х': 'x', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'ɡ': 'g', 'һ': 'h', 'ӏ': 'l', 'ո': 'n',
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'χ': 'x', 'ω': 'w', 'ѵ': 'v', 'ɑ': 'a', 'ı': 'i', 'ł': 'l', 'ø': 'o', 'ß': 's', 'þ': 'p', 'ð': 'd',
}

// leetMap reads digits and symbols as the letters they imitate.
var leetMap = map[rune]rune{
	'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g',
	'@': 'a', '$': 's', '!': 'i', '|': 'l', '+': 't', '€': 'e', '£': 'l',
}

func invisible(r rune) bool {
	switch r {
	case '\u00ad', '\u034f', '\u061c', '\u115f', '\u1160', '\u17b4', '\u17b5', '\u180e', '\u3164', '\ufeff', '\uffa0':
		return true
	}
	return (r >= '\u200b' && r <= '\u200f') || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2060' && r <= '\u206f') ||
		unicode.Is(unicode.Variation_Selector, r)
}

// normalize builds the views of text.
func normalize(text string) views {
	v := views{raw: text}
	if isASCII(text) { // most notes: nothing to decompose, fold or remove but case
		v.plain = strings.ToLower(text)
	} else {
		v.plain = fold(text)
	}
	v.words = tokens(v.plain, false, true)
	v.leet = tokens(v.plain, true, true)
	v.joined = joinSingles(v.leet)
	v.exact = tokens(v.plain, true, false)
	return v
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// fold decomposes text, drops accents and invisible characters, lowers case, maps look-alikes to Latin letters
// and recomposes.
func fold(text string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(text) { // decompose, so accents become separate marks to drop
		switch {
		case invisible(r), unicode.Is(unicode.Mn, r):
			continue
		}
		r = unicode.ToLower(r)
		if c, ok := confusables[r]; ok {
			r = c
		}
		b.WriteRune(r)
	}
	return norm.NFKC.String(b.String())
}

// tokens splits s into words of letters (and, with leet, of the digits and symbols that imitate letters), with
// runs of three or more of one letter shortened to two ("kiiiill" → "kiill" → matched as "kill" by squeeze).
func tokens(s string, leet, squeezed bool) []string {
	var out []string
	var w []rune
	flush := func() {
		if len(w) > 0 {
			if squeezed {
				out = append(out, squeeze(string(w)))
			} else {
				out = append(out, string(w))
			}
			w = w[:0]
		}
	}
	for _, r := range s {
		if leet {
			if l, ok := leetMap[r]; ok {
				// A digit that starts a token or follows a digit stays a digit: "2025" is not "zozs".
				if unicode.IsDigit(r) && (len(w) == 0 || unicode.IsDigit(w[len(w)-1])) {
					w = append(w, r)
					continue
				}
				r = l
			}
		}
		if unicode.IsLetter(r) || (leet && unicode.IsDigit(r)) || r == '\'' {
			if r != '\'' {
				w = append(w, r)
			}
			continue
		}
		flush()
	}
	flush()
	if leet {
		for i, t := range out { // a word that began with a digit ("1d10t") is read again as letters
			if !strings.ContainsFunc(t, unicode.IsLetter) || hasDigitRun(t) {
				continue // a number ("2025"), or a number with a unit ("12yo")
			}
			out[i] = strings.Map(func(r rune) rune {
				if l, ok := leetMap[r]; ok {
					return l
				}
				return r
			}, t)
		}
	}
	return out
}

// squeeze shortens every run of one letter to one letter: "kiiill" → "kil". Terms are squeezed the same way.
func squeeze(s string) string {
	var b strings.Builder
	var last rune
	for i, r := range s {
		if i > 0 && r == last {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	return b.String()
}

// joinSingles joins runs of two or more one-letter words: "k i l l you" → "kil you".
func joinSingles(words []string) []string {
	var out []string
	var run strings.Builder
	n := 0
	flush := func() {
		if n >= 2 {
			out = append(out, squeeze(run.String()))
		} else if n == 1 {
			out = append(out, run.String())
		}
		run.Reset()
		n = 0
	}
	for _, w := range words {
		if len([]rune(w)) == 1 {
			run.WriteString(w)
			n++
			continue
		}
		flush()
		out = append(out, w)
	}
	flush()
	return out
}

func hasDigitRun(s string) bool {
	prev := false
	for _, r := range s {
		d := unicode.IsDigit(r)
		if d && prev {
			return true
		}
		prev = d
	}
	return false
}
