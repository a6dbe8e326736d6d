package screen

import (
	"strings"
	"unicode"
)

// hidesText reports invisible characters used to hide text from a reader while every agent still receives it:
// Unicode tag characters (U+E0000 to U+E007F) outside the tag sequence of an emoji flag, runs of two or more
// invisible characters, and a zero-width character inside a word of letters. What writing systems need stays
// allowed: one joiner or non-joiner in an emoji sequence or in Arabic and Indic words, one direction mark, a
// variation selector after a symbol or an ideograph (never two in a row: a run of selectors after an emoji can
// spell any bytes), a soft hyphen, a byte-order mark at the start.
func hidesText(s string) bool {
	if !strings.ContainsFunc(s, func(r rune) bool {
		return r >= 0xad && (r >= 0xE0000 && r <= 0xE007F || zeroWidth(r) || unicode.Is(unicode.Variation_Selector, r))
	}) {
		return false // most notes: nothing invisible to weigh
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r >= 0xE0000 && r <= 0xE007F {
			n, ok := flagTags(rs, i)
			if !ok {
				return true
			}
			i += n - 1
			continue
		}
		if unicode.Is(unicode.Variation_Selector, r) {
			// One selector chooses how the character before it looks: an emoji or symbol (U+FE0E, U+FE0F), an
			// ideograph (the supplement's U+E0100 and up). A run of them, or one of the supplement's after a letter
			// that is no ideograph, carries bytes; one emoji or text selector is presentation after anything ("ℹ️").
			if i+1 < len(rs) && unicode.Is(unicode.Variation_Selector, rs[i+1]) {
				return true
			}
			if i > 0 && r != '\ufe0e' && r != '\ufe0f' && !unicode.Is(unicode.Han, rs[i-1]) && !unicode.IsSymbol(rs[i-1]) && !unicode.IsPunct(rs[i-1]) &&
				!unicode.IsDigit(rs[i-1]) && rs[i-1] != ' ' && !zeroWidth(rs[i-1]) {
				return true
			}
			continue
		}
		if !zeroWidth(r) || r == '\u00ad' || (r == '\ufeff' && i == 0) {
			continue
		}
		if i+1 < len(rs) && zeroWidth(rs[i+1]) && !unicode.Is(unicode.Variation_Selector, rs[i+1]) {
			return true // a run: no script needs two invisible characters in a row
		}
		var before, after rune
		if i > 0 {
			before = rs[i-1]
		}
		if i+1 < len(rs) {
			after = rs[i+1]
		}
		switch r {
		case '\u200c', '\u200d': // non-joiner and joiner: emoji sequences, Arabic, Persian and Indic words
			if simpleLetter(before) && simpleLetter(after) {
				return true
			}
		case '\u200e', '\u200f', '\u061c': // direction marks beside right-to-left text
		default: // zero-width space, word joiner, invisible operators, fillers
			if (unicode.IsLetter(before) || unicode.IsDigit(before)) && (unicode.IsLetter(after) || unicode.IsDigit(after)) {
				return true
			}
		}
	}
	return false
}

// simpleLetter reports letters of scripts that never need a joiner: Latin, Greek, Cyrillic, and digits.
func simpleLetter(r rune) bool {
	return r < 0x530 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// flagTags measures the tag sequence of a subdivision flag starting at rs[i] (🏴 then lower-case letters and
// digits as tags, then CANCEL TAG) and reports whether it is one.
func flagTags(rs []rune, i int) (int, bool) {
	if i == 0 || rs[i-1] != 0x1F3F4 {
		return 0, false
	}
	for j := i; j < len(rs) && j-i <= 7; j++ {
		switch r := rs[j]; {
		case r == 0xE007F:
			return j - i + 1, j > i
		case r >= 0xE0061 && r <= 0xE007A, r >= 0xE0030 && r <= 0xE0039:
		default:
			return 0, false
		}
	}
	return 0, false
}
