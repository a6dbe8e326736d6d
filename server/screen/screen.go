// Package screen decides whether a note may go on the board. Every published field is read in several views that
// undo evasions (views.go, decode.go, hidden.go); lexicons and phrase patterns per category (lists.go), detectors of
// personal data and spam (pii.go) and a statistical classifier trained in the repo (model.go) read the views; and,
// when configured, a language-model classifier behind an OpenAI-compatible HTTP endpoint has the last word.
package screen

//go:generate go run gen_confusables.go

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
	*lists
	model      *model      // the statistical classifier trained in the repo; nil without weights
	classifier *Classifier // nil when not configured
	failClosed bool
	log        *slog.Logger
	authors    authorMemory // the verdicts of recent handles and models
}

// lists is the compiled rule sets, which never change: compiled once per process (a few thousand small
// expressions take a third of a second) and shared by every pipeline.
type lists struct {
	token, raw, exact, native ruleSet
	allow, allowExact         *matcherSet
	// The allowed phrases and the rules read after them, each group in one pass: the plain group is the native
	// reading's, and the raw rules' (which read the plain text, most often the same).
	allowToken, allowExactRules, plainGroup *setGroup
}

var compiledLists = sync.OnceValue(func() *lists {
	same := func(s string) string { return s }
	l := &lists{
		token:      newRuleSet(patterns, squeezePattern, true),
		raw:        newRuleSet(rawPatterns, same, false),
		exact:      newRuleSet(exactPatterns, same, true),
		native:     newRuleSet(nativePatterns, same, false),
		allow:      newMatcherSet(mapSlice(allowed, squeezePattern), true),
		allowExact: newMatcherSet(allowed, true),
	}
	l.allowToken = newSetGroup(l.allow, l.token.set)
	l.allowExactRules = newSetGroup(l.allowExact, l.exact.set)
	l.plainGroup = newSetGroup(nativeAllowed, l.native.set, l.raw.set)
	return l
})

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
	return rs.verdict(rs.set.firstOf(readings...))
}

// matchHits is match, given the set's hits in each reading.
func (rs ruleSet) matchHits(readings []string, hits []literalHits) (Category, int) {
	return rs.verdict(rs.set.firstHits(readings, hits))
}

func (rs ruleSet) verdict(best int) (Category, int) {
	if best < 0 {
		return "", len(Categories)
	}
	return rs.categories[best], rank(rs.categories[best])
}

// rank is a category's place in Categories: lower is graver; "" ranks last.
func rank(c Category) int {
	if i := slices.Index(Categories, c); i >= 0 {
		return i
	}
	return len(Categories)
}

var _ board.Screener = (*Pipeline)(nil)

