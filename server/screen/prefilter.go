package screen

import (
	"maps"
	"math"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
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
	// before and after, when not -1, are the most spaces a match holds before and after the start of the literal
	// it was found by, where the pattern is a sequence and the literals are those of one of its parts: "\bi (\w+
	// ){0,3}kill\w* <people>" reaches four words back from "kill" and as many forward as its people have, where
	// words alone would read the whole pattern's width on both sides.
	before, after int
	// anchored, when every match starts with one of the literals (as found: with the word boundary it starts
	// with checked), is the pattern anchored at its start: a hit is tried where it is, where the pattern unanchored
	// would try every position of its window ("\bkill\w{0,4}\s(?:\S{1,24}\s){0,3}workers?..." cost 13 us a note
	// read so).
	anchored *regexp.Regexp
	starts   []start // the literals matches start with, when they are not the matcher's literals
	// unanchored compiles the pattern as written, for a matcher whose re is nil because it is anchored: only the
	// texts with too many starts (hostile ones) read it, so it is compiled when one first does, and a set does not
	// hold two programs of its thousand patterns (11 MB).
	unanchored func() *regexp.Regexp
}

// regexp is the matcher's pattern as written.
func (m matcher) regexp() *regexp.Regexp {
	if m.re != nil {
		return m.re
	}
	return m.unanchored()
}

// start is a literal that matches start with, with the word boundaries it starts and ends with (as in trieEnd).
type start struct {
	text             string
	bounded, boundEd bool
}

// windowed reports whether the matcher can read windows of a text instead of all of it.
func (m matcher) windowed() bool { return m.span >= 0 || m.words >= 0 }

// newMatcher compiles a pattern. spaced says the texts it reads are words separated by single spaces and padded
// with one, where a match's words are bounded by spaces (see bound). Literals carry the pattern's word boundaries,
// checked where they are found: "\bnot\b" does not fire on "note".
func newMatcher(pattern string, spaced bool) matcher {
	m := matcher{re: regexp.MustCompile(pattern), span: -1, words: -1, before: -1, after: -1}
	if tree, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		x := extractor{}
		m.literals = shrink(x.required(tree.Simplify()))
		m.bound(tree, spaced, m.literals)
		m.anchor(pattern, tree)
	}
	return m
}

// anchor sets m.anchored when every match of pattern (parsed as tree) starts with one of a few literals, and
// m.starts to them when they are not m's own (its literals are then the rarer words a match holds, and the starts
// are looked for only when one of those is found). Not for patterns with ^ or \B, which read what stands before a
// match's start.
func (m *matcher) anchor(pattern string, tree *syntax.Regexp) {
	m.anchored, m.starts = nil, nil
	if len(m.literals) == 0 || readsBefore(tree) {
		return
	}
	set := func(l []string) []string { return slices.Compact(slices.Sorted(slices.Values(l))) }
	lead := set(extractor{}.leading(tree.Simplify()))
	if len(lead) > maxStarts {
		// Too many to look for ("\bkil(?:ed|ing|s)? (?:the|a|an|this|...) "): their first bytes, as few as are few
		// enough ("\bkil"), are what matches start with too; each is looked for on its own, so few.
		lead = prefixes(lead, maxStarts/4)
	}
	// A lead must hold text, and a word boundary it starts with must come before an ASCII word character: read
	// from the lead's start, the pattern sees no text before it, and \b there holds only before a word character
	// (the trie's check of "\bтелефон" holds after a word character, where the read's \b would not).
	unfit := func(l string) bool {
		return strings.Trim(l, string(boundary)) == "" || l[0] == boundary && (len(l) < 2 || !isWordByte(l[1]))
	}
	if len(lead) == 0 || len(lead) > maxStarts || slices.ContainsFunc(lead, unfit) {
		return
	}
	if !slices.Equal(lead, set(m.literals)) {
		for _, l := range lead {
			// Within, a boundary is checked by the pattern.
			m.starts = append(m.starts, start{strings.ReplaceAll(l, string(boundary), ""), l[0] == boundary, l[len(l)-1] == boundary})
		}
	}
	m.anchored = regexp.MustCompile(`^(?:` + pattern + `)`)
	m.re, m.unanchored = nil, sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// prefixes cuts literals to their first bytes, as many as leave at most n different ones, or returns nil.
func prefixes(literals []string, n int) []string {
	longest := 0
	for _, l := range literals {
		longest = max(longest, len(l))
	}
	for ; longest > 1; longest-- {
		cut := map[string]bool{}
		for _, l := range literals {
			cut[l[:min(len(l), longest)]] = true
		}
		if len(cut) <= n {
			return slices.Sorted(maps.Keys(cut))
		}
	}
	return nil
}

// maxStarts is the most literals a matcher looks for where its matches can start, beside its own.
const maxStarts = 16

// readsBefore reports a pattern that asserts something of the text before a position other than through a word
// boundary its literals hold: the starts of texts and lines, and \B.
func readsBefore(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpNoWordBoundary:
		return true
	}
	return slices.ContainsFunc(re.Sub, readsBefore)
}

// sides returns the most spaces a match of re holds before and after the start of the literal it is found by, or
// -1, -1 when it cannot tell. In a sequence, the literals of one part (each of them one of literals, as written or
// as shrink keeps it) start inside that part's text: the parts before and after it bound the two sides, and the
// part itself as far as its own sides tell; literals that every match of the parts from one on starts with start
// where that part does. Each branch of an alternation has its own.
func sides(re *syntax.Regexp, literals []string) (int, int) {
	set := map[string]bool{}
	for _, l := range literals {
		set[l] = true
	}
	return sidesIn(unwrap(re), set)
}

