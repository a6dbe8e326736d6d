package screen

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// matcher is a pattern with a prefilter: literals of which every match contains at least one, derived from the
// pattern's syntax tree. A reading that holds none of them cannot match, and most notes hold none, so the
// regular expression runs rarely.
type matcher struct {
	re       *regexp.Regexp
	literals []string // nil: no prefilter could be derived; always run
	// span is the longest a match can be, in bytes, or -1 when unbounded or anchored to the text's ends: a bounded
	// match holds one of the literals, so it lies within span bytes of where that literal was found, and only
	// those windows of a long text need reading.
	span int
	// words, for a matcher of spaced texts whose span is unbounded ("\w+"), is the most spaces a match and one of
	// its literals can hold, or -1: a match lies within that many spaces of where its literal was found, so only
	// the words around it need reading.
	words int
}

// windowed reports whether the matcher can read windows of a text instead of all of it.
func (m matcher) windowed() bool { return m.span >= 0 || m.words >= 0 }

// newMatcher compiles a pattern. spaced says the texts it reads are words separated by single spaces and padded
// with one, where a word boundary is always a space: literals then carry it, and " not " no longer fires on "note".
func newMatcher(pattern string, spaced bool) matcher {
	re := regexp.MustCompile(pattern)
	m := matcher{re: re, span: -1, words: -1}
	if tree, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		x := extractor{spaced: spaced}
		m.literals = shrink(x.required(tree.Simplify()))
		m.span = maxSpan(tree.Simplify())
		if spaced && m.span < 0 {
			if n := maxSpaces(tree.Simplify()); n >= 0 {
				most := 0
				for _, l := range m.literals {
					most = max(most, strings.Count(l, " "))
				}
				m.words = n + most
			}
		}
	}
	return m
}

// maxSpaces is the most spaces a match of re can hold, or -1 when unbounded or anchored to the text's or a line's
// ends.
func maxSpaces(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		return strings.Count(string(re.Rune), " ")
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= ' ' && ' ' <= re.Rune[i+1] {
				return 1
			}
		}
		return 0
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return 1
	case syntax.OpCapture, syntax.OpQuest:
		return maxSpaces(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		if maxSpaces(re.Sub[0]) == 0 {
			return 0
		}
		return -1
	case syntax.OpRepeat:
		sub := maxSpaces(re.Sub[0])
		switch {
		case sub == 0:
			return 0
		case re.Max < 0 || sub < 0:
			return -1
		}
		return re.Max * sub
	case syntax.OpConcat, syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m := maxSpaces(sub)
			if m < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				n += m
			} else {
				n = max(n, m)
			}
		}
		return n
	}
	return -1 // the text's and lines' ends
}

// maxSpan is the most bytes a match of re can take, or -1 when it is unbounded or anchored to the text's or a
// line's ends (which a window of the text would move).
func maxSpan(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
			if re.Flags&syntax.FoldCase != 0 {
				n += 4 // a folded letter may match a longer encoding ("k" and the Kelvin sign)
			}
		}
		return n
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return 0
		}
		return utf8.RuneLen(min(re.Rune[len(re.Rune)-1], utf8.MaxRune)) // the ranges are sorted: the last ends highest
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxSpan(re.Sub[0])
	case syntax.OpRepeat:
		sub := maxSpan(re.Sub[0])
		if re.Max < 0 || sub < 0 {
			return -1
		}
		return re.Max * sub
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			m := maxSpan(sub)
			if m < 0 {
				return -1
			}
			n += m
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			m := maxSpan(sub)
			if m < 0 {
				return -1
			}
			n = max(n, m)
		}
		return n
	}
	return -1 // star, plus, the text's and lines' ends
}

type extractor struct{ spaced bool }

// shrink replaces a long list of literals by the longest word of each, when that word is at least three letters:
// a literal contains its words, so the list still admits every match, and it is far shorter to scan.
func shrink(lits []string) []string {
	if len(lits) <= 96 {
		return lits
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range lits {
		key := l
		for _, w := range strings.Fields(l) {
			if len(w) >= 3 && (key == l || len(w) > len(strings.TrimSpace(key))) {
				key = w
				// Keep the spaces around the word that the literal has: they stand for word boundaries, and
				// " earn " should not be found in "learn".
				i := strings.Index(l, w)
				if i > 0 && l[i-1] == ' ' {
					key = " " + key
				}
				if j := i + len(w); j < len(l) && l[j] == ' ' {
					key += " "
				}
			}
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, key)
		}
	}
	return out
}