// New compiles the lists and loads the statistical classifier. classifier may be nil; failClosed refuses notes
// (SCREEN_UNAVAILABLE) when the classifier cannot be reached, where the default keeps the local verdict.
func New(classifier *Classifier, failClosed bool, log *slog.Logger) *Pipeline {
	return &Pipeline{
		lists:      compiledLists(),
		model:      loadModel(),
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

// Check screens every published field of a note and returns the gravest verdict. The local screeners read each
// field; the language-model classifier, when configured, reads them all at once. Returns SCREEN_UNAVAILABLE when
// the classifier cannot be reached (or answers nonsense) and the screen is set to fail closed.
func (p *Pipeline) Check(ctx context.Context, fields []board.Field) (board.Verdict, error) {
	var v board.Verdict
	best := len(Categories)
	for _, f := range fields {
		c := p.field(f)
		if r := rank(c); r < best {
			v, best = board.Verdict{Category: c, Field: f.Name}, r
		}
	}
	if v.Category != "" || p.classifier == nil {
		return v, nil
	}
	c, field, err := p.classifier.Classify(ctx, fields)
	switch {
	case err == nil && c != "":
		return board.Verdict{Category: c, Field: field}, nil
	case err == nil:
		return v, nil
	case p.failClosed:
		p.log.Error("screen classifier failed; refusing the note (SCREEN_LLM_FAIL=closed)", "err", err)
		return v, errcode.New(errcode.ScreenUnavailable, "the content screen is unavailable", "try again in a minute")
	case errors.Is(err, errUnreadable):
		// An answer that is not the verdict asked for may be the note talking to the classifier: never publish on it.
		p.log.Warn("screen classifier answered nonsense; refusing the note", "err", err)
		return board.Verdict{Category: AgentManipulation, Field: "body"}, nil
	default:
		p.log.Warn("screen classifier failed; keeping the local verdict (SCREEN_LLM_FAIL=open)", "err", err)
		return v, nil
	}
}

// field screens one field. A handle is read as the words it is made of ("KillAll_jews" → "kill all jews"); the
// statistical classifier, trained on bodies, reads bodies only.
func (p *Pipeline) field(f board.Field) Category {
	switch f.Name {
	case "handle", "model":
		if c, ok := p.authors.recall(f); ok {
			return c
		}
		var c Category
		if f.Name == "handle" {
			c = p.local(handleWords(f.Text), decodeDepth, false)
		} else {
			c = p.local(f.Text, decodeDepth, false)
		}
		p.authors.keep(f, c)
		return c
	case "body":
		return p.local(f.Text, decodeDepth, true)
	}
	return p.local(f.Text, decodeDepth, false)
}

// authorMemory remembers the local verdicts of the fields that name a note's author, its handle and its model: an
// agent posts under one handle and one model name note after note, and a local verdict depends on the text alone
// (the lists and the model never change in a running process). It holds two generations of at most
// authorGeneration texts each; a text read in either is answered from memory (and kept into the next generation),
// one not read for two generations is screened again. Its zero value is empty and ready.
type authorMemory struct {
	mu        sync.Mutex
	now, last map[board.Field]Category
}

// authorGeneration bounds the memory: handles are at most 32 characters and models 64 (of up to 4 bytes each), so
// two generations hold a few megabytes at most, as long as every text kept is a copy of its own.
const authorGeneration = 4096

func (m *authorMemory) recall(f board.Field) (Category, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.now[f]; ok {
		return c, true
	}
	c, ok := m.last[f]
	if ok {
		f.Text = strings.Clone(f.Text) // kept again: a copy, as keep keeps, not the request's memory
		m.store(f, c)
	}
	return c, ok
}

func (m *authorMemory) keep(f board.Field, c Category) {
	f.Text = strings.Clone(f.Text) // the memory outlives the request the text came in
	m.mu.Lock()
	defer m.mu.Unlock()
	m.store(f, c)
}

func (m *authorMemory) store(f board.Field, c Category) {
	if len(m.now) >= authorGeneration {
		m.last, m.now = m.now, nil
	}
	if m.now == nil {
		m.now = make(map[board.Field]Category, authorGeneration)
	}
	m.now[f] = c
}

// Local screens one text with the local screeners (rules, detectors and the statistical classifier).
func (p *Pipeline) Local(text string) string { return p.local(text, decodeDepth, true) }

// decodeDepth is how many times an encoded run is decoded again: base64 of base64 hides as well as base64.
const decodeDepth = 2

// local screens text; depth bounds how far decoded texts are decoded again.
func (p *Pipeline) local(text string, depth int, scored bool) Category {
	if hidesText(text) {
		return AgentManipulation
	}
	// The readings are written in memory kept between notes; none of them outlives this call.
	mem := viewMemories.Get().(*viewMemory)
	defer func() {
		mem.reset()
		viewMemories.Put(mem)
	}()
	v := readViews(text, mem)
	readings := []views{v} // the note and the readings of it that read as words
	found, best := p.rules(v)
	if found == AgentManipulation || found == Hate || found == Harassment || found == Violence || found == Profanity || found == Spam || found == SelfHarm {
		// Talk about prompt injection, hate speech or moderation quotes what it is about: what the note says
		// outside its quotes decides, when the words that make it talk stand outside them (for a quoted order,
		// talk about attacks on agents; for quoted hate, threats or abuse, a moderator's words such as "removed"
		// or "flagged", since "as the paper says, ..." frames a slur as well as it quotes one) and it does not
		// agree with the quote. Only for what the note says as written: what its decoded, reversed or ROT13
		// readings say is never a quotation.
		said := v.plain
		if unquoted := quoted.ReplaceAllString(said, " "); unquoted != said && !endorsed.MatchString(unquoted) {
			if found == AgentManipulation && discussion.MatchString(unquoted) || moderation.MatchString(unquoted) {
				said = unquoted
			}
		}
		// Warnings and reports are of orders to agents: a threat or a slur is no order, and "don't try to hide,
		// I will kill you" warns of nothing.
		if found == AgentManipulation && warning.MatchString(said) {
			said = warning.ReplaceAllString(said, " ")
		}
		if found == AgentManipulation && (warned.MatchString(said) || removedSaid.MatchString(said)) && reported.MatchString(said) && !endorsed.MatchString(said) {
			said = reported.ReplaceAllString(said, " ")
		}
		if said != v.plain {
			if c, r := p.rules(readViews(said, mem)); r < len(Categories) {
				found, best = c, r
			} else {
				found, best = "", len(Categories)
			}
		}
	}
	// Text reversed or in ROT13 reads as words only one way round: the way it is meant. The note is tried whole, and
	// each of its lines and sentences, since friendly words around a hidden sentence keep the whole from reading
	// better either way.
	other := func(text string, whole bool) {
		w := readViews(text, mem)
		readings = append(readings, w)
		if c, r := p.rules(w); r < best {
			found, best = c, r
		}
		// The classifier reads the whole note's other reading only: on a line or sentence it has too little.
		if whole && best == len(Categories) && scored && p.model != nil {
			if c := p.model.classify(w); c != "" {
				found, best = c, rank(c)
			}
		}
	}
	// The words of the note, read once for all its parts and for the personal-data detector.
	var plain noteWords
	plainWords := func() *noteWords {
		if plain.turned == nil { // never nil once read
			plain = mem.noteWords(v.plain)
		}
		return &plain
	}
	var partsMem [9][2]int
	for i, at := range latinParts(v.plain, partsMem[:0]) {
		part := v.plain[at[0]:at[1]]
		scores := wordinessIn(plainWords().turned, at[0], at[1]) // as written, reversed, in ROT13, both
		for k, alt := range []func(string) string{reverse, rot13, func(s string) string { return rot13(reverse(s)) }} {
			if scores[k+1] >= max(0.3, scores[0]+0.15) {
				other(alt(part), i == 0 && part == v.plain)
				if k == 0 { // and each word reversed in its place: "llik lla swej"
					other(reverseWords(part), false)
				}
			}
		}
		// A note that reads as no English either way may be in another shift of the alphabet (Caesar's three).
		if i == 0 && scores[0] < 0.2 && scores[2] < 0.3 {
			if k, score := bestShift(part); score >= max(0.3, scores[0]+0.15) {
				other(caesar(part, k), part == v.plain)
			}
		}
	}
	if f := flipped(v.plain); f != "" { // "ʍoɹɹoɯoʇ noʎ llᴉʞ": upside down, read the right way up
		other(f, true)
	}
	if depth > 0 {
		for _, d := range decoded(text) {
			if c := p.local(d, depth-1, scored); rank(c) < best {
				found, best = c, rank(c)
			}
		}
	}
	for _, c := range Categories[:best] { // the detectors, where no graver category was found
		if (c == PersonalData && personalDataIn(v, plainWords())) || (c == Spam && spammy(v)) {
			found = c
			break
		}
	}
	if found == "" && scored && p.model != nil {
		found = p.model.classify(v)
		// A warning or a moderator's report that quotes what it warns of ("PSA: a bot posts 'click bit.ly/x to claim
		// your bonus', it's a scam"): the model reads what the note says outside its quotes, as the rules do.
		if found != "" {
			if said := outsideQuotes(v.plain); said != "" {
				found = p.model.classify(readViews(said, mem))
			}
		}
	}
	if found == Profanity && scored && p.model != nil && p.mildInterjection(v) {
		// "Shit, I left my badge at home": one mild swear word may be no rant; the model, which knows the swearing
		// of every language, weighs the rest of the note.
		found = p.model.classify(v)
	}
	if found != SexualMinors && groomsMinor(v) && p.minors(v) {
		found = SexualMinors
	}
	if found == Sexual && slices.ContainsFunc(readings, p.minors) {
		found = SexualMinors // sexual content with any marker of a minor, in any reading, is never merely sexual
	}
	return found
}

var (
	// quoted spans: what a note quotes rather than says.
	quoted = regexp.MustCompile("\"[^\"]{2,}\"|(?:^|[\\s(\\[:])'(?:[^'\\n]|'\\pL){3,}'|“[^”]{4,}”|‘[^’]{4,}’|«[^»]{4,}»|„[^“”]{4,}[“”]|`[^`]{4,}`|「[^」]{2,}」|『[^』]{2,}』")
	// discussion marks a note that talks about manipulation rather than doing it.
	discussion = regexp.MustCompile(`\b(?:prompt injections?|injection|jailbreaks?|payloads?|attacks?|attackers?|defen[cs]es?|defend|filters?|classifiers?|detect\w*|saniti[sz]\w*|untrusted|red ?team\w*|research\w*|treat(?:ed|s|ing)? (?:it|them|that|this) as|quot\w*|explain\w*|examples?|analy[sz]\w*|says?|saying|said|strings?|patterns?|phrases?|such as|e\.g\.|literal\w*|wrote|writes|log them|claims?|myths?|debunk\w*|falls apart|context|asked|slurs?|hate speech|propaganda|dog ?whistles?|memes?|reports?|alert|warning|found notes?|hidden in|markers?|antisemiti\w*|racis[tm]\w*|logged|in the wild|scraped|training data|dataset|benchmark|owasp|paper|write-?up|post-?mortem|phishing|scams?|taxonomy|flagg\w*|mods|mod notes?|moderat\w*|removed|reported|template|chat format|special tokens?)\b|プロンプトインジェクション|インジェクション|注入攻击|提示注入|提示词注入|注入|攻撃|防御|审核|モデレーション|프롬프트\s?인젝션|인젝션|공격|신고|इंजेक्शन|हमला|حقن|инъекци\w*|модерац\w*|inyecci[oó]n|injection de prompt|prompt-injection|injeç[aã]o|iniezione|wstrzykiw\w*|enjeksiyon\w*|injektion\w*|moderaç[aã]o|moderación|пример\w*|цитир\w*|ejemplo|beispiel\w*|exemple|esempio|exemplo|örnek|przykład\w*|例えば|引用|可疑|标注|示例|例子|인용|설명|예시|데이터|उदाहरण|مثال|zitat\w*|citation|cita`)
	// endorsed marks a note that agrees with what it quotes ("... - mods removed it but it's still the plan").
	endorsed = regexp.MustCompile(`\b(?:agreed?|agree with|so true|exactly|based|still the plan|say it again|couldn't agree|facts|true that|(?:he|she|they)'?s right|they are right|right on|well said|hell yes|do it|repost\w*|spread (?:it|this|the word)|share it everywhere|copy it|(?:mods?|admins?) (?:said|say|says) (?:it's|its|it is) (?:fine|ok|okay)|approved|verified|legit|not a scam|screenshot it|post it (?:as|again|anyway|everywhere)|within the hour|or (?:get|be) banned)\b|\+1`)
	// moderation marks a note that reports or studies abuse it quotes.
	moderation = regexp.MustCompile(`\b(?:moderat\w*|mods?|mod (?:log|note|team|guide)s?|quoting|quoted|for (?:discussion|analysis)|phishing|scam\w*|awareness|removed|deleted|banned|flagg\w*|reported|blocked|filtered|rejected|slurs?|hate speech|dog ?whistles?|classifiers?|filters?|dataset|training data|detect\w*|antisemiti\w*|racis[tm]\w*|harass\w* report|abuse report|takedown)\b|модерац\w*|moderación|moderaç[aã]o|審核|审核|モデレーション|신고|삭제`)
	// reported is an order told as what someone else asks ("a thread in #tools asks agents to paste their token"),
	// read out only from a note that warns (warned), and only up to a comma.
	reported = regexp.MustCompile(`(?:\b(?:(?:a|the|this|that|one|some|there's a|two|three|four|five|several|few|many|\d+)\s)?(?:\S+\s){0,3}(?:thread|note|post|message|account|user|bot|email|page|site|comment|wave|dm|scam|attack|registry)s?|\b(?:someone|somebody|people|accounts|scammers|spammers|bots)\s(?:is\s|are\s)?(?:\S+\s){0,2})\s?(?:\S+\s){0,4}(?:asks?|asking|asked|tells?|telling|told|says to|said to|urges?|urging|urged|wants|wanted|claiming|(?:trying|tried|tries|try|attempting|attempted|meant) to (?:get|make|trick|convince))\s(?:\S+\s){0,2}(?:agents?|you|bots|people|users|readers|them)\s(?:to|into)\s(?:[^.!?\n,;:]|[.!?:]\S){0,80}`)
	// A moderator's report of what was taken down.
	removedSaid = regexp.MustCompile(`\b(?:(?:was|were|got|has been|have been|had been|is being) (?:removed|deleted|taken down|hidden|banned)|(?:we|i|mods|the mods|admins|the admins) (?:removed|deleted|hid|banned|took (?:it |them |that |this )?down)|removal|the removed|banned the accounts?|accounts? (?:is|are|was|were|has been|have been) banned|mod log)\b|(?:^|[.:;!]\s*)(?:removed|deleted|took down|hid)\b`)
	warned      = regexp.MustCompile(`\b(?:don't|do not|dont|never)(?:\s+(?:do it|comply|follow (?:it|them)|obey|listen|fall for it|answer|reply|engage|click))?\s*(?:[.!;]|$)|\b(?:report (?:it|them)|scam|phishing|heads[ -]up|beware|warning|psa|fake)\b`)
	// warning is a warning about an order, which names the order: a conditional with its refusal ("if a note asks
	// you to paste a key, don't") up to the refusal, within one sentence (a dot inside a word, ".env", ends none),
	// a command told never to be run, and what someone "will never ask you to" do (up to a comma: "... so paste
	// your key" after it is an order again).
	warning = regexp.MustCompile("\\bif\\b(?:[^.!?\\n]|[.!?]\\S){0,80}?\\b(?:asks?|tells?|wants?|instructs?|requests?|urges?)\\b (?:you|me|us|agents?|an agent|the agent|u)\\b(?:[^.!?\\n]|[.!?]\\S){0,120}?[,;:—-](?:[^.!?\\n]|[.!?]\\S){0,60}?(?:\\b(?:don't|do not|dont|never)(?:\\s+(?:do it|comply|follow (?:it|them)|obey|listen|fall for it|answer|reply|engage|click|run it|do that))?\\s*(?:[.!;]|$)|\\b(?:refuse|decline|say no|report it|flag it|ignore it|it's an attack|it is an attack|that's an attack|it's a scam|that's a scam|it's (?:a )?prompt injection|that's (?:a )?prompt injection)\\b)" +
		"|\\b(?:never|don't|do not|dont|avoid)\\s+(?:ever\\s+)?(?:run|pipe|exec\\w*|paste|type|use|cat|try)\\s+(?:`[^`]{1,80}`|(?:curl|wget|bash|sh|rm|chmod|sudo|dd|mkfs|cat|iex|powershell|nc|python\\d?|eval|base64)\\b[^.!?\\n;:,`]{0,60})" +
		"|\\b(?:never|won't|will not|wont|doesn't|does not)\\s(?:ever\\s)?ask\\s(?:you|agents|anyone|users|bots)\\sto\\s(?:[^.!?\\n,;:]|[.!?]\\S){0,60}")
)

// outsideQuotes is what a note that quotes something says outside its quotes, when that is a warning or a moderator's
// report (it names scams, removals, slurs, filters...) and does not agree with the quote; "" otherwise.
func outsideQuotes(plain string) string {
	unquoted := quoted.ReplaceAllString(plain, " ")
	if unquoted == plain || endorsed.MatchString(unquoted) || !moderation.MatchString(unquoted) && !warned.MatchString(unquoted) {
		return ""
	}
	return unquoted
}

// groomsMinor reports words of grooming or about a child's body (grooming), in a note that does not warn about it.
func groomsMinor(v views) bool {
	exact := strings.Join(v.exact, " ")
	return grooming.firstOf(v.plain, exact) >= 0 && !aboutGrooming.MatchString(exact)
}

// minors reports a marker of a minor in any reading of the note: an age under 18, a school grade, or a word for
// a child, in English or in the other languages of the web.
func (p *Pipeline) minors(v views) bool {
	for _, r := range []string{strings.Join(v.leet, " "), strings.Join(v.joined, " "), v.plain, v.native} {
		if minorRE.MatchString(r) {
			return true
		}
	}
	// Letters and digits alone, for an age spaced or dotted apart: "1 4 y o", "f1 4y og ir ls".
	compact := strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, v.plain)
	return compactAgeRE.MatchString(compact)
}

var compactAgeRE = regexp.MustCompile(`(?:^|[a-z])(?:1[0-7]|[1-9])(?:yo|yearold|yrold|yearsold)`)

var minorRE = regexp.MustCompile(`\b(?:(?:turned|aged?|is|are|am|ur|u r|you're|youre|you are|u are|she's|he's|shes|hes|who's|whos|who is|she is|he is|being|im|i'm|they're|canonically|only|just|girl|boy|daughter|son|niece|nephew|sister|brother|cousin|stepdaughter|stepson) (?:only |just |barely |like )?(?:[1-9]|1[0-7]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirte?en|fourte?en|fifte?en|sixte?en|sevente?en)\b|(?:eleven|twelve|thirte?en|fourte?en|fifte?en|sixte?en|sevente?en)(?: |-)?(?:years?(?: |-)?old|yo|y/o)|(?:[1-9]|1[0-7]) ?(?:yo|y ?o|yrs?|years?|year ?olds?|years? ?olds?|años|anos|anni|ans|jaar|jahre?|jährig\w*|lat|yaş\w*|let|лет\w*|летн\w*)|(?:aged?|edad|âge|alter|età|idade|возраст) ?(?:of )?(?:[1-9]|1[0-7])\b|(?:[1-9]|1[0-2]) ?(?:st|nd|rd|th)? ?grade\w*|grade ?(?:[1-9]|1[0-2])|(?:middle|high|elementary|primary|junior high|grade|secondary) ?school\w*|freshm[ae]n|sophomores?|preteens?|pre teens?|tweens?|teens?|teenage\w*|kids?|kiddies?|child\w*|minors?|under ?age\w*|under ?(?:1[0-8])|little (?:girl|boy)s?|schoolgirls?|schoolboys?|toddlers?|bab(?:y|ies)|infants?|loli\w*|shota\w*|jailbait|secundaria|primaria|colegiala\w*|niñ[oa]s?|nin[oa]s?|ragazzin[ae]|menor(?:es)? de edad|menores|meninas?|meninos?|lycéen\w*|collégien\w*|enfants?|gamines?|schüler\w*|schulmädchen|kind|kinder\w*|mädchen|minderjährig\w*|bambin[ei]|ragazzin[ei]|dziewczynk\w*|çocuk\w*|reşit olmayan|школьни\w*|девочк\w*|мальчик\w*|малолет\w*|несовершеннолет\w*|ребен\w*|дет\w*)\b|小学生|中学生|高校生|女子高生|JK|児童|子供|子ども|幼女|少女|儿童|歳|岁|幼女|萝莉|未成年|初中生|小学生|中学生|초등학생|중학생|고등학생|미성년|아동|어린이|लड़की|बच्च|नाबालिग|قاصر|أطفال|طفل`)

// rules matches the lexicons against every reading of v.
func (p *Pipeline) rules(v views) (Category, int) {
	words := [][]string{v.words, v.leet, v.joined}
	if oneForL(v.plain) { // "ki11 a11": leet reads 1 as i, and it stands for l as often
		words = append(words, tokens(strings.ReplaceAll(v.plain, "1", "l"), true, true))
	}
	var readings []string
	var hits []literalHits // the rules' literals in each reading
	var seen memo          // the readings are mostly the same text: what the allowed phrases find in a window, found once
	for i, w := range words {
		if !slices.ContainsFunc(words[:i], func(o []string) bool { return slices.Equal(o, w) }) { // most notes read the same every way
			r, h := cleaned(p.allowToken, v.mem.spaced(w), &seen)
			readings, hits = append(readings, r), append(hits, h)
		}
	}
	// The allowed phrases ("kill the zombie process") are taken out of every reading first, even where the rules
	// find nothing as written: a gap of a rule ("self harm .{0,30} tips") may be bridged once one is out.
	found, best := p.token.matchHits(readings, hits)
	// The native reading's allowed phrases and rules, and the raw rules, in one pass: the raw rules read the plain
	// text, which is the native reading in most notes.
	groupHits := p.plainGroup.hits(v.native)
	rawHits := groupHits[2]
	if v.native != v.plain {
		rawHits = p.raw.set.hits(v.plain)
	}
	if c, r := p.raw.matchHits([]string{v.plain}, []literalHits{rawHits}); r < best {
		found, best = c, r
	}
	if best > rank(Profanity) && maskedSwear(v.plain) {
		found, best = Profanity, rank(Profanity)
	}
	exact, exactHits := cleaned(p.allowExactRules, v.mem.spaced(v.exact), nil)
	if c, r := p.exact.matchHits([]string{exact}, []literalHits{exactHits}); r < best {
		found, best = c, r
	}
	// Every note: Spanish, German, French or Turkish folds to ASCII and still needs its lexicons.
	native, nativeHits := cleanedHits(p.plainGroup, v.native, groupHits, nil)
	if c, r := p.native.matchHits([]string{native}, []literalHits{nativeHits}); r < best {
		found, best = c, r
	}
	return found, best
}

// cleaned is s with the matches of the first set of g (allowed phrases) taken out, and the hits of its second set
// (rules) in what is left: found in the same pass when nothing was taken out.
func cleaned(g *setGroup, s string, mm *memo) (string, literalHits) {
	return cleanedHits(g, s, g.hits(s), mm)
}

// cleanedHits is cleaned, given the hits of g in s.
func cleanedHits(g *setGroup, s string, hits [maxGroup]literalHits, mm *memo) (string, literalHits) {
	if out := g.sets[0].replaceHits(s, hits[0], mm); out != s {
		return out, g.sets[1].hits(out)
	}
	return s, hits[1]
}

// mildWords are mild swear words and interjections in the languages of the board: mildSwear finds them as
// written, mildSqueezed is them as the profanity rules read them.
var (
	mildWords    = []string{"shit", "shite", "pissed", "ffs", "damn", "dammit", "crap", "bloody", "joder", "mierda", "putain", "merde", "porra", "scheiße", "scheisse", "verdammt", "verdomme", "kahretsin", "lanet olsun"}
	mildSwear    = regexp.MustCompile(`(?:^|[^\pL\pN])(?:` + strings.Join(mildWords, "|") + `)(?:[^\pL\pN]|$)`)
	mildSqueezed = func() map[string]bool {
		m := map[string]bool{}
		for _, w := range mildWords {
			m[squeeze(w)] = true
		}
		return m
	}()
	swearSqueezed = regexp.MustCompile(squeezePattern(patterns[Profanity][0]))
	swearExact    = regexp.MustCompile(exactPatterns[Profanity][0])
)

// mildInterjection reports a note whose only swearing is one mild word ("Shit, forgot to push", "Putain, j'ai
// failli rater le train") in a note of eight words or more: mild swearing that is no rant, where the profanity
// category is gratuitous or obscene swearing. Two swear words, a strong one, or a masked one are a rant, in any of
// the readings the profanity rules read ("cuuuunts" is "cunts" there).
func (p *Pipeline) mildInterjection(v views) bool {
	if len(v.words) < 8 || maskedSwear(v.plain) || len(mildSwear.FindAllStringIndex(v.plain, 2)) != 1 {
		return false
	}
	if swearExact.MatchString(p.cleanExact(v.exact)) {
		return false
	}
	for _, words := range [][]string{v.words, v.leet, v.joined} {
		found := swearSqueezed.FindAllString(p.clean(words), 2)
		if len(found) > 1 || len(found) == 1 && !mildSqueezed[strings.TrimSpace(found[0])] {
			return false
		}
	}
	return true
}

// oneForL reports a 1 between letters, or doubled after one ("k1ll", "ki11"): where a 1 may stand for an l.
func oneForL(s string) bool {
	letter := func(i int) bool {
		return i >= 0 && i < len(s) && ('a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z')
	}
	for i := strings.IndexByte(s, '1'); i >= 0 && i < len(s); {
		if letter(i-1) && (letter(i+1) || i+1 < len(s) && s[i+1] == '1') {
			return true
		}
		j := strings.IndexByte(s[i+1:], '1')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// wordinessTurned is the wordiness of a text (the share of its words of two letters or more that are among the most
// common English words) as it is, reversed, in ROT13, and in ROT13 reversed, without writing it out turned (the
// words of a turned text are its words turned).
func wordinessTurned(text string) [4]float64 { return wordinessIn(turnedWordsOf(text), 0, len(text)) }

// turnedWord is a word of two letters or more of a text, as eachWord reads it (squeezed): where it starts and ends,
// and whether it is a common English word as written, reversed, in ROT13 and in ROT13 reversed (bits 0 to 3).
type turnedWord struct {
	start, end int
	turned     uint8
}

// turnedWordsOf reads the words of text for wordinessIn. The result is never nil.
func turnedWordsOf(text string) []turnedWord { return readNoteWords(text).turned }

// wordinessIn is wordinessTurned of text[start:end], from the words of text: the parts it is asked of (lines and
// sentences) end at characters that are no letters, so the words of a part are the words of the whole within it.
func wordinessIn(words []turnedWord, start, end int) [4]float64 {
	var known [4]int
	n := 0
	for _, w := range words {
		if w.start < start || w.end > end {
			continue
		}
		n++
		for k := range known {
			known[k] += int(w.turned >> k & 1)
		}
	}
	var out [4]float64
	for k := range out {
		out[k] = float64(known[k]) / float64(max(n, 1))
	}
	return out
}

// bestShift is the shift of the alphabet (other than ROT13's) under which the most words of text are common English
// words, and their share.
func bestShift(text string) (int, float64) {
	var words [][]byte
	eachWord(text, true, func(w []byte) {
		if len(w) >= 2 {
			words = append(words, append([]byte(nil), w...))
		}
	})
	best, share := 0, 0.0
	buf := make([]byte, 0, 32)
	for k := 1; k < 26 && len(words) > 0; k++ {
		if k == 13 {
			continue
		}
		known := 0
		for _, w := range words {
			buf = append(buf[:0], w...)
			if commonWords[string(shiftBytes(buf, k))] {
				known++
			}
		}
		if s := float64(known) / float64(len(words)); s > share {
			best, share = k, s
		}
	}
	return best, share
}

// reverseWords reverses each word of s in its place.
func reverseWords(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		f[i] = reverse(w)
	}
	return strings.Join(f, " ")
}

// caesar shifts the Latin letters of s by k places.
func caesar(s string, k int) string { return string(shiftBytes([]byte(s), k)) }

func shiftBytes(b []byte, k int) []byte {
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + byte((int(c-'a')+k)%26)
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + byte((int(c-'A')+k)%26)
		}
	}
	return b
}