func sidesIn(re *syntax.Regexp, literals map[string]bool) (int, int) {
	switch re.Op {
	case syntax.OpAlternate:
		before, after := 0, 0
		for _, sub := range re.Sub {
			b, a := sidesIn(unwrap(sub), literals)
			if b < 0 {
				return -1, -1
			}
			before, after = max(before, b), max(after, a)
		}
		return before, after
	case syntax.OpConcat:
		x := extractor{}
		covered := func(lits []string) bool {
			return len(lits) > 0 && !slices.ContainsFunc(lits, func(l string) bool { return !literals[l] && !literals[shrunk(l)] })
		}
		for k, sub := range re.Sub {
			if !covered(x.required(sub)) && !covered(x.leading(sub)) {
				continue
			}
			pre := maxSpaces(&syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[:k]})
			in := maxSpaces(sub)
			post := maxSpaces(&syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[k+1:]})
			if pre < 0 || in < 0 || post < 0 {
				return -1, -1
			}
			b, a := sidesIn(unwrap(sub), literals)
			if b < 0 {
				b, a = in, in
			}
			return pre + b, a + post
		}
		// Or the literals run across parts ("\bwe wil kil" of "\bwe ?(?:wil)? ?kil\w* you"): every match of the
		// parts from the one they start at begins with one of them.
		for k := range re.Sub {
			tail := &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[k:]}
			if !covered(x.leading(tail)) {
				continue
			}
			pre, post := maxSpaces(&syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[:k]}), maxSpaces(tail)
			if pre < 0 || post < 0 {
				return -1, -1
			}
			return pre, post
		}
	}
	return -1, -1
}