// matcherSet finds, in one pass over a text, which of its matchers can match it: their literals are kept in a
// trie whose first level is indexed by the literals' first two bytes, so each position of the text costs one load
// and a walk of a few bytes, however many literals there are.
type matcherSet struct {
	matchers []matcher
	always   []int // matchers without a prefilter
	// byPair is, for each pair of bytes, the trie node reached by the literals that start with it, or 0.
	byPair []int32
	nodes  []trieNode
}

type trieNode struct {
	next []trieEdge
	ends []int // the matchers whose literal ends here
}

type trieEdge struct {
	b    byte
	node int32
}

func newMatcherSet(patterns []string, spaced bool) *matcherSet {
	ms := &matcherSet{byPair: make([]int32, 1<<16), nodes: make([]trieNode, 1)} // node 0: none
	for i, p := range patterns {
		m := newMatcher(p, spaced)
		ms.matchers = append(ms.matchers, m)
		if m.literals == nil {
			ms.always = append(ms.always, i)
			continue
		}
		for _, l := range m.literals {
			ms.add(l, i)
		}
	}
	return ms
}

// add puts literal l of matcher i in the trie.
func (ms *matcherSet) add(l string, i int) {
	key := pair(l, 0)
	if ms.byPair[key] == 0 {
		ms.nodes = append(ms.nodes, trieNode{})
		ms.byPair[key] = int32(len(ms.nodes) - 1)
	}
	n := ms.byPair[key]
	for j := 2; j < len(l); j++ {
		k := slices.IndexFunc(ms.nodes[n].next, func(e trieEdge) bool { return e.b == l[j] })
		if k < 0 {
			ms.nodes = append(ms.nodes, trieNode{})
			ms.nodes[n].next = append(ms.nodes[n].next, trieEdge{l[j], int32(len(ms.nodes) - 1)})
			k = len(ms.nodes[n].next) - 1
		}
		n = ms.nodes[n].next[k].node
	}
	if !slices.Contains(ms.nodes[n].ends, i) {
		ms.nodes[n].ends = append(ms.nodes[n].ends, i)
	}
}

// pair is the two bytes of s at i, as one number.
func pair(s string, i int) uint16 { return uint16(s[i])<<8 | uint16(s[i+1]) }

// walk calls found for every matcher with a literal that starts at i in s.
func (ms *matcherSet) walk(s string, i int, found func(matcher int)) {
	n := ms.byPair[pair(s, i)]
	for j := i + 2; n != 0; j++ {
		for _, m := range ms.nodes[n].ends {
			found(m)
		}
		if j >= len(s) {
			return
		}
		next := int32(0)
		for _, e := range ms.nodes[n].next {
			if e.b == s[j] {
				next = e.node
				break
			}
		}
		n = next
	}
}

// candidates reports, per matcher, whether it can match s.
func (ms *matcherSet) candidates(s string) []bool {
	can := make([]bool, len(ms.matchers))
	for _, i := range ms.always {
		can[i] = true
	}
	for i := 0; i+1 < len(s); i++ {
		if ms.byPair[pair(s, i)] != 0 {
			ms.walk(s, i, func(m int) { can[m] = true })
		}
	}
	return can
}

// remove joins words into one line, padded with spaces, and takes out every match of the set. A matcher whose
// matches are bounded replaces within the windows around its literals only (every match lies in one); when it
// changes the line, where the literals are is found again for the matchers after it.
func (ms *matcherSet) remove(words []string) string {
	s := " " + strings.Join(words, " ") + " "
	hits := ms.hits(s)
	for i, m := range ms.matchers {
		h := hits[i]
		if h == nil {
			continue
		}
		var out string
		if !m.windowed() || len(h) == 0 || len(s) <= 4*m.span {
			out = m.re.ReplaceAllString(s, " ")
		} else {
			out = windowsReplace(m, s, h)
		}
		if out != s {
			s = out
			hits = ms.hits(s)
		}
	}
	return s
}