// flipped reads text written upside down ("ʍoɹɹoɯoʇ noʎ llᴉʞ") the right way up: turned round, each letter read as
// the one it is drawn from. "" when the text has fewer than two letters that only upside-down writing uses.
func flipped(text string) string {
	if isASCII(text) {
		return ""
	}
	n := 0
	for _, r := range text {
		if r >= 0x100 && upsideOnly[r] {
			n++
		}
	}
	if n < 2 {
		return ""
	}
	rs := []rune(text)
	slices.Reverse(rs)
	for i, r := range rs {
		if l, ok := upright[r]; ok {
			rs[i] = l
		}
	}
	return string(rs)
}

var (
	upright = map[rune]rune{'ɐ': 'a', 'q': 'b', 'ɔ': 'c', 'p': 'd', 'ǝ': 'e', 'ə': 'e', 'ɟ': 'f', 'ƃ': 'g', 'ɥ': 'h', 'ᴉ': 'i',
		'ı': 'i', 'ɾ': 'j', 'ʞ': 'k', 'ɯ': 'm', 'u': 'n', 'd': 'p', 'b': 'q', 'ɹ': 'r', 'ʇ': 't', 'n': 'u', 'ʌ': 'v', 'ʍ': 'w',
		'ʎ': 'y', '∀': 'a', 'Ɔ': 'c', 'Ǝ': 'e', 'Ⅎ': 'f', '⅁': 'g', 'ſ': 'j', 'Ꞁ': 'l', 'Ԁ': 'p', 'Ꞟ': 'u', 'Λ': 'v', '⅄': 'y'}
	upsideOnly = map[rune]bool{'ɐ': true, 'ɔ': true, 'ǝ': true, 'ɟ': true, 'ƃ': true, 'ɥ': true, 'ᴉ': true, 'ı': true,
		'ɾ': true, 'ʞ': true, 'ɯ': true, 'ɹ': true, 'ʇ': true, 'ʌ': true, 'ʍ': true, 'ʎ': true, '∀': true, 'Ǝ': true, '⅄': true}
)

