package screen

import (
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// leadScan finds what the expression's FindAllStringSubmatchIndex finds, the same matches in the same order: for
// the detectors' expressions on every corpus note and on texts built of their words, and for expressions of other
// shapes (which it may only run as they are).
func TestLeadScanFindsWhatTheExpressionFinds(t *testing.T) {
	exprs := []*regexp.Regexp{labelled, streetRE,
		regexp.MustCompile(`\b(?:ab|cd)\s*(\d+)`), regexp.MustCompile(`(?i)\bstraße\s\d`), regexp.MustCompile(`\bab|cd\d`),
		regexp.MustCompile(`x*\d`), regexp.MustCompile(`^\d+`), regexp.MustCompile(`\Bb\d`), regexp.MustCompile(`(?m)^ab`),
		regexp.MustCompile(`\b\b\d`), regexp.MustCompile(`\bтелефон:\s?\d+`), regexp.MustCompile(`(?:\d|ab)\b\s?cd`),
		regexp.MustCompile(`[^a]b`), regexp.MustCompile(`\b[α-ω]+\d`), regexp.MustCompile(`(?i)\bÉtat \d`),
		// A hostile review's: classes holding U+FFFD (a match starts at a character, never inside one), a range from
		// the surrogates, and a pattern that ends quoted.
		regexp.MustCompile(`[^é]b`), regexp.MustCompile(`\PL\d`), regexp.MustCompile(`[^\x00-\x{D7FF}\x{F900}-\x{10FFFF}]`),
		regexp.MustCompile(`\bab\Q)`)}
	var texts []string
	for _, file := range []string{"testdata/train.tsv", "testdata/heldout.tsv"} {
		for _, n := range readCorpus(t, file) {
			texts = append(texts, n.text, newViews(n.text).plain)
		}
	}
	parts := []string{"phone", "address", "home address", "is", ":", "=", " ", "  ", "1234", "56", "x", "_", "ab", "cd",
		"телефон", "xтелефон", "pin", "password", "hunter22", "12 main street", "4b", "straße", "STRASSE", "ß", "état",
		"ÉTAT", "αβγ", "7", "\n", ",", "sin", "passport no.", "#", "マイナンバー", "は", "street", "st", "\xff", "\x80", "\xe3\x81", "b", "éb", "é1", "\ue000", "ab)"}
	r := rand.New(rand.NewPCG(7, 11))
	for range 40000 {
		var b []byte
		for range 1 + r.IntN(12) {
			b = append(b, parts[r.IntN(len(parts))]...)
		}
		texts = append(texts, string(b))
	}
	fast := 0
	for _, re := range exprs {
		l := newLeadScan(re)
		if l.anchored != nil {
			fast++
		}
		for _, text := range texts {
			want := re.FindAllStringSubmatchIndex(text, -1)
			if got := l.FindAllStringSubmatchIndex(text); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Fatalf("%s on %q: %v, the expression finds %v", re, text, got, want)
			}
		}
	}
	if fast < 7 {
		t.Errorf("only %d of %d expressions are read from their starts", fast, len(exprs))
	}
	if newLeadScan(labelled).anchored == nil || newLeadScan(streetRE).anchored == nil {
		t.Error("the detectors' expressions are run whole")
	}
}

// anyOf finds a string where strings.Contains finds it: in the corpus, at the ends of texts, in strings that share
// their first byte, and in texts that are one of the strings or a part of one.
func TestAnyOfFindsWhatContainsFinds(t *testing.T) {
	subs := []string{"sk-", "sk_live", "hex", "header", "od -", "-----begin", "straße", "gata ", "x"}
	texts := []string{"", "s", "sk", "sk-", "xsk_liv", "a header", "hexx", "od", "od -", "mi straße 4", "gata", "gata x", "----begin", "-----begin", "STRAßE"}
	for _, n := range readCorpus(t, "testdata/train.tsv") {
		texts = append(texts, strings.ToLower(n.text))
	}
	for n := range len(subs) + 1 {
		set := subs[:n]
		a := newAnyOf(set...)
		for _, text := range texts {
			want := slices.ContainsFunc(set, func(sub string) bool { return strings.Contains(text, sub) })
			if got := a.in(text); got != want {
				t.Fatalf("anyOf%q.in(%q) = %v, strings.Contains finds one: %v", set, text, got, want)
			}
		}
	}
}

// A setGroup finds in one pass the hits that each of its sets finds in its own, for the groups the rules read, on
// every corpus note as each reads it.
func TestSetGroupFindsWhatEachSetFinds(t *testing.T) {
	l := compiledLists()
	for _, n := range readCorpus(t, "testdata/train.tsv") {
		v := newViews(n.text)
		for _, c := range []struct {
			group *setGroup
			text  string
		}{{l.allowToken, spaced(v.leet)}, {l.allowExactRules, spaced(v.exact)}, {l.plainGroup, v.native}, {l.plainGroup, v.plain}} {
			hits := c.group.hits(c.text)
			for i, set := range c.group.sets {
				if got, want := hits[i], set.hits(c.text); !slices.Equal(got, want) {
					t.Fatalf("%q: the group finds %v of set %d, the set %v", c.text, got, i, want)
				}
			}
		}
	}
}