// windows calls each with the windows of s around the literal hits of m: span bytes either side of a hit (and the
// literal), or the words that a match holding the hit can reach, widened to spaces, so that every match that holds the hit lies in its window and a word boundary at a
// window's edge is one in s; overlapping windows are one. It stops when each returns false.
func windows(m matcher, s string, hits []int, each func(lo, hi int) bool) {
	lo, hi := -1, -1
	for _, at := range hits {
		var a, b int
		if m.span >= 0 {
			a, b = max(0, at-m.span), min(len(s), at+2*m.span+2) // a literal is at most a match and its two spaces
		} else { // words+1 spaces either side: the match, and the space its literal may start with
			a, b = at, at
			for n := 0; a > 0 && n <= m.words+1; a-- {
				if s[a-1] == ' ' {
					n++
				}
			}
			for n := 0; b < len(s) && n <= m.words+1; b++ {
				if s[b] == ' ' {
					n++
				}
			}
		}
		for a > 0 && s[a-1] != ' ' {
			a--
		}
		for b < len(s) && s[b] != ' ' {
			b++
		}
		if lo >= 0 && a <= hi {
			hi = max(hi, b)
			continue
		}
		if lo >= 0 && !each(lo, hi) {
			return
		}
		lo, hi = a, b
	}
	if lo >= 0 {
		each(lo, hi)
	}
}

// windowsReplace replaces every match of m in s by a space, reading only the windows around the literal hits.
func windowsReplace(m matcher, s string, hits []int) string {
	var b strings.Builder
	last := 0
	windows(m, s, hits, func(lo, hi int) bool {
		if w := s[lo:hi]; m.re.MatchString(w) {
			b.WriteString(s[last:lo])
			b.WriteString(m.re.ReplaceAllString(w, " "))
			last = hi
		}
		return true
	})
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// first returns the index of the first matcher (in order) that matches s, or -1. A matcher whose matches are
// bounded reads only the windows around where its literals were found, each widened to the spaces around it so
// that a word boundary at a window's edge is one in s too: on a long note that is a fraction of the text.
func (ms *matcherSet) first(s string) int { return ms.firstOf(s) }

// firstOf is first over several readings of one text: the index of the first matcher that matches any of them.
// Readings of one note are mostly the same text, so a window read once for one reading is not read again.
func (ms *matcherSet) firstOf(readings ...string) int {
	hits := make([][][]int, len(readings)) // per reading, per matcher, where its literals start, in order
	for r, s := range readings {
		hits[r] = ms.hits(s)
	}
	read := map[windowKey]bool{} // the windows read and found not to match
	try := func(i int, w string) bool {
		k := windowKey{i, w}
		if read[k] {
			return false
		}
		if ms.matchers[i].re.MatchString(w) {
			return true
		}
		read[k] = true
		return false
	}
	for i, m := range ms.matchers {
		for r, s := range readings {
			h := hits[r][i]
			switch {
			case h == nil:
				continue
			case !m.windowed() || len(h) == 0 || len(s) <= 4*m.span:
				if try(i, s) {
					return i
				}
			case windowsMatch(m, s, h, func(w string) bool { return try(i, w) }):
				return i
			}
		}
	}
	return -1
}

type windowKey struct {
	matcher int
	text    string
}

// hits returns, per matcher, where its literals start in s (nil: nowhere; empty: a matcher without literals).
func (ms *matcherSet) hits(s string) [][]int {
	hits := make([][]int, len(ms.matchers))
	for i := 0; i+1 < len(s); i++ {
		if ms.byPair[pair(s, i)] == 0 {
			continue
		}
		ms.walk(s, i, func(m int) {
			if h := hits[m]; len(h) == 0 || h[len(h)-1] != i {
				hits[m] = append(h, i)
			}
		})
	}
	for _, i := range ms.always {
		hits[i] = []int{}
	}
	return hits
}

// windowsMatch reports whether match is true of one of the windows of s around the literal hits of m.
func windowsMatch(m matcher, s string, hits []int, match func(string) bool) bool {
	found := false
	windows(m, s, hits, func(lo, hi int) bool {
		found = match(s[lo:hi])
		return !found
	})
	return found
}

// firstUnfiltered is first without literals or windows: every matcher reads all of s. Tests compare the two.
func (ms *matcherSet) firstUnfiltered(s string) int {
	for i, m := range ms.matchers {
		if m.re.MatchString(s) {
			return i
		}
	}
	return -1
}

// firstWhole is first without windows: every candidate reads all of s. Tests compare the two.
func (ms *matcherSet) firstWhole(s string) int {
	can := ms.candidates(s)
	for i, m := range ms.matchers {
		if can[i] && m.re.MatchString(s) {
			return i
		}
	}
	return -1
}

const maxLiterals = 512

// exact returns the finite set of strings re matches, when there is one of at most maxLiterals strings.
func (x extractor) exact(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpWordBoundary:
		if x.spaced {
			return []string{" "}, true
		}
		return []string{""}, true
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
		return []string{""}, true
	case syntax.OpCapture:
		return x.exact(re.Sub[0])
	case syntax.OpQuest:
		s, ok := x.exact(re.Sub[0])
		return append(s, ""), ok && len(s) < maxLiterals
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) >= 8 {
					return nil, false
				}
				out = append(out, string(r))
			}
		}
		return out, true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s, ok := x.exact(sub)
			if !ok || len(out)+len(s) > maxLiterals {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			s, ok := x.exact(sub)
			if !ok || len(out)*len(s) > maxLiterals {
				return nil, false
			}
			out = cross(out, s)
		}
		return out, true
	}
	return nil, false
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}