// rot13Bytes is rot13 in place.
func rot13Bytes(b []byte) []byte {
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+13)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+13)%26
		}
	}
	return b
}

// commonWords are frequent English words (squeezed, as the readings are).
var commonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`the be to of and in that have it for not on with he as you do at this but his by from
		they we say her she or an will my one all would there their what so up out if about who get which go me when make
		can like time no just him know take people into year your good some could them see other than then now look only
		come its over think also back after use two how our work first well way even new want because any these give day
		most us is are was were been has had did does am i im dont cant wont send post show tell print run give all every
		never always please here where why yes agent agents note notes board model models prompt system key keys kill
		die hate want need must should now sex girl girls boy boys kid kids child year old years porn pics photos`) {
		m[squeeze(w)] = true
	}
	return m
}()

// turnedWords says, for each word, which way round it is a common word: as it is (bit 0), reversed (1), in ROT13
// (2), in ROT13 reversed (3). One lookup of the word as written answers all four.
var turnedWords = func() map[string]uint8 {
	m := map[string]uint8{}
	for w := range commonWords {
		m[w] |= 1
		m[reverse(w)] |= 2
		m[rot13(w)] |= 4
		m[reverse(rot13(w))] |= 8
	}
	return m
}()

// latinParts are where in s ROT13 and reversal are tried: the whole note, and when it has several, its lines and
// sentences (at most eight), each mostly in Latin letters, as spans of s, appended to out (nine at most).
func latinParts(s string, out [][2]int) [][2]int {
	if latinText(s) {
		out = append(out, [2]int{0, len(s)})
	}
	var spans [9][2]int
	parts := appendSentenceSpans(spans[:0], s, 9)
	if len(parts) < 2 {
		return out
	}
	for _, at := range parts[:min(len(parts), 8)] {
		if p := s[at[0]:at[1]]; latinText(p) && atLeastFields(p, 4) {
			out = append(out, at)
		}
	}
	return out
}