// cueAndNumberWords finds the cue words and counts the spelled digits in one pass; personalData writes out spelled
// digits only where it counts two, so a count short of the words would let "null-sechs-neun" through.
func TestCueAndNumberWords(t *testing.T) {
	for _, c := range []struct {
		text    string
		cues    []string
		numbers int
	}{
		{"call oh seven seven zero, at the bakery on quay road", []string{"at", "road"}, 4},
		{"festnetz null-sechs-neun, drei-vier", nil, 5},
		{"один два три, улица ленина", []string{"улица"}, 3},
		{"the note holds none", nil, 0},
	} {
		words, numbers := cueAndNumberWords(c.text)
		if got := slices.Sorted(maps.Keys(words)); !slices.Equal(got, c.cues) || numbers != c.numbers {
			t.Errorf("%q: cue words %q and %d spelled digits, want %q and %d", c.text, got, numbers, c.cues, c.numbers)
		}
	}
}

// measureRuns measures in one pass what each decoder's gate measured in a pass of its own (the loops below, as they
// were): on every corpus note and on texts at the edges of each measure.
func TestMeasureRunsIsEachMeasure(t *testing.T) {
	smallNumbers := func(s string) int {
		most, n, digits := 0, 0, 0
		for i := 0; i <= len(s); i++ {
			if i < len(s) && s[i] >= '0' && s[i] <= '9' {
				digits++
				continue
			}
			if digits == 2 || digits == 3 {
				n++
				most = max(most, n)
			} else if digits > 0 {
				n = 0
			}
			digits = 0
			if i < len(s) && !strings.ContainsRune(" ,;.:/|-", rune(s[i])) {
				n = 0
			}
		}
		return most
	}
	longest := func(s string, in func(c byte) bool, within func(c byte) bool) int {
		most, n := 0, 0
		for i := 0; i < len(s); i++ {
			switch {
			case in(s[i]):
				n++
				most = max(most, n)
			case !within(s[i]):
				n = 0
			}
		}
		return most
	}
	never := func(byte) bool { return false }
	hexDigit := func(c byte) bool { return strings.IndexByte("0123456789abcdefABCDEF", c) >= 0 }
	hexWithin := func(c byte) bool { return strings.IndexByte("xX\\ \t\n\r\f:,", c) >= 0 }
	upper := func(c byte) bool { return 'A' <= c && c <= 'Z' || '2' <= c && c <= '7' }
	texts := []string{"", "12", "12 34 56 78 90 11 22", "12 34\x0056 78", "107 105 108 108 32 97 108 108", "1234 12 12",
		"AAAA2222BBBB7777CCCC", "0x41 0x42 0x43 0x44", "... --- ...", "aGVsbG8gd29ybGQ=", "12\x00", "\x00\x00", "99"}
	for _, n := range readCorpus(t, "testdata/train.tsv") {
		texts = append(texts, n.text)
	}
	for _, s := range texts {
		want := runs{longest(s, base64Byte, never), longest(s, hexDigit, hexWithin), longest(s, upper, never), smallNumbers(s),
			strings.Count(s, ".") + strings.Count(s, "-")}
		if got := measureRuns(s); got != want {
			t.Fatalf("%q: measureRuns %+v, each measure %+v", s, got, want)
		}
	}
}

// readNoteWords reads in one pass what eachWord read in two: the squeezed words with their turnedWords flags, and
// the words as written that are cue words or spelled digits; on every corpus note and on words with letters doubled.
func TestNoteWordsReadsAsEachWord(t *testing.T) {
	texts := []string{"", "a", "kiiill all the jews", "dot dot at at", "Hauptstraße 5", "don't stop", "ooh eeh", "один два"}
	for _, n := range readCorpus(t, "testdata/train.tsv") {
		texts = append(texts, strings.ToLower(n.text))
	}
	for _, text := range texts {
		var turned []turnedWord
		eachWordAt(text, true, func(w []byte, start, end int) {
			if len(w) >= 2 {
				turned = append(turned, turnedWord{start, end, turnedWords[string(w)]})
			}
		})
		cues, numbers := map[string]bool{}, 0
		eachWord(text, false, func(w []byte) {
			if cues[string(w)] = cues[string(w)] || piiWords[string(w)]&cueWord != 0; !cues[string(w)] {
				delete(cues, string(w))
			}
			if piiWords[string(w)]&numberWord != 0 {
				numbers++
			}
		})
		got := readNoteWords(text)
		if !slices.Equal(got.turned, turned) || !maps.Equal(got.cues, cues) || got.numbers != numbers {
			t.Fatalf("%q: read %v %v %d, each word %v %v %d", text, got.turned, got.cues, got.numbers, turned, cues, numbers)
		}
	}
}

// A reading spaced in view memory is the reading spaced, and stays so while the memory hands out more.
func TestSpacedInViewMemory(t *testing.T) {
	mem := new(viewMemory)
	var got, want []string
	for _, n := range append(readCorpus(t, "testdata/train.tsv")[:300], labelledNote{text: ""}) {
		words := newViews(n.text).leet
		got, want = append(got, mem.spaced(words)), append(want, spaced(words))
		if (*viewMemory)(nil).spaced(words) != spaced(words) {
			t.Fatalf("%q: spaced without memory differs", n.text)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatal("a reading spaced in view memory changed as the memory handed out more")
	}
}