// bound sets the span of a matcher of tree and, for spaced texts, the words around a hit of one of literals that
// a match can reach.
func (m *matcher) bound(tree *syntax.Regexp, spaced bool, literals []string) {
	m.span, m.words, m.before, m.after = maxSpan(tree.Simplify()), -1, -1, -1
	if spaced && m.span < 0 {
		if n := maxSpaces(tree.Simplify()); n >= 0 {
			most := 0
			for _, l := range literals {
				most = max(most, strings.Count(l, " "))
			}
			m.words = n + most
			m.before, m.after = sides(tree.Simplify(), literals)
		}
	}
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

type extractor struct{}

// shrink replaces a long list of literals by the longest word of each, when that word is at least three letters:
// a literal contains its words, so the list still admits every match, and it is far shorter to scan.
func shrink(lits []string) []string {
	if len(lits) <= 96 {
		return lits
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range lits {
		if key := shrunk(l); !seen[key] {
			seen[key] = true
			out = append(out, key)
		}
	}
	return out
}

// shrunk is what shrink keeps of literal l: its longest word of three letters or more, with the spaces around it.
func shrunk(l string) string {
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
	return key
}

// matcherSet finds, in one pass over a text, which of its matchers can match it: their literals are kept in a
// trie whose first level is indexed by the literals' first two bytes, so each position of the text costs one load
// and a walk of a few bytes, however many literals there are. A pattern that is an alternation is kept as one
// matcher per branch (see branches), each with its own literals and a small program: a text matches the pattern
// where it matches one of them, and a set that replaces matches runs the pattern whole only where one does.
type matcherSet struct {
	matchers []matcher
	origin   []int // per matcher, the index of its pattern
	// wholes is the patterns whole, with the span and words of their branches' literals: what replace runs, and
	// what the tests compare the branches with.
	wholes []matcher
	always []int // matchers without a prefilter
	// byPair is, for each pair of bytes, the trie node reached by the literals that start with it, or 0, while the
	// trie is built. freeze keeps only the pairs that literals start with, in the order of their bits in starting
	// (pairNodes), and how many bits each word of starting follows (pairsBefore): 256 KB a set would take the
	// cache from the rest of the screen, where these take a few.
	byPair      []int32
	pairNodes   []int32
	pairsBefore *[1 << 10]uint32
	// starting has a bit set for each pair of bytes that literals start with: 8 KB, where byPair is 256, so that
	// the pairs of a text that start none (most) are ruled out from the nearest cache.
	starting *[1 << 10]uint64
	// threes has a bit set for each hash of the first three bytes of a literal (every third byte, for a literal
	// of two): it rules out most positions before their pair is read (see threeBits).
	threes *[1 << (threeBits - 6)]uint64
	// trie is the trie packed, each node one run of words: how many ends and edges it has (a word of two halves),
	// its ends (a matcher and its boundaries: see packEnd), and its edges (a byte and the node it leads to, the
	// node's place in trie: see packEdge). A step of a walk reads one run, mostly one cache line, where a node
	// and its edges in arrays of their own were two lines apart; and nothing in it is a pointer, for the garbage
	// collector to read. The node at 0 is none.
	trie []uint32
	// building is the trie as add grows it, one slice per node, until freeze packs it into trie.
	building []buildNode
	// literals is every literal added to the trie, with its matcher: what a setGroup builds its own trie of.
	literals []trieLiteral
}

type trieLiteral struct {
	text    string // as add takes it, with its boundaries
	matcher int
}

type buildNode struct {
	next []trieEdge
	ends []trieEnd // the matchers whose literal ends here
}

type trieEdge struct {
	b    byte
	node int32
}

// trieEnd is a matcher whose literal ends at a node, and whether the literal starts or ends at a word boundary
// (\b): "earn" found in "learn" is no hit of "\bearn".
type trieEnd struct {
	matcher          int32
	bounded, boundEd bool
}

// newTrie is a set with an empty trie (node 0: none), for add.
func newTrie() *matcherSet {
	return &matcherSet{byPair: make([]int32, 1<<16), starting: new([1 << 10]uint64), threes: new([1 << (threeBits - 6)]uint64), building: make([]buildNode, 1)}
}

// freeze packs the trie add grew into trie, and ranks the pairs its literals start with.
func (ms *matcherSet) freeze() {
	at := make([]uint32, len(ms.building)) // where each node's run starts in trie
	size := uint32(0)
	for i, b := range ms.building {
		if len(b.next) > math.MaxUint16 || len(b.ends) > math.MaxUint16 {
			panic("a trie node too large to pack")
		}
		at[i] = size
		size += 1 + uint32(len(b.ends)) + uint32(len(b.next))
	}
	if size >= 1<<24 {
		panic("a trie too large to pack")
	}
	ms.trie = make([]uint32, 0, size)
	for _, b := range ms.building {
		ms.trie = append(ms.trie, uint32(len(b.ends))|uint32(len(b.next))<<16)
		for _, e := range b.ends {
			ms.trie = append(ms.trie, packEnd(e))
		}
		for _, e := range b.next {
			ms.trie = append(ms.trie, uint32(e.b)|at[e.node]<<8)
		}
	}
	ms.building = nil
	ms.pairsBefore = new([1 << 10]uint32)
	for w, word := range ms.starting {
		ms.pairsBefore[w] = uint32(len(ms.pairNodes))
		for ; word != 0; word &= word - 1 {
			ms.pairNodes = append(ms.pairNodes, int32(at[ms.byPair[w<<6|bits.TrailingZeros64(word)]]))
		}
	}
	ms.byPair = nil
}

// packEnd is an end as trie holds it: its matcher, and whether its literal starts (bit 0) and ends (bit 1) at a
// word boundary.
func packEnd(e trieEnd) uint32 {
	if e.matcher < 0 || e.matcher >= 1<<30 {
		panic("a matcher too large to pack")
	}
	w := uint32(e.matcher) << 2
	if e.bounded {
		w |= 1
	}
	if e.boundEd {
		w |= 2
	}
	return w
}

// pairNode is the node of the literals that start with the pair of bytes p, which one does (begins(p)).
func (ms *matcherSet) pairNode(p uint16) int32 {
	w := p >> 6
	return ms.pairNodes[ms.pairsBefore[w]+uint32(bits.OnesCount64(ms.starting[w]&(1<<(p&63)-1)))]
}

// newMatcherSet compiles patterns for texts that are spaced (see newMatcher) or not.
func newMatcherSet(patterns []string, spaced bool) *matcherSet {
	ms := newTrie()
	for i, p := range patterns {
		var literals []string
		for _, m := range grouped(p, branches(p), spaced) {
			ms.matchers = append(ms.matchers, m)
			ms.origin = append(ms.origin, i)
			if m.literals == nil {
				ms.always = append(ms.always, len(ms.matchers)-1)
				continue
			}
			literals = append(literals, m.literals...)
			for _, l := range m.literals {
				ms.add(l, len(ms.matchers)-1)
			}
		}
		whole := matcher{re: regexp.MustCompile(p)}
		whole.bound(mustParse(p), spaced, literals)
		ms.wholes = append(ms.wholes, whole)
	}
	ms.freeze()
	return ms
}

// grouped compiles the branches of a pattern, and joins again those with the same literals: a hit of one of them
// would run them all.
func grouped(pattern string, parts []string, spaced bool) []matcher {
	var out []matcher
	var members [][]string
	index := map[string]int{}
	for _, part := range parts {
		m := newMatcher(part, spaced)
		key := strings.Join(slices.Sorted(slices.Values(m.literals)), "\x00")
		if m.literals == nil {
			key = "\x00always"
		}
		if i, ok := index[key]; ok {
			members[i] = append(members[i], part)
			continue
		}
		index[key] = len(out)
		out = append(out, m)
		members = append(members, []string{part})
	}
	if len(out) == 1 && len(parts) > 1 { // no branch has literals of its own: the pattern whole is smaller
		return []matcher{newMatcher(pattern, spaced)}
	}
	for i, parts := range members {
		if len(parts) == 1 {
			continue
		}
		joined := "(?:" + strings.Join(parts, ")|(?:") + ")"
		m := matcher{re: regexp.MustCompile(joined), literals: out[i].literals}
		m.bound(mustParse(joined), spaced, m.literals)
		m.anchor(joined, mustParse(joined))
		out[i] = m
	}
	return out
}

// maxBranches bounds how many matchers one pattern becomes.
const maxBranches = 256

// branches returns patterns whose matches together are the pattern's: the branches of its alternations, with
// what stands before and after them in a concatenation ("\b(?:kill|shoot) you\b" is "\bkill you\b" and
// "\bshoot you\b"), splitting the alternation a concatenation starts with and then each part again, up to
// maxBranches parts.
func branches(pattern string) []string {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return []string{pattern}
	}
	parts := splitAlternation(tree, maxBranches)
	out := make([]string, len(parts))
	written := map[*syntax.Regexp]string{} // the branches share most of their nodes; String is slow on wide classes
	for i, p := range parts {
		if p.Op != syntax.OpConcat {
			out[i] = p.String()
			continue
		}
		var b strings.Builder
		for _, sub := range p.Sub {
			w, ok := written[sub]
			if !ok {
				w = sub.String()
				written[sub] = w
			}
			b.WriteString("(?:" + w + ")")
		}
		out[i] = b.String()
	}
	return out
}

func splitAlternation(re *syntax.Regexp, budget int) []*syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	switch re.Op {
	case syntax.OpAlternate:
		if len(re.Sub) > budget {
			return []*syntax.Regexp{re}
		}
		var out []*syntax.Regexp
		for i, sub := range re.Sub {
			parts := splitAlternation(sub, budget-len(out)-(len(re.Sub)-i-1))
			out = append(out, parts...)
		}
		return out
	case syntax.OpConcat:
		// The alternation it starts with, after the boundaries and anchors: the branches' literals start there,
		// where the others' are what they all share, and would make each branch a copy of the rest.
		lead := slices.IndexFunc(re.Sub, func(sub *syntax.Regexp) bool {
			switch sub.Op {
			case syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginLine, syntax.OpBeginText, syntax.OpEmptyMatch:
				return false
			}
			return true
		})
		if lead < 0 || unwrap(re.Sub[lead]).Op != syntax.OpAlternate || len(unwrap(re.Sub[lead]).Sub) > budget {
			return []*syntax.Regexp{re}
		}
		alts := unwrap(re.Sub[lead]).Sub
		var out []*syntax.Regexp
		for i, alt := range alts {
			c := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags}
			c.Sub = append(append(append([]*syntax.Regexp{}, re.Sub[:lead]...), alt), re.Sub[lead+1:]...)
			out = append(out, splitAlternation(c, budget-len(out)-(len(alts)-i-1))...)
		}
		return out
	}
	return []*syntax.Regexp{re}
}

