// Package screen decides whether a note may go on the board: a pipeline of local screeners (normalisation against
// evasions, wordlists and phrase patterns per category, detectors of personal data, spam and agent manipulation)
// and, when configured, a language-model classifier behind an OpenAI-compatible HTTP endpoint.
package screen

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"unicode"

	"twofold/server/board"
	"twofold/server/errcode"
)

// Category is why a note was refused; the values are SPEC.md's.
type Category = string

const (
	Hate              Category = "hate"
	Harassment        Category = "harassment"
	Sexual            Category = "sexual"
	SexualMinors      Category = "sexual_minors"
	Violence          Category = "violence"
	SelfHarm          Category = "self_harm"
	PersonalData      Category = "personal_data"
	Spam              Category = "spam"
	AgentManipulation Category = "agent_manipulation"
	Profanity         Category = "profanity"
)

// Categories are in the order they are decided: when a note falls under several, the gravest is given.
var Categories = []Category{SexualMinors, Violence, SelfHarm, Hate, Sexual, Harassment, AgentManipulation, PersonalData, Spam, Profanity}

// Pipeline is the screen: local screeners, then the classifier.
type Pipeline struct {
	token, raw, exact ruleSet
	allow             *matcherSet
	classifier        *Classifier // nil when not configured
	failClosed        bool
	log               *slog.Logger
}

// ruleSet is the patterns of every category for one kind of reading, with the category of each.
type ruleSet struct {
	set        *matcherSet
	categories []Category
}

func newRuleSet(byCategory map[Category][]string, prepare func(string) string, spaced bool) ruleSet {
	var rs ruleSet
	var pats []string
	for _, c := range Categories { // in order of gravity, so the first match is the gravest
		for _, p := range byCategory[c] {
			pats = append(pats, prepare(p))
			rs.categories = append(rs.categories, c)
		}
	}
	rs.set = newMatcherSet(pats, spaced)
	return rs
}

// match returns the gravest category whose pattern matches one of the readings, and its rank (lower is graver).
func (rs ruleSet) match(readings ...string) (Category, int) {
	best := -1
	for _, r := range readings {
		if i := rs.set.first(r); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return "", len(Categories)
	}
	return rs.categories[best], slices.Index(Categories, rs.categories[best])
}

var _ board.Screener = (*Pipeline)(nil)

// New compiles the lists. classifier may be nil; failClosed refuses notes (SCREEN_UNAVAILABLE) when the classifier
// fails, where the default keeps the local screeners' verdict.
func New(classifier *Classifier, failClosed bool, log *slog.Logger) *Pipeline {
	same := func(s string) string { return s }
	return &Pipeline{
		token:      newRuleSet(patterns, squeezePattern, true),
		raw:        newRuleSet(rawPatterns, same, false),
		exact:      newRuleSet(exactPatterns, same, true),
		allow:      newMatcherSet(mapSlice(allowed, squeezePattern), true),
		classifier: classifier,
		failClosed: failClosed,
		log:        log,
	}
}

func mapSlice(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = f(s)
	}
	return out
}

// Check returns the category a note falls under, or "". Returns SCREEN_UNAVAILABLE only when the classifier
// failed and the screen is set to fail closed.
func (p *Pipeline) Check(ctx context.Context, text string) (string, error) {
	if c := p.Local(text); c != "" {
		return c, nil
	}
	if p.classifier == nil {
		return "", nil
	}
	c, err := p.classifier.Classify(ctx, text)
	if err != nil {
		if p.failClosed {
			p.log.Error("screen classifier failed; refusing the note (SCREEN_LLM_FAIL=closed)", "err", err)
			return "", errcode.New(errcode.ScreenUnavailable, "the content screen is unavailable", "try again in a minute")
		}
		p.log.Warn("screen classifier failed; keeping the local verdict (SCREEN_LLM_FAIL=open)", "err", err)
		return "", nil
	}
	return c, nil
}

// Local runs the local screeners only.
func (p *Pipeline) Local(text string) string {
	v := normalize(text)
	readings := []string{p.clean(v.words)}
	for _, r := range []string{p.clean(v.leet), p.clean(v.joined)} {
		if !slices.Contains(readings, r) { // most notes read the same every way
			readings = append(readings, r)
		}
	}
	found, rank := p.token.match(readings...)
	if c, r := p.raw.match(v.plain); r < rank {
		found, rank = c, r
	}
	if c, r := p.exact.match(" " + strings.Join(v.exact, " ") + " "); r < rank {
		found, rank = c, r
	}
	for _, c := range Categories[:rank] { // the detectors, where no graver category was found
		if (c == PersonalData && personalData(v)) || (c == Spam && spammy(v)) {
			return c
		}
	}
	return found
}

// clean joins tokens into one line with the allowed idioms taken out.
func (p *Pipeline) clean(words []string) string {
	s := " " + strings.Join(words, " ") + " "
	can := p.allow.candidates(s)
	for i, m := range p.allow.matchers {
		if can[i] {
			s = m.re.ReplaceAllString(s, " ")
		}
	}
	return s
}

// spammy catches spam by its shape: one word over and over, or shouting.
func spammy(v views) bool {
	counts := map[string]int{}
	for _, w := range v.words {
		if len(w) > 2 {
			counts[w]++
			if counts[w] >= 8 {
				return true
			}
		}
	}
	letters, upper := 0, 0
	for _, r := range v.raw {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return letters >= 40 && upper*10 >= letters*7 || strings.Count(v.raw, "!") >= 8
}

// squeezePattern squeezes the letters of a regular expression as squeeze does text, leaving its syntax alone:
// an escape ("\b", "\w") is copied as it is and never joins a run.
func squeezePattern(pat string) string {
	var b strings.Builder
	var last rune
	escaped := false
	for _, r := range pat {
		switch {
		case escaped:
			escaped, last = false, 0
		case r == '\\':
			escaped, last = true, 0
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if r == last {
				continue
			}
			last = r
		default:
			last = 0
		}
		b.WriteRune(r)
	}
	return b.String()
}