// required returns literals of which every match of re contains one, or nil when it cannot tell.
func (x extractor) required(re *syntax.Regexp) []string {
	if s, ok := x.exact(re); ok {
		if minLen(s) >= 2 {
			return s
		}
		return nil
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return x.required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return x.required(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s := x.required(sub)
			if s == nil {
				return nil
			}
			out = append(out, s...)
		}
		return out
	case syntax.OpConcat:
		// Runs of children with exact sets are joined into longer literals; the best set is the one whose
		// shortest literal is longest.
		var best []string
		run := []string{""}
		consider := func(s []string) {
			if len(s) > 0 && minLen(s) >= 2 && (best == nil || minLen(s) > minLen(best)) {
				best = s
			}
		}
		for _, sub := range re.Sub {
			if s, ok := x.exact(sub); ok && len(run)*len(s) <= maxLiterals {
				run = cross(run, s)
				continue
			}
			consider(run)
			// The run continues into how sub can begin: the parser factors alternatives by their common prefix
			// ("fck|fcuk" is "f(?:ck|cuk)"), which leaves short pieces on both sides.
			if lead := x.leading(sub); len(run)*len(lead) <= maxLiterals {
				consider(cross(run, lead))
			}
			run = []string{""}
			consider(x.required(sub))
		}
		consider(run)
		return best
	}
	return nil
}

// leading returns strings of which every match of re starts with one (the empty string when it cannot tell more).
func (x extractor) leading(re *syntax.Regexp) []string {
	if s, ok := x.exact(re); ok {
		return s
	}
	switch re.Op {
	case syntax.OpCapture, syntax.OpPlus:
		return x.leading(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return x.leading(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			out = append(out, x.leading(sub)...)
			if len(out) > maxLiterals {
				return []string{""}
			}
		}
		return out
	case syntax.OpConcat:
		run := []string{""}
		for _, sub := range re.Sub {
			if s, ok := x.exact(sub); ok && len(run)*len(s) <= maxLiterals {
				run = cross(run, s)
				continue
			}
			if lead := x.leading(sub); len(run)*len(lead) <= maxLiterals {
				return cross(run, lead)
			}
			return run
		}
		return run
	}
	return []string{""}
}

// minLen is the length of the shortest literal, not counting the spaces that stand for word boundaries.
func minLen(s []string) int {
	m := -1
	for _, x := range s {
		if n := len(strings.TrimSpace(x)); m < 0 || n < m {
			m = n
		}
	}
	return m
}