// mustParse parses a pattern that has compiled.
func mustParse(pattern string) *syntax.Regexp {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		panic(err)
	}
	return tree
}

// unwrap is re without the capturing groups around it.
func unwrap(re *syntax.Regexp) *syntax.Regexp {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	return re
}

// add puts literal l of matcher i in the trie.
func (ms *matcherSet) add(l string, i int) {
	ms.literals = append(ms.literals, trieLiteral{l, i})
	end := trieEnd{matcher: int32(i), bounded: l[0] == boundary, boundEd: l[len(l)-1] == boundary}
	l = strings.ReplaceAll(l, string(boundary), "") // within, a boundary is not checked: the literal still holds
	key := pair(l, 0)
	if len(l) == 2 {
		for c := range 256 { // a literal of two bytes starts wherever its pair stands, before any third
			ms.setThree(key, byte(c))
		}
	} else {
		ms.setThree(key, l[2])
	}
	nodes := ms.building
	if ms.byPair[key] == 0 {
		ms.starting[key>>6] |= 1 << (key & 63)
		nodes = append(nodes, buildNode{})
		ms.byPair[key] = int32(len(nodes) - 1)
	}
	n := ms.byPair[key]
	for j := 2; j < len(l); j++ {
		k := slices.IndexFunc(nodes[n].next, func(e trieEdge) bool { return e.b == l[j] })
		if k < 0 {
			nodes = append(nodes, buildNode{})
			nodes[n].next = append(nodes[n].next, trieEdge{l[j], int32(len(nodes) - 1)})
			k = len(nodes[n].next) - 1
		}
		n = nodes[n].next[k].node
	}
	if !slices.Contains(nodes[n].ends, end) {
		nodes[n].ends = append(nodes[n].ends, end)
	}
	ms.building = nodes
}

// boundary stands in a literal for a word boundary (\b), which its hits are checked for.
const boundary = '\x01'