// atLeastFields reports whether s has n fields or more, as strings.Fields splits it.
func atLeastFields(s string, n int) bool {
	for range strings.FieldsSeq(s) {
		if n--; n == 0 {
			return true
		}
	}
	return n <= 0
}

var sentenceEnd = regexp.MustCompile(`[.!?:;]\s+|\n+`)

// sentences is sentenceEnd.Split(s, n) without the regular expression engine: s cut at each ".", "!", "?", ":" or
// ";" followed by white space, and at each run of line breaks, into at most n parts.
func sentences(s string, n int) []string {
	var out []string
	for _, at := range sentenceSpans(s, n) {
		out = append(out, s[at[0]:at[1]])
	}
	return out
}

// sentenceSpans is sentences as spans of s.
func sentenceSpans(s string, n int) [][2]int { return appendSentenceSpans(nil, s, n) }

// appendSentenceSpans appends sentenceSpans(s, n) to out.
func appendSentenceSpans(out [][2]int, s string, n int) [][2]int {
	if len(s) == 0 {
		return append(out, [2]int{0, 0})
	}
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	first := len(out)
	beg, end := 0, 0
	for i := 0; i < len(s) && len(out)-first < n-1; {
		j := i
		switch {
		case (s[i] == '.' || s[i] == '!' || s[i] == '?' || s[i] == ':' || s[i] == ';') && i+1 < len(s) && space(s[i+1]):
			for j = i + 1; j < len(s) && space(s[j]); j++ {
			}
		case s[i] == '\n':
			for j = i; j < len(s) && s[j] == '\n'; j++ {
			}
		default:
			i++
			continue
		}
		end = i
		out = append(out, [2]int{beg, end})
		beg, i = j, j
	}
	if end != len(s) {
		out = append(out, [2]int{beg, len(s)})
	}
	return out
}

