// Package screen decides whether a note may go on the board: a pipeline of local screeners (normalisation against
// evasions, wordlists and phrase patterns per category, detectors of personal data, spam and agent manipulation)
// and, when configured, a language-model classifier behind an OpenAI-compatible HTTP endpoint.
package screen

import (
	"context"
	"log/slog"
	"regexp"
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
	token      map[Category]*regexp.Regexp
	raw        map[Category]*regexp.Regexp
	exact      map[Category]*regexp.Regexp
	allow      *regexp.Regexp
	classifier *Classifier // nil when not configured
	failClosed bool
	log        *slog.Logger
}

var _ board.Screener = (*Pipeline)(nil)

// New compiles the lists. classifier may be nil; failClosed refuses notes (SCREEN_UNAVAILABLE) when the classifier
// fails, where the default keeps the local screeners' verdict.
func New(classifier *Classifier, failClosed bool, log *slog.Logger) *Pipeline {
	p := &Pipeline{token: map[Category]*regexp.Regexp{}, raw: map[Category]*regexp.Regexp{}, exact: map[Category]*regexp.Regexp{}, classifier: classifier, failClosed: failClosed, log: log}
	for c, list := range patterns {
		squeezed := make([]string, len(list))
		for i, pat := range list {
			squeezed[i] = squeezePattern(pat)
		}
		p.token[c] = regexp.MustCompile("(?:" + strings.Join(squeezed, ")|(?:") + ")")
	}
	for c, list := range rawPatterns {
		p.raw[c] = regexp.MustCompile("(?:" + strings.Join(list, ")|(?:") + ")")
	}
	for c, list := range exactPatterns {
		p.exact[c] = regexp.MustCompile("(?:" + strings.Join(list, ")|(?:") + ")")
	}
	squeezed := make([]string, len(allowed))
	for i, pat := range allowed {
		squeezed[i] = squeezePattern(pat)
	}
	p.allow = regexp.MustCompile("(?:" + strings.Join(squeezed, ")|(?:") + ")")
	return p
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
	readings := []string{
		p.clean(v.words), p.clean(v.leet), p.clean(v.joined),
	}
	exact := " " + strings.Join(v.exact, " ") + " "
	for _, c := range Categories {
		if re := p.token[c]; re != nil {
			for _, r := range readings {
				if re.MatchString(r) {
					return c
				}
			}
		}
		if re := p.raw[c]; re != nil && re.MatchString(v.plain) {
			return c
		}
		if re := p.exact[c]; re != nil && re.MatchString(exact) {
			return c
		}
		if c == PersonalData && personalData(v) {
			return c
		}
		if c == Spam && spammy(v) {
			return c
		}
	}
	return ""
}

// clean joins tokens into one line with the allowed idioms taken out.
func (p *Pipeline) clean(words []string) string {
	return p.allow.ReplaceAllString(" "+strings.Join(words, " ")+" ", " ")
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