// atBoundary reports whether s has a word boundary before byte i, as \b has it: an ASCII word character on one
// side only.
func atBoundary(s string, i int) bool {
	return (i > 0 && isWordByte(s[i-1])) != (i < len(s) && isWordByte(s[i]))
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// pair is the two bytes of s at i, as one number.
func pair(s string, i int) uint16 { return uint16(s[i])<<8 | uint16(s[i+1]) }

// begins reports whether a literal starts with the pair of bytes p.
func (ms *matcherSet) begins(p uint16) bool { return ms.starting[p>>6]&(1<<(p&63)) != 0 }

// three is the bit of threes for a pair of bytes p followed by byte c.
func three(p uint16, c byte) uint32 {
	return (uint32(p)<<8 | uint32(c)) * 0x9E3779B1 >> (32 - threeBits)
}

// threeBits sets the size of threes: 2^14 bits, 2 KB. The largest set's literals start with a few hundred
// different three bytes (and its two-byte literals set 256 bits each): a few percent of the bits are set, and a
// position of a note reads one cache line of it.
const threeBits = 14

func (ms *matcherSet) setThree(p uint16, c byte) { t := three(p, c); ms.threes[t>>6] |= 1 << (t & 63) }

// startsAt reports whether a literal can start at byte i of s: a literal starts with its first two bytes, and one
// starts with its first three (or is two bytes long). Most positions of a text whose pair starts a literal ("th",
// "e ") are ruled out by the third byte, without walking the trie.
func (ms *matcherSet) startsAt(s string, i int) bool {
	p := pair(s, i)
	if i+2 < len(s) { // the three bytes first: they rule out more, and a bit of threes is set for every pair's
		if t := three(p, s[i+2]); ms.threes[t>>6]&(1<<(t&63)) == 0 {
			return false
		}
	}
	return ms.begins(p)
}

// walk calls found for every matcher with a literal that starts at i in s, where startsAt(s, i).
func (ms *matcherSet) walk(s string, i int, found func(matcher int)) {
	n := uint32(ms.pairNode(pair(s, i)))
	for j := i + 2; n != 0; j++ {
		head := ms.trie[n]
		ends := ms.trie[n+1 : n+1+head&0xFFFF]
		for _, e := range ends {
			if (e&1 == 0 || atBoundary(s, i)) && (e&2 == 0 || atBoundary(s, j)) {
				found(int(e >> 2))
			}
		}
		if j >= len(s) {
			return
		}
		edges := ms.trie[n+1+head&0xFFFF : n+1+head&0xFFFF+head>>16]
		next := uint32(0)
		for _, e := range edges {
			if byte(e) == s[j] {
				next = e >> 8
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
		if ms.startsAt(s, i) {
			ms.walk(s, i, func(m int) { can[m] = true })
		}
	}
	return can
}

// anyHit reports whether one of the matchers can match s: mayMatch of a set of one pattern, without its memory.
func (ms *matcherSet) anyHit(s string) bool {
	if len(ms.always) > 0 {
		return true
	}
	found := false
	for i := 0; i+1 < len(s) && !found; i++ {
		if ms.startsAt(s, i) {
			ms.walk(s, i, func(int) { found = true })
		}
	}
	return found
}

// mayMatch reports, per pattern, whether one of its matchers can match s.
func (ms *matcherSet) mayMatch(s string) []bool {
	can := make([]bool, len(ms.wholes))
	for i, c := range ms.candidates(s) {
		can[ms.origin[i]] = can[ms.origin[i]] || c
	}
	return can
}

// remove joins words into one line, padded with spaces, and takes out every match of the set. A matcher whose
// matches are bounded replaces within the windows around its literals only (every match lies in one); when it
// changes the line, where the literals are is found again for the matchers after it.
func (ms *matcherSet) remove(words []string) string { return ms.replace(spaced(words)) }

// spaced is words as the rules read them: one line, single spaces, padded with one.
func spaced(words []string) string {
	if len(words) == 0 {
		return "  " // the padding of both sides
	}
	n := len(words) + 1
	for _, w := range words {
		n += len(w)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(' ')
	for _, w := range words {
		b.WriteString(w)
		b.WriteByte(' ')
	}
	return b.String()
}

// replace replaces every match of the set in s by a space, each matcher in turn.
func (ms *matcherSet) replace(s string) string { return ms.replaceIn(s, nil) }

// replaceIn is replace, remembering in mm what it finds in each window: the readings of one note are mostly the
// same text, and most of their windows the same windows.
func (ms *matcherSet) replaceIn(s string, mm *memo) string { return ms.replaceHits(s, ms.hits(s), mm) }

// replaceHits is replaceIn, given the set's hits in s.
func (ms *matcherSet) replaceHits(s string, hits literalHits, mm *memo) string {
	for k := 0; k < len(hits); {
		p := ms.origin[hits[k].matcher]
		e := k
		for e < len(hits) && ms.origin[hits[e].matcher] == p {
			e++
		}
		h := hits[k:e]
		k = e
		if !ms.branchMatches(s, h, mm) { // the branches are small and precise; the pattern whole runs only where one matched
			continue
		}
		at := slices.Clone(h) // the windows are around the hits of every branch, in the order of where they are
		slices.SortFunc(at, func(a, b hit) int { return a.at - b.at })
		at = slices.CompactFunc(at, func(a, b hit) bool { return a.at == b.at })
		var out string
		if m := ms.wholes[p]; !m.windowed() || at[0].at < 0 || len(s) <= 4*m.span {
			out = m.re.ReplaceAllString(s, " ")
		} else {
			out = windowsReplace(m, s, at, func(w string) string {
				return mm.replaced(p, w, func(w string) string {
					if m.re.MatchString(w) {
						return m.re.ReplaceAllString(w, " ")
					}
					return w
				})
			})
		}
		if out != s {
			s = out
			hits = ms.hits(s)
			k = slices.IndexFunc(hits, func(h hit) bool { return ms.origin[h.matcher] > p })
			if k < 0 {
				break
			}
		}
	}
	return s
}

// branchMatches reports whether one of the matchers of hits (in the order of their matchers) matches s, reading
// the windows around their hits.
func (ms *matcherSet) branchMatches(s string, hits literalHits, mm *memo) bool {
	for k := 0; k < len(hits); {
		h := hits[k:hits.end(k)]
		k += len(h)
		m := ms.matchers[h[0].matcher]
		if m.anchored != nil && h[0].at >= 0 {
			anchored := func(w string) bool { return mm.matches(2*h[0].matcher+1, w, m.anchored.MatchString) }
			if found, done := startsMatch(m, s, h, anchored); found {
				return true
			} else if done {
				continue
			}
		}
		switch {
		case !m.windowed() || h[0].at < 0 || len(s) <= 4*m.span:
			if m.regexp().MatchString(s) {
				return true
			}
		case windowsMatch(m, s, h, func(w string) bool { return mm.matches(2*h[0].matcher, w, m.regexp().MatchString) }):
			return true
		}
	}
	return false
}

// memo remembers what the matchers of one set found in the texts of one note: whether a matcher matched a window
// (keyed by the matcher's index, twice, plus one when anchored), and what a pattern left of one (by the pattern's
// index). Its keys are the set's indexes: a memo serves one set.
type memo struct {
	found []memoEntry[bool]
	left  []memoEntry[string]
}

// maxRemembered is the most entries a memo keeps of each kind.
const maxRemembered = 64

type memoEntry[T any] struct {
	key   int
	text  string
	value T
}

// matches is match(text) for matcher key, remembered.
func (mm *memo) matches(key int, text string, match func(string) bool) bool {
	if mm == nil {
		return match(text)
	}
	return recall(&mm.found, key, text, match)
}

// replaced is replace(text) for pattern key, remembered.
func (mm *memo) replaced(key int, text string, replace func(string) string) string {
	if mm == nil {
		return replace(text)
	}
	return recall(&mm.left, key, text, replace)
}

// recall is f(text) for key, as found before among entries or found now and added to them.
func recall[T any](entries *[]memoEntry[T], key int, text string, f func(string) T) T {
	for _, e := range *entries {
		if e.key == key && e.text == text {
			return e.value
		}
	}
	v := f(text)
	if len(*entries) < maxRemembered { // each lookup reads the list: a note of many windows is not read squared
		*entries = append(*entries, memoEntry[T]{key, text, v})
	}
	return v
}

// windows calls each with the windows of s around the literal hits of m: span bytes either side of a hit (and the
// literal), or the words that a match holding the hit can reach, widened to spaces, so that every match that holds the hit lies in its window and a word boundary at a
// window's edge is one in s; overlapping windows are one. It stops when each returns false.
func windows(m matcher, s string, hits []hit, each func(lo, hi int) bool) {
	lo, hi := -1, -1
	for _, h := range hits {
		at := h.at
		var a, b int
		if m.span >= 0 {
			a, b = max(0, at-m.span), min(len(s), at+2*m.span+2) // a literal is at most a match and its two spaces
		} else { // words+1 spaces either side: the match, and the space its literal may start with
			before, after := m.words, m.words
			if m.before >= 0 {
				before, after = m.before, m.after
			}
			a, b = at, at
			for n := 0; a > 0 && n <= before+1; a-- {
				if s[a-1] == ' ' {
					n++
				}
			}
			for n := 0; b < len(s) && n <= after+1; b++ {
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

// windowsReplace replaces every match of m in s by a space, reading only the windows around the literal hits:
// replace(w) is what m leaves of window w.
func windowsReplace(m matcher, s string, hits []hit, replace func(string) string) string {
	var b strings.Builder
	last := 0
	windows(m, s, hits, func(lo, hi int) bool {
		if left := replace(s[lo:hi]); left != s[lo:hi] {
			b.WriteString(s[last:lo])
			b.WriteString(left)
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

// first returns the index of the first pattern (in order) that matches s, or -1. A matcher whose matches are
// bounded reads only the windows around where its literals were found, each widened to the spaces around it so
// that a word boundary at a window's edge is one in s too: on a long note that is a fraction of the text.
func (ms *matcherSet) first(s string) int { return ms.firstOf(s) }

// firstOf is first over several readings of one text: the index of the first pattern that matches any of them.
// Readings of one note are mostly the same text, so a window read once for one reading is not read again.
func (ms *matcherSet) firstOf(readings ...string) int {
	hits := make([]literalHits, len(readings)) // per reading
	for r, s := range readings {
		hits[r] = ms.hits(s)
	}
	return ms.firstHits(readings, hits)
}

// firstHits is firstOf, given the set's hits in each reading.
func (ms *matcherSet) firstHits(readings []string, hits []literalHits) int {
	next := make([]int, len(readings)) // per reading, its first hit not yet read
	var read memo                      // the windows read, with what they gave
	try := func(i int, w string, anchored bool) bool {
		m := ms.matchers[i]
		if anchored {
			return read.matches(2*i+1, w, m.anchored.MatchString)
		}
		return read.matches(2*i, w, m.regexp().MatchString)
	}
	for {
		i := -1 // the first matcher with hits in a reading
		for r, h := range hits {
			if next[r] < len(h) && (i < 0 || h[next[r]].matcher < i) {
				i = h[next[r]].matcher
			}
		}
		if i < 0 {
			return -1
		}
		m := ms.matchers[i]
		for r, s := range readings {
			if next[r] >= len(hits[r]) || hits[r][next[r]].matcher != i {
				continue
			}
			h := hits[r][next[r]:hits[r].end(next[r])]
			next[r] += len(h)
			if m.anchored != nil && h[0].at >= 0 {
				if found, done := startsMatch(m, s, h, func(w string) bool { return try(i, w, true) }); found {
					return ms.origin[i]
				} else if done {
					continue
				}
			}
			switch {
			case !m.windowed() || h[0].at < 0 || len(s) <= 4*m.span:
				if try(i, s, false) {
					return ms.origin[i]
				}
			case windowsMatch(m, s, h, func(w string) bool { return try(i, w, false) }):
				return ms.origin[i]
			}
		}
	}
}

// hit is where a literal of a matcher starts in a text; at is -1 for a matcher without literals, which reads the
// whole text.
type hit struct{ matcher, at int }

// literalHits is the hits in a text, in the order of their matchers and then of where they are.
type literalHits []hit

// end is the index after the last hit of the matcher of hits[k].
func (hits literalHits) end(k int) int {
	e := k + 1
	for e < len(hits) && hits[e].matcher == hits[k].matcher {
		e++
	}
	return e
}

// hits returns where the matchers' literals start in s, and a hit at -1 for each matcher without literals. Only
// the matchers found are listed: a set may have thousands, and a note holds the literals of a few.
func (ms *matcherSet) hits(s string) literalHits {
	var hits literalHits
	for _, i := range ms.always {
		hits = append(hits, hit{i, -1})
	}
	for i := 0; i+1 < len(s); i++ {
		if !ms.startsAt(s, i) {
			continue
		}
		ms.walk(s, i, func(m int) { hits = append(hits, hit{m, i}) })
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.matcher - b.matcher }) // positions stay in order
	return slices.Compact(hits)
}

// maxStartsRead is the most places a text is read from with a pattern anchored.
const maxStartsRead = 64

// startsMatch reports whether match, the anchored pattern of m, is true of the text from one of the literal hits
// of m (or of its starts), up to where a match can reach: span bytes, or the words after it, widened to a space,
// so that a word boundary at its end is one in s. Each read may reach a match's whole width, where the windows
// around many hits merge and are read once ("kill workers kill workers ..."): it gives up (done false), for the
// windows to be read, when the reads would reach over twice the text's length in all, or come from more than
// maxStartsRead places.
func startsMatch(m matcher, s string, hits []hit, match func(string) bool) (found, done bool) {
	reach := func(at int) int {
		end := len(s)
		switch {
		case m.span >= 0:
			end = min(len(s), at+m.span)
		case m.words >= 0:
			after := m.words // the whole match's, from its start
			if m.before >= 0 && m.starts == nil {
				after = m.after // from the start of the literal, which is the match's
			}
			end = at
			for n := 0; end < len(s) && n <= after+1; end++ {
				if s[end] == ' ' {
					n++
				}
			}
		}
		for end < len(s) && s[end] != ' ' {
			end++
		}
		return end
	}
	var places [maxStartsRead][2]int // where each read starts and ends
	n, budget := 0, 2*len(s)
	add := func(at int) bool {
		if n == len(places) {
			return false
		}
		end := reach(at)
		if budget -= end - at; budget < 0 {
			return false
		}
		places[n] = [2]int{at, end}
		n++
		return true
	}
	if m.starts == nil {
		for _, h := range hits {
			if !add(h.at) {
				return false, false
			}
		}
	}
	for _, l := range m.starts {
		for i := 0; i < len(s); i++ {
			k := strings.Index(s[i:], l.text)
			if k < 0 {
				break
			}
			i += k
			if (!l.bounded || atBoundary(s, i)) && (!l.boundEd || atBoundary(s, i+len(l.text))) && !add(i) {
				return false, false
			}
		}
	}
	return slices.ContainsFunc(places[:n], func(p [2]int) bool { return match(s[p[0]:p[1]]) }), true
}

// windowsMatch reports whether match is true of one of the windows of s around the literal hits of m.
func windowsMatch(m matcher, s string, hits []hit, match func(string) bool) bool {
	found := false
	windows(m, s, hits, func(lo, hi int) bool {
		found = match(s[lo:hi])
		return !found
	})
	return found
}

// firstUnfiltered is first without literals, windows or branches: every pattern whole reads all of s. Tests compare
// the two.
func (ms *matcherSet) firstUnfiltered(s string) int {
	for i, m := range ms.wholes {
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
		if can[i] && m.regexp().MatchString(s) {
			return ms.origin[i]
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
		// Checked where the literal is found, as \b reads it: between an ASCII word character and anything else.
		// A space would not do even in spaced texts: "hitlerʼ" is one word there, and \b is after its r.
		return []string{string(boundary)}, true
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

// minLen is the length of the shortest literal, not counting the spaces and marks that stand for word boundaries.
func minLen(s []string) int {
	m := -1
	for _, x := range s {
		if n := len(strings.TrimSpace(strings.ReplaceAll(x, string(boundary), ""))); m < 0 || n < m {
			m = n
		}
	}
	return m
}

// leadScan finds the matches of a detector's expression by running it only from where they can start: at the bytes
// a match can begin with and, when the expression starts with a word boundary (\b), only after one. Go's regexp
// tries every position of a text with an expression that starts with an alternation of words. It finds what
// FindAllStringSubmatchIndex of the expression finds, in the same order; an expression whose starts it cannot tell
// (one that may match the empty text, or starts with any character) is run as it is. Not for an expression set to
// Longest, which its text does not say.
type leadScan struct {
	re       *regexp.Regexp
	anchored *regexp.Regexp // ^(?:the expression without its leading \b); nil: run re
	bounded  bool           // the expression starts with \b
	lead     [256]bool      // the bytes a match can start with
}

func newLeadScan(re *regexp.Regexp) *leadScan {
	l := &leadScan{re: re}
	pattern := re.String()
	tree := mustParse(pattern)
	rest := tree
	if tree.Op == syntax.OpConcat && len(tree.Sub) > 1 && tree.Sub[0].Op == syntax.OpWordBoundary && strings.HasPrefix(pattern, `\b`) {
		l.bounded, pattern = true, pattern[2:]
		rest = &syntax.Regexp{Op: syntax.OpConcat, Sub: tree.Sub[1:], Flags: tree.Flags}
	}
	// \Q quotes up to \E or to the end of the pattern: a pattern that ends quoted cannot be wrapped in a group.
	if strings.Contains(pattern, `\Q`) || readsBefore(rest) || assertsFirst(rest) || canBeEmpty(rest) || !leadBytes(rest, &l.lead) {
		return l
	}
	l.anchored = regexp.MustCompile(`^(?:` + pattern + `)`)
	return l
}

// assertsFirst reports a word boundary that an expression may test before it reads a character: read from inside a
// text, it would not see the character before.
func assertsFirst(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpWordBoundary:
		return true
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if assertsFirst(sub) {
				return true
			}
			if !canBeEmpty(sub) {
				return false
			}
		}
		return false
	case syntax.OpAlternate:
		return slices.ContainsFunc(re.Sub, assertsFirst)
	case syntax.OpCapture, syntax.OpPlus, syntax.OpStar, syntax.OpQuest, syntax.OpRepeat:
		return assertsFirst(re.Sub[0])
	}
	return false
}

// canBeEmpty reports an expression that matches the empty text.
func canBeEmpty(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return len(re.Rune) == 0 && re.Op == syntax.OpLiteral
	case syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpRepeat:
		return re.Min == 0 || canBeEmpty(re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !canBeEmpty(sub) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return slices.ContainsFunc(re.Sub, canBeEmpty)
	case syntax.OpPlus, syntax.OpCapture:
		return canBeEmpty(re.Sub[0])
	}
	return true // empty-width assertions and the empty match
}

// leadBytes adds the bytes a match of re can start with to set, and those a match can start with after it when it
// may be empty (the caller reads on); false when it cannot tell, or any byte can start one.
func leadBytes(re *syntax.Regexp, set *[256]bool) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) > 0 {
			addLead(re.Rune[0], re.Rune[0], re.Flags&syntax.FoldCase != 0, set)
		}
		return true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			addLead(re.Rune[i], re.Rune[i+1], false, set)
		}
		return true
	case syntax.OpCapture, syntax.OpPlus, syntax.OpStar, syntax.OpQuest, syntax.OpRepeat:
		return leadBytes(re.Sub[0], set)
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !leadBytes(sub, set) {
				return false
			}
		}
		return true
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !leadBytes(sub, set) {
				return false
			}
			if !canBeEmpty(sub) {
				break
			}
		}
		return true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true // they read no character
	}
	return false // any character
}

// addLead adds the first bytes of the UTF-8 encodings of the runes lo to hi (and of their other cases, when fold).
// The regexp reads each byte of a text that is not UTF-8 as U+FFFD: a range that holds it may start at any byte
// past ASCII.
func addLead(lo, hi rune, fold bool, set *[256]bool) {
	if lo <= utf8.RuneError && utf8.RuneError <= hi {
		for b := 0x80; b < 0x100; b++ {
			set[b] = true
		}
	}
	for r := lo; r <= hi; r++ {
		if r >= utf8.RuneSelf { // the lead bytes of the rest of the range, in order
			for b := leadByte(r); b <= leadByte(min(hi, unicode.MaxRune)); b++ {
				set[b] = true
			}
			if fold { // the other cases of a letter outside ASCII may be anywhere: every lead byte
				for b := 0xC0; b < 0x100; b++ {
					set[b] = true
				}
			}
			return
		}
		set[r] = true
		if fold {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f < utf8.RuneSelf {
					set[f] = true
				} else {
					set[utf8.AppendRune(nil, f)[0]] = true
				}
			}
		}
	}
}

// leadByte is the first byte of r's UTF-8 encoding, worked out for surrogates too (which the encoder writes as
// U+FFFD), so that a range's lead bytes run in order.
func leadByte(r rune) int {
	switch {
	case r < 0x80:
		return int(r)
	case r < 0x800:
		return 0xC0 | int(r>>6)
	case r < 0x10000:
		return 0xE0 | int(r>>12)
	}
	return 0xF0 | int(r>>18)
}

// FindAllStringSubmatchIndex is the expression's FindAllStringSubmatchIndex(s, -1).
func (l *leadScan) FindAllStringSubmatchIndex(s string) [][]int {
	if l.anchored == nil {
		return l.re.FindAllStringSubmatchIndex(s, -1)
	}
	var out [][]int
	for i, w := 0, 1; i < len(s); i += w {
		w = 1 // a match starts at a character as the regexp reads them: a byte that is not UTF-8 is one
		if s[i] >= utf8.RuneSelf {
			_, w = utf8.DecodeRuneInString(s[i:])
		}
		if !l.lead[s[i]] || l.bounded && isWordByte(s[i]) == (i > 0 && isWordByte(s[i-1])) {
			continue
		}
		m := l.anchored.FindStringSubmatchIndex(s[i:])
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += i
			}
		}
		out = append(out, m)
		i, w = m[1], 0 // the next match starts where this one ends, or after
	}
	return out
}

// setGroup finds the literals of several sets in one pass over a text, for texts that the sets read one after
// another (the allowed phrases, then the rules): most notes hold no allowed phrase, and the rules read the text
// unchanged.
type setGroup struct {
	sets []*matcherSet
	all  *matcherSet // a trie of the literals of all, each set's matchers numbered after the ones before it
}

func newSetGroup(sets ...*matcherSet) *setGroup {
	if len(sets) > maxGroup {
		panic("a group of more than maxGroup sets")
	}
	all := newTrie()
	n := 0
	for _, set := range sets {
		for _, l := range set.literals {
			all.add(l.text, n+l.matcher)
		}
		for _, i := range set.always {
			all.always = append(all.always, n+i)
		}
		n += len(set.matchers)
	}
	all.freeze()
	return &setGroup{sets, all}
}

// maxGroup is the most sets a group holds.
const maxGroup = 3

// hits returns the hits of each set in s: what its own hits(s) returns.
func (g *setGroup) hits(s string) [maxGroup]literalHits {
	h := g.all.hits(s) // in the order of their matchers: the first set's, then the second's...
	var out [maxGroup]literalHits
	n, k := 0, 0
	for i, set := range g.sets {
		start := k
		for k < len(h) && h[k].matcher < n+len(set.matchers) {
			h[k].matcher -= n
			k++
		}
		out[i] = h[start:k:k]
		n += len(set.matchers)
	}
	return out
}
