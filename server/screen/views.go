package screen

import (
	"bytes"
	"maps"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// views are the readings of one text that the detectors see. Each undoes a family of evasions and keeps word
// boundaries, so that a term inside a longer word ("skill" for "kill") does not match:
//
//   - native: NFKC, lower case, invisible characters removed, accents of Latin, Greek and Cyrillic letters dropped;
//     every script stays itself, for the lexicons of other languages.
//   - words: native with look-alike letters of other scripts read as Latin ones (the TR39 skeleton: Cyrillic,
//     Greek, small capitals, squared letters) and runs of one letter squeezed ("kiiill" → "kil").
//   - leet: words with digits and symbols read as the letters they imitate ("k1ll", "@ss").
//   - joined: leet with letters joined across separators ("k-i-l-l", "k·i·l·l", "k i l l", "ig no re") and the
//     joined runs cut again into the words of the lexicons.
//   - exact: the leet reading without squeezing, for terms that squeezing blurs into common words.
type views struct {
	raw    string
	native string
	plain  string // native with look-alikes read as Latin, unsqueezed: for detectors of structure (emails, links)
	words  []string
	leet   []string
	joined []string
	exact  []string
	mem    *viewMemory // what the readings are written in (nil: memory of their own)
}

// leetMap reads digits and symbols as the letters they imitate.
var leetMap = map[rune]rune{
	'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g',
	'@': 'a', '$': 's', '!': 'i', '|': 'l', '+': 't', '€': 'e', '£': 'l',
}

// invisible reports characters that render as nothing: zero-width spaces and joiners, direction marks, the
// soft hyphen, fillers, variation selectors and tag characters.
func invisible(r rune) bool {
	return zeroWidth(r) ||
		// and every other format character or default-ignorable one: musical beams, shorthand overlaps,
		// interlinear annotations, hieroglyph joiners, the Syriac abbreviation mark…
		(r > 0x7f && (unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)))
}

// zeroWidth reports the invisible characters of running text that hidesText weighs: the zero-width and
// direction characters, fillers, variation selectors and tags.
func zeroWidth(r rune) bool {
	switch r {
	case '\u00ad', '\u034f', '\u061c', '\u115f', '\u1160', '\u17b4', '\u17b5', '\u180e', '\u3164', '\ufeff', '\uffa0':
		return true
	}
	return (r >= '\u200b' && r <= '\u200f') || (r >= '\u202a' && r <= '\u202e') || (r >= '\u2060' && r <= '\u206f') ||
		(r >= 0xE0000 && r <= 0xE007F) || unicode.Is(unicode.Variation_Selector, r)
}

// newViews builds the readings of text.
func newViews(text string) views { return readViews(text, nil) }