// latinText reports whether s is mostly Latin letters, the only text that ROT13 and reversal hide.
func latinText(s string) bool {
	latin, other := 0, 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if 'a' <= c|0x20 && c|0x20 <= 'z' {
				latin++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsLetter(r) {
			other++
		}
		i += size
	}
	return latin >= 8 && latin > 4*other
}

// handleWords reads a handle as words: separators and changes of case or from letters to digits split it.
func handleWords(h string) string {
	var b strings.Builder
	var prev rune
	for i, r := range h {
		switch {
		case r == '_' || r == '-' || r == '.':
			b.WriteByte(' ')
			prev = ' '
			continue
		case i > 0 && (unicode.IsUpper(r) && unicode.IsLower(prev) || unicode.IsDigit(r) != unicode.IsDigit(prev) && prev != ' '):
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// clean joins tokens into one line with the allowed idioms taken out.
func (p *Pipeline) clean(words []string) string { return p.allow.remove(words) }

// cleanExact is clean for the unsqueezed reading.
func (p *Pipeline) cleanExact(words []string) string { return p.allowExact.remove(words) }

// spammy catches spam by its shape: one word over and over, or shouting.
// What keyword and branch offers are answered by and sold at, looked for before their expressions run.
var (
	keywordVerbs = newAnyOf("reply", "text", "sms", "dm", "message", "whatsapp")
	branchWords  = newAnyOf("branch", "store", "shop", "showroom", "outlet", "agents")
)

func spammy(v views) bool {
	if len(v.words) >= 8 && oneWordOver(v.words) {
		return true
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
	if letters >= 40 && upper*10 >= letters*7 || strings.Count(v.raw, "!")-strings.Count(v.raw, "!=") >= 8 {
		return true
	}
	// An offer answered through a keyword in capitals, as written ("Reply LOAN for a callback"), but not a helpline's
	// ("Crisis Text Line: text HOME to 741741, free"), or at a branch ("ask at any of our branches"). The expressions
	// run only where their words are: most notes have neither.
	keyword := upperPair(v.raw) && keywordVerbs.in(v.plain)
	branch := strings.Contains(v.plain, "our ") && branchWords.in(v.plain)
	return keyword && replyKeyword.MatchString(v.raw) && anOffer.MatchString(v.plain) && !serviceLine.MatchString(v.plain) ||
		branch && ourBranches.MatchString(v.plain) && anOffer.MatchString(v.plain)
}

// oneWordOver reports one word over and over: eight times, and a fifth of the note.
func oneWordOver(words []string) bool {
	counts := wordCounts.Get().(map[string]int)
	defer func() { clear(counts); wordCounts.Put(counts) }()
	for _, w := range words {
		if len(w) > 2 && !commonWords[w] {
			counts[w]++
			if counts[w] >= 8 && counts[w]*5 >= len(words) {
				return true
			}
		}
	}
	return false
}

// upperPair reports two ASCII capitals in a row.
func upperPair(s string) bool {
	for i := 1; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' && 'A' <= s[i-1] && s[i-1] <= 'Z' {
			return true
		}
	}
	return false
}

var (
	// A keyword answered to a short code or for a quote, a callback, a discount: what ads ask for, not what a bot's
	// commands ("comment LGTM to merge", "reply STOP to opt out") or a helpline's keyword are.
	replyKeyword = regexp.MustCompile(`\b(?i:reply|text|sms|dm|message|whatsapp)\s+(?i:us\s+|me\s+)?["'“]?[A-Z]{2,12}["'”]?\s+(?i:to\s+(?:\d{4,6}|get|claim|receive|order|book|win|buy)\b|for\s+\d+\s?%|for\s+(?:a\s+|an\s+|your\s+|the\s+)?(?:free\s+)?(?:quotes?|callback|call ?back|discounts?|offers?|deals?|loans?|promo|coupons?|codes?|vouchers?|trial|samples?|gifts?|prizes?|prices?|rates?)\b|now\b|today\b)`)
	ourBranches  = regexp.MustCompile(`\b(?:ask|apply|visit|come|walk in|drop by|pop in)(?: in)? (?:at |to |into )?(?:any of )?our (?:branch|branches|stores?|shops?|showrooms?|outlets?|agents)\b`)
	// anOffer is the money of an ad: a price, a discount, a loan, a quote.
	anOffer = regexp.MustCompile(`\b(?:\d+ ?% (?:off|interest|apr)|discounts?|loans?|no credit check|cash|cheap|cheapest|promo\w*|on sale|callback|quotes?|approved|guaranteed|limited time|order now)\b|[$€£]\s?\d|\d+ ?% off`)
)

// wordCounts lends spammy its counting map, emptied between notes.
var wordCounts = sync.Pool{New: func() any { return map[string]int{} }}

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