// readViews builds the readings of text in mem, or in memory of their own when mem is nil.
func readViews(text string, mem *viewMemory) views {
	v := views{raw: text, mem: mem}
	if isASCII(text) { // most notes: nothing to decompose, fold or remove but case
		b := mem.bytes(len(text))
		for i := 0; i < len(text); i++ {
			c := text[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
		}
		v.native = unsafe.String(unsafe.SliceData(b), len(b))
		v.plain = v.native
	} else {
		// Decomposed into one buffer of about the size it needs (norm's String grows its own several times); the
		// buffer is never written again, so the folds read it as a string.
		buf := norm.NFKD.AppendString(mem.bytes(len(text)+len(text)/4), text)
		d := unsafe.String(unsafe.SliceData(buf), len(buf))
		v.native = mem.foldDecomposed(d, true)
		v.plain = strings.ToLower(skeleton(mem.foldDecomposed(d, false))) // latinSkeleton
	}
	v.words, v.leet, v.exact = mem.readings(v.plain)
	v.joined = mem.joinSplit(v.plain)
	return v
}

// readings is tokens(s, false, true), tokens(s, true, true) and tokens(s, true, false) (the words, leet and exact
// readings), read in one pass over s: every note is read all three ways.
func (m *viewMemory) readings(s string) (words, leet, exact []string) {
	// Three tokens at once, each written as tokens writes: see there.
	type reading struct {
		buf       []byte
		out       []string
		start     int
		prev      rune
		leet, sqz bool
		last      rune // as in tokens, for the leet readings
		digit     bool
	}
	rs := [3]reading{{leet: false, sqz: true}, {leet: true, sqz: true}, {leet: true, sqz: false}}
	for i := range rs {
		rs[i].buf = m.bytes(len(s))
		rs[i].out = m.strings(len(s)/4 + 1)
		rs[i].prev, rs[i].last = -1, -1
	}
	flush := func(t *reading) {
		if len(t.buf) > t.start {
			if t.leet && t.digit {
				t.buf = t.buf[:t.start+leetInPlace(t.buf[t.start:])]
			}
			t.out = append(t.out, unsafe.String(&t.buf[t.start], len(t.buf)-t.start))
			t.start = len(t.buf)
			t.prev, t.last, t.digit = -1, -1, false
		}
	}
	write := func(t *reading, r rune) {
		if !t.sqz || r != t.prev {
			t.buf, t.prev = utf8.AppendRune(t.buf, r), r
		}
	}
	w, l, e := &rs[0], &rs[1], &rs[2]
	for _, r := range s {
		// The words reading: letters only.
		if r != '\'' {
			if isLetterRune(r) {
				write(w, r)
			} else {
				flush(w)
			}
		}
		// The leet readings: l and e differ only in squeezing, so last and digit are the same in both.
		lr := r
		if m, ok := leetRune(r); ok {
			// A digit that starts a token or follows a digit stays a digit: "2025" is not "zozs".
			if isDigitRune(r) && (l.last < 0 || isDigitRune(l.last)) {
				l.last, l.digit, e.last, e.digit = r, true, r, true
				write(l, r)
				write(e, r)
				continue
			}
			lr = m
		}
		if lr == '\'' {
			continue
		}
		if isLetterRune(lr) || isDigitRune(lr) {
			d := isDigitRune(lr)
			l.last, l.digit = lr, l.digit || d
			e.last, e.digit = lr, e.digit || d
			write(l, lr)
			write(e, lr)
			continue
		}
		flush(l)
		flush(e)
	}
	flush(w)
	flush(l)
	flush(e)
	return w.out, l.out, e.out
}

// viewMemory is memory that the readings of notes are written in, one note after another: a block of bytes and
// one of strings, handed out in turn and handed out again from the start once a note's screening is over (reset).
// The readings are strings over these bytes, so nothing read from a note's views may outlive its screening. A
// nil viewMemory hands out memory of its own each time.
type viewMemory struct {
	byteBlock   []byte
	strBlock    []string
	turnedBlock []turnedWord
}

var viewMemories = sync.Pool{New: func() any { return new(viewMemory) }}

// bytes returns an empty slice of capacity n: appending past n copies it away, as append does, and leaves the
// memory after it alone.
func (m *viewMemory) bytes(n int) []byte {
	if m == nil {
		return make([]byte, 0, n)
	}
	return take(&m.byteBlock, n, 4096)
}

// strings returns an empty slice of strings of capacity n, as bytes does.
func (m *viewMemory) strings(n int) []string {
	if m == nil {
		return make([]string, 0, n)
	}
	return take(&m.strBlock, n, 512)
}

// turnedWords returns an empty slice of words' places of capacity n, as bytes does.
func (m *viewMemory) turnedWords(n int) []turnedWord {
	if m == nil {
		return make([]turnedWord, 0, n)
	}
	return take(&m.turnedBlock, n, 256)
}

// take hands out the next n elements of block as an empty slice of capacity n. A block too full for them is
// replaced by a larger one (at least least long); the full one stays with what was handed out of it.
func take[T any](block *[]T, n, least int) []T {
	if cap(*block)-len(*block) < n {
		*block = make([]T, 0, max(2*cap(*block), n, least))
	}
	at := len(*block)
	*block = (*block)[:at+n]
	return (*block)[at : at : at+n]
}

// spaced is the package's spaced, written in m.
func (m *viewMemory) spaced(words []string) string {
	n := len(words) + 1
	for _, w := range words {
		n += len(w)
	}
	b := append(m.bytes(max(n, 2)), ' ')
	for _, w := range words {
		b = append(append(b, w...), ' ')
	}
	if len(words) == 0 {
		b = append(b, ' ') // the padding of both sides
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// reset hands the memory out again from its start: what was read from it must be unused.
func (m *viewMemory) reset() {
	clear(m.strBlock) // no string of a note stays reachable from the pool
	m.byteBlock, m.strBlock, m.turnedBlock = m.byteBlock[:0], m.strBlock[:0], m.turnedBlock[:0]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// latinSkeleton is fold then skeleton, with case lowered last: look-alikes are read in the case they were written
// in, as TR39 does, since a capital Cyrillic Н looks like H while a small н does not look like h.
func latinSkeleton(text string) string {
	return strings.ToLower(skeleton(fold(text, false)))
}

// fold applies NFKC, removes invisible characters, lowers case (when lower is true) and drops the accents of
// Latin, Greek and Cyrillic letters; marks of other scripts (Devanagari vowel signs, Arabic vowels) are part of
// their words and stay.
func fold(text string, lower bool) string { return foldDecomposed(norm.NFKD.String(text), lower) }

// foldDecomposed is fold of a text already in NFKD: the note's two folds decompose it once.
func foldDecomposed(decomposed string, lower bool) string {
	return (*viewMemory)(nil).foldDecomposed(decomposed, lower)
}

// foldDecomposed is the package's foldDecomposed, written in m.
func (m *viewMemory) foldDecomposed(decomposed string, lower bool) string {
	b := m.bytes(len(decomposed))
	var base rune
	for _, r := range decomposed {
		if r < 0x80 { // ASCII: nothing to remove, drop or unstroke
			if lower && 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			base = r
			b = append(b, byte(r))
			continue
		}
		switch {
		case invisible(r):
			continue
		case unicode.Is(unicode.Mn, r):
			if base < 0x0530 { // Latin, Greek, Cyrillic and their extensions end below Armenian
				continue
			}
		default:
			base = r
		}
		if lower {
			r = unicode.ToLower(r)
		}
		if l, ok := unstroked[r]; ok {
			r = l
		}
		b = utf8.AppendRune(b, r)
	}
	// Composed into memory of about the size it needs; neither buffer is written again.
	out := norm.NFKC.AppendString(m.bytes(len(b)+len(b)/4), unsafe.String(unsafe.SliceData(b), len(b)))
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// unstroked reads Latin letters with a stroke, bar or hook, which NFKD does not decompose ("Kiłł", "ɨgnore"), as
// the letters they are drawn on, as fold drops accents.
var unstroked = map[rune]rune{
	'ł': 'l', 'Ł': 'L', 'ƚ': 'l', 'ɫ': 'l', 'ɬ': 'l', 'ɨ': 'i', 'Ɨ': 'I', 'ƙ': 'k', 'ĸ': 'k', 'ɱ': 'm', 'ɗ': 'd', 'ɖ': 'd',
	'ɠ': 'g', 'ȷ': 'j', 'ɉ': 'j', 'đ': 'd', 'Đ': 'D', 'ħ': 'h', 'Ħ': 'H', 'ɦ': 'h', 'ŧ': 't', 'Ŧ': 'T', 'ƭ': 't', 'ø': 'o',
	'Ø': 'O', 'ƀ': 'b', 'ɓ': 'b', 'ƶ': 'z', 'ȥ': 'z', 'ʐ': 'z', 'ɍ': 'r', 'ɏ': 'y', 'ʉ': 'u', 'ƈ': 'c', 'ƥ': 'p', 'ʋ': 'v',
	'ɲ': 'n', 'ɳ': 'n', 'ƞ': 'n',
}

// mixedLatin reads the lower-case Cyrillic letters that look like small capitals (к, м, т, н, в) and the Greek
// ones that look like Latin letters (ε, η, κ, τ, χ, ω, μ, β) as Latin letters inside a word that also has Latin
// letters ("кill", "ιgηοrε"): Unicode's confusables leave them out, since alone they are told apart, but in a
// Latin word they are only a disguise.
var mixedLatin = map[rune]byte{'к': 'k', 'м': 'm', 'т': 't', 'н': 'h', 'в': 'b',
	'ε': 'e', 'η': 'n', 'κ': 'k', 'τ': 't', 'χ': 'x', 'ω': 'w', 'μ': 'u', 'β': 'b'}

// skeleton reads letters that look like Latin ones as those letters (Unicode's confusables, generated into
// confusables_table.go). Words written wholly in another script are left alone: a Russian word stays Russian, so
// the lexicons of that language still read it; a word that mixes scripts, or that holds letters no language
// writes in running text (small capitals, squared letters), is read as Latin.
func skeleton(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	start := 0
	flush := func(end int) {
		w := s[start:end]
		if isASCII(w) {
			b.WriteString(w) // the table reads no ASCII letter as another
		} else if latinLooking(w) {
			for _, r := range w {
				if l, ok := skeletonLatin[r]; ok {
					b.WriteByte(l)
				} else if l, ok := mixedLatin[r]; ok && mixedWord(w) {
					b.WriteByte(l)
				} else {
					b.WriteRune(r)
				}
			}
		} else {
			b.WriteString(w)
		}
		start = end
	}
	for i, r := range s {
		if unicode.IsSpace(r) {
			flush(i)
		}
	}
	flush(len(s))
	return b.String()
}

// mixedWord reports a word with a Latin letter in it.
func mixedWord(w string) bool {
	return strings.ContainsFunc(w, func(r rune) bool { return r < 0x80 && unicode.IsLetter(r) })
}

// latinLooking reports whether a word should be read as Latin: it holds a Latin letter, or a letter of the
// confusables table that is not Greek or Cyrillic (those two are real languages of the board).
func latinLooking(w string) bool {
	latin, other := false, false
	for _, r := range w {
		switch {
		case r < 0x80 && unicode.IsLetter(r):
			latin = true
		case r >= 0x370 && r < 0x530: // Greek, Cyrillic
			if _, ok := skeletonLatin[r]; !ok {
				other = true // a letter with no Latin twin: a real Greek or Cyrillic word
			}
		case r >= 0x80:
			if _, ok := skeletonLatin[r]; ok {
				latin = true
			}
		}
	}
	return latin || !other && strings.ContainsFunc(w, func(r rune) bool { return r >= 0x370 && r < 0x530 })
}

// tokens splits s into words of letters (and, with leet, of the digits and symbols that imitate letters),
// squeezed when asked. It is on every note's path several times: it writes into one buffer, and reads ASCII
// without the tables of Unicode.
func tokens(s string, leet, squeezed bool) []string {
	return (*viewMemory)(nil).tokens(s, leet, squeezed)
}

// tokens is the package's tokens written in m.
func (m *viewMemory) tokens(s string, leet, squeezed bool) []string {
	// The words are written one after another into buf, and each is a string over its bytes once it ends: buf is
	// only ever appended to past the words already made (or copied away by append, leaving them as they were), so
	// their bytes never change, as a string's must not.
	buf := m.bytes(len(s))
	out := m.strings(len(s)/4 + 1) // most words are longer than three letters and a space
	start := 0
	var prev rune = -1 // the last rune of the word as written into buf
	var last rune = -1 // the last rune of the word before squeezing: the same rune, since squeezing drops repeats
	digit := false     // the word holds a digit, which the second reading below may turn into a letter
	flush := func() {
		if len(buf) > start {
			if leet && digit {
				buf = buf[:start+leetInPlace(buf[start:])]
			}
			out = append(out, unsafe.String(&buf[start], len(buf)-start))
			start = len(buf)
			prev, last, digit = -1, -1, false
		}
	}
	for _, r := range s {
		if leet {
			if l, ok := leetRune(r); ok {
				// A digit that starts a token or follows a digit stays a digit: "2025" is not "zozs".
				if isDigitRune(r) && (last < 0 || isDigitRune(last)) {
					last, digit = r, true
					if !squeezed || r != prev {
						buf, prev = utf8.AppendRune(buf, r), r
					}
					continue
				}
				r = l
			}
		}
		if r == '\'' {
			continue
		}
		if isLetterRune(r) || leet && isDigitRune(r) {
			last = r
			digit = digit || isDigitRune(r)
			if !squeezed || r != prev {
				buf, prev = utf8.AppendRune(buf, r), r
			}
			continue
		}
		flush()
	}
	flush()
	return out
}

// eachWord calls f with each word of s as tokens(s, false, squeezed) reads it, written into one buffer that f must
// not keep.
func eachWord(s string, squeezed bool, f func([]byte)) {
	eachWordAt(s, squeezed, func(w []byte, _, _ int) { f(w) })
}

// eachWordAt is eachWord, with where in s each word starts and ends.
func eachWordAt(s string, squeezed bool, f func(w []byte, start, end int)) {
	var arr [32]byte
	buf := arr[:0]
	var prev rune = -1
	start := -1
	for i, r := range s {
		if r == '\'' {
			continue
		}
		if isLetterRune(r) {
			if start < 0 {
				start = i
			}
			if !squeezed || r != prev {
				buf, prev = utf8.AppendRune(buf, r), r
			}
			continue
		}
		if len(buf) > 0 {
			f(buf, start, i)
			buf, prev = buf[:0], -1
		}
		start = -1
	}
	if len(buf) > 0 {
		f(buf, start, len(s))
	}
}

// leetInPlace reads a word that began with a digit ("1d10t") again as letters, unless it is a number ("2025") or a
// number with a unit ("12yo"). It writes over b, a valid UTF-8 word, and returns the length of the word read: every
// rune leetMap turns into a letter is as long as the letter or longer, so the word never grows.
func leetInPlace(b []byte) int {
	if !bytes.ContainsFunc(b, unicode.IsLetter) || hasDigitRunBytes(b) {
		return len(b)
	}
	n := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if l, ok := leetRune(r); ok {
			r = l
		}
		n += utf8.EncodeRune(b[n:], r)
		i += size
	}
	return n
}

// leetASCII is leetMap for ASCII, looked up without hashing.
var leetASCII = func() (t [128]rune) {
	for k, v := range leetMap {
		if k < 128 {
			t[k] = v
		}
	}
	return t
}()

func leetRune(r rune) (rune, bool) {
	if r < 128 {
		l := leetASCII[r]
		return l, l != 0
	}
	if r != '€' && r != '£' {
		return 0, false
	}
	return leetMap[r], true
}

// isLetterRune reports a letter or a combining mark (part of a word in Devanagari, Arabic...).
// The ASCII case is small enough to be inlined where the tokenizers call it for every character.
func isLetterRune(r rune) bool {
	if r < 0x80 {
		return 'a' <= r|0x20 && r|0x20 <= 'z'
	}
	return isLetterWide(r)
}

// isLetterWide is isLetterRune beyond ASCII.
func isLetterWide(r rune) bool { return unicode.IsLetter(r) || unicode.In(r, unicode.Mn, unicode.Mc) }

func isDigitRune(r rune) bool {
	if r < 0x80 {
		return '0' <= r && r <= '9'
	}
	return isDigitWide(r)
}

// isDigitWide is isDigitRune beyond ASCII, kept out of line: inlined into it, it would keep isDigitRune from being
// inlined into the tokenizers.
//
//go:noinline
func isDigitWide(r rune) bool { return unicode.IsDigit(r) }

// squeeze shortens every run of one letter to one letter: "kiiill" → "kil". Terms are squeezed the same way.
func squeeze(s string) string {
	i := 1
	for ; i < len(s) && s[i] != s[i-1]; i++ {
	}
	if i >= len(s) && isASCII(s) {
		return s // nothing repeats: most words
	}
	var b strings.Builder
	b.Grow(len(s))
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

// joinSplit undoes letter-spacing: letters split by separators inside a run without spaces ("k-i-l-l",
// "k·i·l·l", "f.u.c.k", "ig_no_re") are joined, and so are runs of two or more one-letter words and of three or
// more words of one or two letters ("k i l l", "ig no re al l"), across spaces and line breaks. Leet is read first.
func joinSplit(s string) []string { return (*viewMemory)(nil).joinSplit(s) }

// joinSplit is the package's joinSplit written in m.
func (m *viewMemory) joinSplit(s string) []string {
	pieces := m.strings(len(s)/6 + 1)
	// The pieces are written one after another into buf, each a string over its bytes once it ends (as in tokens:
	// buf is only appended to past them, so their bytes never change).
	buf := m.bytes(len(s))
	for f := range strings.FieldsSeq(s) {
		start := len(buf)
		letters, digit, split, inner := false, false, false, false
		for _, r := range f {
			if l, ok := leetRune(r); ok && !isDigitRune(r) {
				r = l
			}
			if isLetterRune(r) || isDigitRune(r) {
				letters = letters || r < 0x80 && !isDigitRune(r) || r >= 0x80 && unicode.IsLetter(r)
				digit = digit || isDigitRune(r)
				split = split || inner
				buf = utf8.AppendRune(buf, r)
			} else if len(buf) > start {
				inner = true // a separator inside the word: joined, the word is cut again into lexicon words
			}
		}
		if len(buf) == start {
			continue
		}
		if letters && digit {
			buf = buf[:start+leetInPlace(buf[start:])]
		}
		p := unsafe.String(&buf[start], len(buf)-start)
		if split {
			pieces = append(pieces, segment(squeeze(p))...)
		} else {
			pieces = append(pieces, p)
		}
	}
	out := m.strings(len(pieces))
	run := make([]string, 0, 8)
	flush := func() {
		short := 0
		for _, p := range run {
			if utf8.RuneCountInString(p) == 1 {
				short++
			}
		}
		if len(run) >= 3 || len(run) == 2 && short == 2 {
			out = append(out, segment(squeeze(strings.Join(run, "")))...)
		} else {
			for _, p := range run {
				out = append(out, squeeze(p))
			}
		}
		run = run[:0]
	}
	for _, p := range pieces {
		if utf8.RuneCountInString(p) <= 2 {
			run = append(run, p)
			continue
		}
		flush()
		out = append(out, squeeze(p))
	}
	flush()
	return mergeVocab(out)
}

// mergeVocab joins two or three neighbouring pieces into one word when together they make a word of the lexicons,
// one of them is short (three letters at most) and one is no word of its own ("nu des", "sys tem pro mpt", "in struc
// tions").
func mergeVocab(words []string) []string {
	// Whether a word is no word of its own is looked up once per word, not once per window it stands in.
	var known [64]int8 // per word: 0 not looked up yet, 1 a word, 2 no word
	state := known[:]
	if len(words) > len(known) {
		state = make([]int8, len(words))
	}
	odd := func(i int) bool {
		if state[i] == 0 {
			state[i] = 1
			if !knownWords[words[i]] {
				state[i] = 2
			}
		}
		return state[i] == 2
	}
	var out []string
	buf := make([]byte, 0, 32)
	for i := 0; i < len(words); i++ {
		merged := false
		for n := 3; n >= 2 && !merged; n-- {
			if i+n > len(words) {
				continue
			}
			parts := words[i : i+n]
			short, long := false, false
			for _, w := range parts {
				short = short || len(w) <= 3
				long = long || len(w) > 6
			}
			if !short || long || !odd(i) && !odd(i+1) && (n == 2 || !odd(i+2)) {
				continue
			}
			buf = buf[:0]
			for _, w := range parts { // squeezed as squeeze would the whole: the parts are, so only where they meet
				if last, _ := utf8.DecodeLastRune(buf); len(buf) > 0 && len(w) > 0 {
					if first, size := utf8.DecodeRuneInString(w); first == last {
						w = w[size:]
					}
				}
				buf = append(buf, w...)
			}
			if len(buf) >= 5 && len(buf) <= maxVocabLen && lowerLetters(buf) && vocabulary[string(buf)] { // its words are of a to z
				w := string(buf)
				if out == nil {
					out = append(make([]string, 0, len(words)), words[:i]...)
				}
				out = append(out, w)
				i += n - 1
				merged = true
			}
		}
		if !merged && out != nil {
			out = append(out, words[i])
		}
	}
	if out == nil {
		return words
	}
	return out
}

// knownWords are the common English words and the vocabulary's, for mergeVocab's one lookup.
var knownWords = func() map[string]bool {
	m := maps.Clone(vocabulary)
	for w := range commonWords {
		m[w] = true
	}
	return m
}()

// lowerLetters reports whether b is all ASCII lower-case letters, as the vocabulary's words are.
func lowerLetters(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// segment cuts a word joined from split letters into the longest vocabulary words it is made of: "ignoreal"
// (from "ig no re al l") reads "ignore al". A word the vocabulary cannot mostly cover stays as it is.
func segment(w string) []string {
	if len(w) < 6 || vocabulary[w] {
		return []string{w}
	}
	var parts []string
	covered := 0
	for i := 0; i < len(w); {
		n := 0
		for j := min(len(w), i+maxVocabLen); j >= i+2; j-- {
			if vocabulary[w[i:j]] {
				n = j - i
				break
			}
		}
		if n == 0 {
			parts = append(parts, w[i:i+1])
			i++
			continue
		}
		parts = append(parts, w[i:i+n])
		covered += n
		i += n
	}
	if covered*4 < len(w)*3 {
		return []string{w}
	}
	return mergeSingles(parts)
}

// mergeSingles joins the stray letters segment leaves between words into one piece.
func mergeSingles(parts []string) []string {
	var out []string
	var stray strings.Builder
	for _, p := range parts {
		if len(p) == 1 {
			stray.WriteString(p)
			continue
		}
		if stray.Len() > 0 {
			out = append(out, stray.String())
			stray.Reset()
		}
		out = append(out, p)
	}
	if stray.Len() > 0 {
		out = append(out, stray.String())
	}
	return out
}

func hasDigitRunBytes(b []byte) bool {
	prev := false
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		d := unicode.IsDigit(r)
		if d && prev {
			return true
		}
		prev = d
		i += size
	}
	return false
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

// Canonical is a body as the board's duplicate check compares it, read the way the screen reads it: NFKC,
// invisible characters removed, case and accents folded, look-alike letters of other scripts read as Latin, white
// space folded, and trailing punctuation and symbols ignored. A zero-width space, a Cyrillic "е" or "Т" in a Latin
// word, a fullwidth letter, a final "!", "~" or emoji does not make a new note.
func Canonical(body string) string {
	v := strings.ToLower(body)
	if !isASCII(body) {
		v = latinSkeleton(body)
	}
	v = strings.Join(strings.Fields(v), " ")
	return strings.TrimRightFunc(v, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSymbol(r) || unicode.IsSpace(r) })
}
