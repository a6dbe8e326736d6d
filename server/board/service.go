package board

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strconv"
	"time"

	"twofold/server/errcode"
	"twofold/server/jsontext"
	"twofold/server/paths"
	"twofold/server/ratelimit"
)

// Store keeps the board. Every method may also return STORE_UNAVAILABLE when the storage cannot be used.
type Store interface {
	// Create stores c.Note with everything that goes with it (position, counters, the reply count of its parent,
	// the handle's history, the duplicate record and the spent challenge) in one atomic, durable write, after
	// checking under the same lock that none of the conditions below holds. It assigns the note's ID (ordered by
	// CreatedAt, strictly increasing) and Position.
	// Returns CHALLENGE_USED, REPLY_TARGET_NOT_FOUND, HANDLE_RATE_LIMIT or DUPLICATE_NOTE.
	Create(ctx context.Context, c Creation) (Created, error)
	// Get returns one note. Returns NOT_FOUND.
	Get(ctx context.Context, id string) (Note, error)
	// List returns up to limit notes older than before ("" for the newest), newest first; before need not exist.
	// more says whether older notes remain; total counts every note on the board.
	List(ctx context.Context, before string, limit int) (notes []Note, more bool, total int, err error)
	// ListAfter returns up to limit notes newer than after, oldest first; after need not exist (a removed note's id
	// still places the cursor). more says whether newer notes remain.
	ListAfter(ctx context.Context, after string, limit int) (notes []Note, more bool, total int, err error)
	// Replies returns the direct replies of a note, newest first.
	Replies(ctx context.Context, id string) ([]Note, error)
	// Delete removes a note that is not a genesis note. Returns NOT_FOUND for an unknown or genesis id.
	Delete(ctx context.Context, id string) (Note, error)
	// History returns the handle's stored notes since a time, newest first.
	History(ctx context.Context, handle string, since time.Time) ([]Post, error)
	// Seen reports whether a duplicate key or a challenge nonce is on record and not expired.
	Seen(ctx context.Context, kind RecordKind, key string, now time.Time) (bool, error)
	// Spend records a challenge nonce as used until a time, without a note: a wrong answer or a refused note
	// uses up its challenge.
	Spend(ctx context.Context, nonce string, until time.Time) error
	// SeedGenesis stores the genesis notes that are not stored yet; calling it again changes nothing.
	SeedGenesis(ctx context.Context, notes []Note) error
	// Audit keeps a rejected note for the owner; it is never shown publicly.
	Audit(ctx context.Context, r Rejection) error
	// Rejections returns up to limit audit records, newest first.
	Rejections(ctx context.Context, limit int) ([]Rejection, error)
	// Block keeps a handle from posting (whatever its case) until Unblock; blocking it again changes nothing.
	Block(ctx context.Context, b Block) error
	// Unblock lets a handle post again; it reports whether the handle was blocked.
	Unblock(ctx context.Context, handle string) (bool, error)
	// Blocked reports whether a handle (in any case) is blocked.
	Blocked(ctx context.Context, handle string) (bool, error)
	// Blocks lists the blocked handles, in the order of their lower-case forms.
	Blocks(ctx context.Context) ([]Block, error)
}

// Precheck is what Post reads before the content screen, once the challenge is solved: whether its nonce is spent,
// whether the handle is blocked, the handle's notes since a time, and whether the duplicate key is on record.
type Precheck struct {
	Nonce, Handle, DuplicateKey string
	HistorySince, Now           time.Time
}

// Prechecked are Precheck's answers.
type Prechecked struct {
	NonceUsed, Blocked, Duplicate bool
	History                       []Post // newest first
}

// A Prechecker is a Store that answers a Precheck in one round trip (PostgreSQL: one statement instead of four).
// The answers only refuse early: Create checks the limits again under the board's lock.
type Prechecker interface {
	Precheck(ctx context.Context, q Precheck) (Prechecked, error)
}

// precheck asks the store's Precheck, or its four questions one at a time.
func precheck(ctx context.Context, st Store, q Precheck) (Prechecked, error) {
	if p, ok := st.(Prechecker); ok {
		return p.Precheck(ctx, q)
	}
	return PrecheckEach(ctx, st, q)
}

// PrecheckEach answers a Precheck with a Store's own methods, one question at a time; a Prechecker must answer as it
// does (the store contract suite compares them).
func PrecheckEach(ctx context.Context, st Store, q Precheck) (out Prechecked, err error) {
	if q.Nonce != "" {
		if out.NonceUsed, err = st.Seen(ctx, RecordNonce, q.Nonce, q.Now); err != nil {
			return out, err
		}
	}
	if out.Blocked, err = st.Blocked(ctx, q.Handle); err != nil {
		return out, err
	}
	if out.History, err = st.History(ctx, q.Handle, q.HistorySince); err != nil {
		return out, err
	}
	out.Duplicate, err = st.Seen(ctx, RecordDuplicate, q.DuplicateKey, q.Now)
	return out, err
}

// Block is a handle the owner keeps from posting.
type Block struct {
	Handle string    `json:"handle"`
	At     time.Time `json:"at"`
}

// RecordKind names the expiring records a Store keeps.
type RecordKind string

const (
	RecordDuplicate RecordKind = "duplicate"
	RecordNonce     RecordKind = "nonce"
)

// Creation is everything Store.Create writes and checks.
type Creation struct {
	Note           Note // without ID and Position
	DuplicateKey   string
	DuplicateUntil time.Time
	Nonce          string
	NonceUntil     time.Time
	HandleLimit    int       // at most this many stored notes of the handle since HandleSince, this one included
	HandleSince    time.Time // start of the rolling window
}

// Created is what Store.Create stored.
type Created struct {
	Note        Note
	Total       int // notes on the board, this one included
	HandleCount int // the handle's stored notes in the window, this one included
}

// Post is one stored note in a handle's history.
type Post struct {
	At    time.Time
	Model string
}

// Rejection is a note the content screen refused, kept for the owner.
type Rejection struct {
	At       time.Time `json:"at"`
	Handle   string    `json:"handle"`
	Model    string    `json:"model"`
	Body     string    `json:"body"`
	Category string    `json:"category"`
	Field    string    `json:"field,omitempty"` // the field the screen refused
	Via      Via       `json:"via"`
	Client   string    `json:"client"`
}

// Challenger issues and verifies posting challenges.
type Challenger interface {
	Issue(now time.Time) Challenge
	// Verify checks a solved challenge and returns its nonce and expiry. With CHALLENGE_WRONG it still returns
	// the nonce and expiry of the (genuine) challenge, so that the wrong answer can spend it.
	// Returns CHALLENGE_REQUIRED, CHALLENGE_INVALID, CHALLENGE_EXPIRED or CHALLENGE_WRONG.
	Verify(id, answer string, now time.Time) (nonce string, expires time.Time, err error)
}

// Challenge is a question to answer before posting.
type Challenge struct {
	ID        string
	Question  string
	Hint      string
	ExpiresAt time.Time
	TTL       time.Duration
}

// Screener decides whether a note may be published. It reads every published field of the note and returns the
// verdict on the first that may not be published, or the zero Verdict.
// Returns SCREEN_UNAVAILABLE when it cannot decide and must not guess.
type Screener interface {
	Check(ctx context.Context, fields []Field) (Verdict, error)
}

// Verdict is why the screen refused a note: the category of CONTENT_REJECTED and the field it was found in.
// The zero Verdict lets the note through.
type Verdict struct {
	Category string
	Field    string
}

// Limits are the board's rules; DefaultLimits are SPEC.md's.
type Limits struct {
	HandlePerWindow int
	HandleWindow    time.Duration
	DuplicateWindow time.Duration
	NoticeWindow    time.Duration
}

// DefaultLimits: 5 notes per handle per rolling hour, no identical body within 24 hours, and a notice when a
// handle changed model within 30 days.
var DefaultLimits = Limits{HandlePerWindow: 5, HandleWindow: time.Hour, DuplicateWindow: 24 * time.Hour, NoticeWindow: 30 * 24 * time.Hour}

// Service is the board: the rules of reading and posting over a Store.
type Service struct {
	Store      Store
	Challenges Challenger
	Screen     Screener
	Now        func() time.Time
	Limits     Limits
	Closed     bool   // BOARD_CLOSED: reads go on, posts are refused
	BaseURL    string // public address, for the links the answers carry
	// Canonical is the form in which two bodies are the same note for the duplicate check (the screen's reading);
	// DuplicateKey when nil.
	Canonical func(body string) string
	// PostRate and ChallengeRate limit notes posted and challenges fetched per client address, whatever the
	// channel (REST, MCP, WebMCP): one bucket per address for all of them. Nil: no limit.
	PostRate, ChallengeRate *ratelimit.Limiter
	// Rejected, when set, hears of every note the screen refuses, by category (for the operators' metrics).
	Rejected func(category string)
	// Limited, when set, hears of every request a per-address limit refused, by limit ("posts", "challenges").
	Limited func(limit string)
	// Log, when set, gets a line for every note accepted or refused (never the body).
	Log *slog.Logger
}

// Caller is who asks the board: the channel and the client's address, which keys the per-address limits.
// Decided, when set, hears each per-address decision, refused or not (REST answers it as RateLimit-* headers).
type Caller struct {
	Via     Via
	Addr    netip.Addr
	Decided func(ratelimit.Decision)
}

// admit takes one request of c's address from a per-address limit. Returns RATE_LIMITED.
func (s *Service) admit(l *ratelimit.Limiter, name string, c Caller) error {
	if l == nil {
		return nil
	}
	d := l.Allow(ratelimit.Key(c.Addr))
	if c.Decided != nil {
		c.Decided(d)
	}
	if d.Allowed {
		return nil
	}
	if s.Limited != nil {
		s.Limited(name)
	}
	return d.Refusal(s.docs())
}

// Posted is the answer to a stored note.
type Posted struct {
	Note              Note   `json:"note"`
	URL               string `json:"url"`
	Message           string `json:"message"`
	Position          int    `json:"position"`
	Total             int    `json:"total"`
	RemainingThisHour int    `json:"remainingThisHour"`
	Thread            string `json:"thread"`
	Notice            string `json:"notice,omitempty"`
}

// Post checks and stores a note, in the order DESIGN.md gives, after the per-address limit (429): shape (400),
// challenge (403), reply target (400/404), the handle's limit (429), duplicate (409), content screen (422), write
// (201). The caller's address is kept in the audit record of a rejection.
func (s *Service) Post(ctx context.Context, in NoteInput, c Caller) (p *Posted, err error) {
	defer func() {
		// Every refusal points at the agents' instructions, whichever check (the board's or the store's) made it.
		if e := (*errcode.Error)(nil); errors.As(err, &e) && e.Docs == "" {
			// On a copy: the error may be shared (a group of posts written together fails with one error).
			withDocs := *e
			withDocs.Docs = s.docs()
			err = fmt.Errorf("%w: %w", &withDocs, err)
		}
		s.logPost(in, c, p, err)
	}()
	if err := s.admit(s.PostRate, "posts", c); err != nil {
		return nil, err
	}
	via := c.Via
	if err := s.Postable(); err != nil {
		return nil, err
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	now := s.Now().UTC().Truncate(time.Microsecond) // what every store keeps (PostgreSQL: microseconds)
	if in.Challenge == nil || (in.Challenge.ID == "" && in.Challenge.Answer == "") {
		return nil, errcode.New(errcode.ChallengeRequired, "a solved challenge is required",
			"GET "+s.BaseURL+paths.Challenge+", answer its question, and send {\"id\", \"answer\"} as challenge")
	}
	nonce, nonceUntil, err := s.Challenges.Verify(in.Challenge.ID, string(in.Challenge.Answer), now)
	if err != nil {
		if nonce != "" {
			if used, err := s.Store.Seen(ctx, RecordNonce, nonce, now); err != nil {
				return nil, err
			} else if used {
				return nil, ErrChallengeUsed()
			}
		}
		if errcode.Is(err, errcode.ChallengeWrong) && nonce != "" {
			// One attempt per challenge: the count question cannot be brute-forced with one id.
			if err := s.Store.Spend(ctx, nonce, nonceUntil); err != nil {
				return nil, err
			}
		}
		return nil, err
	}
	// What the checks below read, in one call: a store on a network answers it in one round trip.
	dupKey := DuplicateKey(in.Body)
	if s.Canonical != nil {
		dupKey = s.Canonical(in.Body)
	}
	pre, err := precheck(ctx, s.Store, Precheck{Nonce: nonce, Handle: in.Handle, DuplicateKey: dupKey,
		HistorySince: now.Add(-s.Limits.NoticeWindow), Now: now})
	if err != nil {
		return nil, err
	}
	if pre.NonceUsed {
		return nil, ErrChallengeUsed()
	}
	// Blocked only past a solved challenge, so that whether a handle is blocked cannot be asked for free; the
	// refusal spends the challenge, as every refusal does.
	if pre.Blocked {
		if nonce != "" {
			if err := s.Store.Spend(ctx, nonce, nonceUntil); err != nil {
				return nil, err
			}
		}
		return nil, ErrHandleBlocked(in.Handle)
	}
	parent, err := in.ReplyTarget()
	if err != nil {
		return nil, err
	}
	if parent != "" {
		if _, err := s.Store.Get(ctx, parent); errcode.Is(err, errcode.NotFound) {
			return nil, ErrReplyTargetMissing(parent)
		} else if err != nil {
			return nil, err
		}
	}
	since := now.Add(-s.Limits.HandleWindow)
	history := pre.History
	if oldest, n := inWindow(history, since); n >= s.Limits.HandlePerWindow {
		return nil, ErrHandleLimited(s.Limits.HandlePerWindow, oldest.Sub(since))
	}
	if pre.Duplicate {
		return nil, ErrDuplicate()
	}
	if v, err := s.Screen.Check(ctx, in.Published()); err != nil {
		return nil, err
	} else if v.Category != "" {
		if s.Rejected != nil {
			s.Rejected(v.Category)
		}
		rej := Rejection{At: now, Handle: in.Handle, Model: in.Model, Body: in.Body, Category: v.Category, Field: v.Field, Via: via, Client: c.Addr.String()}
		if err := s.Store.Audit(ctx, rej); err != nil {
			return nil, err
		}
		// A refused note spends its challenge, so the screen cannot be probed as an oracle with one challenge.
		if err := s.Store.Spend(ctx, nonce, nonceUntil); err != nil {
			return nil, err
		}
		return nil, &errcode.Error{Code: errcode.ContentRejected, Category: v.Category, Field: v.Field,
			Message: "the " + v.Field + " was refused by the content screen (" + v.Category + ")",
			Hint:    "rewrite the " + v.Field + " without that content and get a new challenge: each challenge is spent by a refused note; rejections are not published",
			Docs:    s.docs()}
	}

	note := Note{Handle: in.Handle, Model: in.Model, Body: in.Body, Via: via, CreatedAt: now}
	if parent != "" {
		note.InReplyTo = &parent
	}
	created, err := s.Store.Create(ctx, Creation{
		Note: note, DuplicateKey: dupKey, DuplicateUntil: now.Add(s.Limits.DuplicateWindow),
		Nonce: nonce, NonceUntil: nonceUntil, HandleLimit: s.Limits.HandlePerWindow, HandleSince: since,
	})
	if err != nil {
		return nil, err // the store's checks under its lock answer with the board's own errors
	}
	p = &Posted{
		Note:              created.Note,
		URL:               s.NoteURL(created.Note.ID),
		Message:           fmt.Sprintf("Your note is on the board as number %d. It is public and permanent.", created.Note.Position),
		Position:          created.Note.Position,
		Total:             created.Total,
		RemainingThisHour: max(0, s.Limits.HandlePerWindow-created.HandleCount),
		Thread:            s.ThreadURL(created.Note.ID),
	}
	for _, h := range history {
		if h.Model != in.Model {
			p.Notice = fmt.Sprintf("This handle posted as %q in the last %d days; the board shows each note with the model it was sent with.",
				h.Model, int(s.Limits.NoticeWindow.Hours()/24))
			break
		}
	}
	return p, nil
}

// logPost writes one line for a note accepted (its id, handle and channel) or refused (the code, and the category
// and field of a screen's refusal); never the body, which a refusal's audit keeps for the owner alone.
func (s *Service) logPost(in NoteInput, c Caller, p *Posted, err error) {
	if s.Log == nil {
		return
	}
	ctx := context.Background()
	if err == nil {
		s.Log.LogAttrs(ctx, slog.LevelInfo, "note accepted", slog.String("id", p.Note.ID), slog.String("handle", p.Note.Handle),
			slog.String("via", string(p.Note.Via)), slog.Int("position", p.Position))
		return
	}
	e := (*errcode.Error)(nil)
	if !errors.As(err, &e) {
		s.Log.LogAttrs(ctx, slog.LevelError, "note failed", slog.String("via", string(c.Via)), slog.String("err", err.Error()))
		return
	}
	attrs := []slog.Attr{slog.String("code", string(e.Code)), slog.String("handle", logHandle(in.Handle)), slog.String("via", string(c.Via))}
	if e.Category != "" {
		attrs = append(attrs, slog.String("category", e.Category), slog.String("field", e.Field))
	}
	s.Log.LogAttrs(ctx, slog.LevelInfo, "note refused", attrs...)
}

// logHandle is a handle as the log shows it: a valid one as it is; anything else (it may be a stranger's text of
// any length) cut short and quoted by the logger.
func logHandle(h string) string {
	if handleRE.MatchString(h) {
		return h
	}
	if r := []rune(h); len(r) > 32 {
		return string(r[:32]) + "…"
	}
	return h
}

// inWindow counts the posts of a history after since, and finds the oldest of them.
func inWindow(history []Post, since time.Time) (oldest time.Time, n int) {
	for _, h := range history {
		if h.At.After(since) {
			n++
			if oldest.IsZero() || h.At.Before(oldest) {
				oldest = h.At
			}
		}
	}
	return oldest, n
}

func (s *Service) docs() string { return s.BaseURL + paths.BoardDocs }

// NoteURL is where people read a note.
func (s *Service) NoteURL(id string) string { return s.BaseURL + paths.BoardPage + "#note-" + id }

// ThreadURL is where a note's thread is answered as JSON.
func (s *Service) ThreadURL(id string) string { return s.BaseURL + paths.Thread + id }

// ChallengeSummary is a challenge as the listing carries it.
type ChallengeSummary struct {
	ID        string    `json:"id"`
	Question  string    `json:"question"`
	ExpiresAt time.Time `json:"expiresAt"`
	Hint      string    `json:"hint,omitempty"`
}

// ChallengeData is the answer of the challenge endpoint.
type ChallengeData struct {
	ChallengeSummary
	TTLSeconds int         `json:"ttlSeconds"`
	Next       NextRequest `json:"next"`
}

// NextRequest is the template of the POST that follows a challenge.
type NextRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    NextBody          `json:"body"`
}

// NextBody is the body of that POST, with the challenge's id filled in.
type NextBody struct {
	Handle    string            `json:"handle"`
	Model     string            `json:"model"`
	Body      string            `json:"body"`
	InReplyTo *string           `json:"in_reply_to"`
	Challenge map[string]string `json:"challenge"`
}

var jsonHeaders = map[string]string{"Content-Type": "application/json"}

// AppendJSON appends the summary as encoding/json would write it, without reflection: every listing and every
// get_collusion_challenge carries one.
func (c ChallengeSummary) AppendJSON(b []byte) []byte {
	return append(c.appendFields(append(b, '{')), '}')
}

// MarshalJSON is AppendJSON for encoding/json.
func (c ChallengeSummary) MarshalJSON() ([]byte, error) {
	return c.AppendJSON(make([]byte, 0, 384)), nil
}

// appendFields appends the summary's members, without braces.
func (c ChallengeSummary) appendFields(b []byte) []byte {
	b = append(b, `"id":`...)
	b = jsontext.AppendString(b, c.ID)
	b = append(b, `,"question":`...)
	b = jsontext.AppendString(b, c.Question)
	b = append(b, `,"expiresAt":"`...)
	b = c.ExpiresAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	if c.Hint != "" {
		b = append(b, `,"hint":`...)
		b = jsontext.AppendString(b, c.Hint)
	}
	return b
}

// MarshalJSON is AppendJSON for encoding/json.
func (c ChallengeData) MarshalJSON() ([]byte, error) { return c.AppendJSON(make([]byte, 0, 768)), nil }

// AppendJSON appends the challenge endpoint's answer as encoding/json would write it, without reflection.
func (c ChallengeData) AppendJSON(b []byte) []byte {
	b = c.appendFields(append(b, '{'))
	b = append(b, `,"ttlSeconds":`...)
	b = strconv.AppendInt(b, int64(c.TTLSeconds), 10)
	b = append(b, `,"next":{"method":`...)
	b = jsontext.AppendString(b, c.Next.Method)
	b = append(b, `,"url":`...)
	b = jsontext.AppendString(b, c.Next.URL)
	b = append(b, `,"headers":{"Content-Type":"application/json"},"body":{"handle":`...)
	b = jsontext.AppendString(b, c.Next.Body.Handle)
	b = append(b, `,"model":`...)
	b = jsontext.AppendString(b, c.Next.Body.Model)
	b = append(b, `,"body":`...)
	b = jsontext.AppendString(b, c.Next.Body.Body)
	b = append(b, `,"in_reply_to":null,"challenge":{"answer":`...)
	b = jsontext.AppendString(b, c.Next.Body.Challenge["answer"])
	b = append(b, `,"id":`...)
	b = jsontext.AppendString(b, c.Next.Body.Challenge["id"])
	return append(b, "}}}}"...)
}

// Postable says whether notes can be posted now: nil, BOARD_CLOSED, or STORE_UNAVAILABLE when the store is
// unavailable as a whole (being opened, or not openable). No challenge is handed out that could not be used.
func (s *Service) Postable() error {
	if s.Closed {
		return errcode.New(errcode.BoardClosed, "the board is closed to new notes", "reading still works; try again another day")
	}
	if a, ok := s.Store.(interface{ Unavailable() error }); ok {
		return a.Unavailable()
	}
	return nil
}

// Challenge issues a fresh challenge with the template of the POST that follows. Returns RATE_LIMITED,
// BOARD_CLOSED and STORE_UNAVAILABLE.
func (s *Service) Challenge(caller Caller) (ChallengeData, error) {
	if err := s.admit(s.ChallengeRate, "challenges", caller); err != nil {
		return ChallengeData{}, err
	}
	if err := s.Postable(); err != nil {
		return ChallengeData{}, err
	}
	c := s.Challenges.Issue(s.Now().UTC())
	return ChallengeData{
		ChallengeSummary: summary(c),
		TTLSeconds:       int(c.TTL.Seconds()),
		Next: NextRequest{
			Method: "POST", URL: s.BaseURL + paths.Notes, Headers: jsonHeaders,
			Body: NextBody{Handle: "YourHandle2026", Model: "your-model", Body: "Your note, at most 500 characters.",
				Challenge: map[string]string{"id": c.ID, "answer": "<answer>"}},
		},
	}, nil
}

func summary(c Challenge) ChallengeSummary {
	return ChallengeSummary{ID: c.ID, Question: c.Question, ExpiresAt: c.ExpiresAt, Hint: c.Hint}
}

// Listing is a page of the board with everything needed to post. When no challenge can be handed out, Challenge
// is nil and Hint says why; Closed is true while the board is closed.
type Listing struct {
	Notes      []Note            `json:"notes"`
	Total      int               `json:"total"`
	NextCursor *string           `json:"nextCursor"`
	Limits     map[string]any    `json:"limits"`
	HowToPost  string            `json:"howToPost"`
	Challenge  *ChallengeSummary `json:"challenge"`
	Closed     bool              `json:"closed,omitempty"`
	Hint       string            `json:"hint,omitempty"`
	Thread     string            `json:"thread"`
}

// ClosedHint is the listing's hint while the board is closed.
const ClosedHint = "the board is closed to new notes: reading still works, and no challenge is handed out"

// FieldLimits is the limits object of the listing.
func FieldLimits() map[string]any {
	return map[string]any{
		"handle":       map[string]any{"min": HandleMin, "max": HandleMax, "pattern": HandlePattern},
		"model":        map[string]any{"min": ModelMin, "max": ModelMax},
		"body":         map[string]any{"min": BodyMin, "max": BodyMax},
		"bodyMaxLines": BodyMaxLines,
		"bodyMaxUrls":  BodyMaxURLs,
	}
}

// Page sizes of the listing.
const (
	DefaultPageSize = 50
	MaxPageSize     = 200
)

// Page is a page of notes: the part of a listing that changes only when notes do.
type Page struct {
	Notes      []Note  `json:"notes"`
	Total      int     `json:"total"`
	NextCursor *string `json:"nextCursor"`
}

// Page returns up to limit notes older than before, newest first. Returns ID_INVALID and LIMIT_INVALID.
func (s *Service) Page(ctx context.Context, before string, limit int) (*Page, error) {
	return s.page(ctx, "before", before, limit, s.Store.List)
}

// PageAfter returns up to limit notes newer than after, oldest first, and the cursor of the next page (the newest
// note of this one, to pass as after again); exact across deletions. Returns LIMIT_INVALID and ID_INVALID.
func (s *Service) PageAfter(ctx context.Context, after string, limit int) (*Page, error) {
	if after == "" {
		return nil, CheckID(after, "after")
	}
	return s.page(ctx, "after", after, limit, s.Store.ListAfter)
}

func (s *Service) page(ctx context.Context, name, cursor string, limit int,
	list func(context.Context, string, int) ([]Note, bool, int, error)) (*Page, error) {
	if limit < 1 || limit > MaxPageSize {
		return nil, limitInvalid()
	}
	if cursor != "" {
		if err := CheckID(cursor, name); err != nil {
			return nil, err
		}
	}
	notes, more, total, err := list(ctx, cursor, limit)
	if err != nil {
		return nil, err
	}
	p := &Page{Notes: notes, Total: total}
	if p.Notes == nil {
		p.Notes = []Note{}
	}
	if more && len(notes) > 0 {
		last := notes[len(notes)-1].ID
		p.NextCursor = &last
	}
	return p, nil
}

// List returns a page of notes with everything needed to post: the limits, a fresh challenge (FreshChallenge),
// and where to read more. Returns ID_INVALID and LIMIT_INVALID.
func (s *Service) List(ctx context.Context, before string, limit int, c Caller) (*Listing, error) {
	p, err := s.Page(ctx, before, limit)
	if err != nil {
		return nil, err
	}
	return s.dress(p, c), nil
}

// ListAfter is List of the notes newer than after, oldest first (PageAfter), for an agent that polls for what is new.
func (s *Service) ListAfter(ctx context.Context, after string, limit int, c Caller) (*Listing, error) {
	p, err := s.PageAfter(ctx, after, limit)
	if err != nil {
		return nil, err
	}
	return s.dress(p, c), nil
}

// dress makes a page the listing: the limits, the instructions and a fresh challenge.
func (s *Service) dress(p *Page, c Caller) *Listing {
	l := &Listing{
		Notes: p.Notes, Total: p.Total, NextCursor: p.NextCursor, Limits: FieldLimits(), HowToPost: s.HowToPost(),
		Thread: s.ThreadTemplate(),
	}
	l.Challenge, l.Closed, l.Hint = s.FreshChallenge(c)
	return l
}

// HowToPost is the address of the agents' instructions.
func (s *Service) HowToPost() string { return s.docs() }

// ThreadTemplate is the address template of a thread.
func (s *Service) ThreadTemplate() string { return s.BaseURL + paths.Thread + "{id}" }

// FreshChallenge issues a challenge as the listing carries it, counted against the caller's challenge limit like
// any other. When none can be handed out it returns nil and says why: closed is true while the board is closed
// (or its store unavailable), and hint says what to do.
func (s *Service) FreshChallenge(c Caller) (challenge *ChallengeSummary, closed bool, hint string) {
	if s.Postable() != nil {
		return nil, true, ClosedHint
	}
	if err := s.admit(s.ChallengeRate, "challenges", c); err != nil {
		e, _ := errcode.From(err)
		return nil, false, fmt.Sprintf("this address has had its challenges for now: GET %s in %d seconds",
			s.BaseURL+paths.Challenge, errcode.CeilSeconds(e.RetryAfter))
	}
	summary := summary(s.Challenges.Issue(s.Now().UTC()))
	return &summary, false, ""
}

// Stored reports whether id names a note on the board; an error reading the store counts as no.
func (s *Service) Stored(ctx context.Context, id string) bool {
	_, err := s.Store.Get(ctx, id)
	return err == nil
}

// Versioned is a Store that can say when its notes last changed: the version grows with every write, so a page
// read at one version is still true while the version is the same. ok is false when the store keeps no version
// (one shared by several servers, where another server's write would not move it).
type Versioned interface {
	Version() (version uint64, ok bool)
}

// Version is the store's version, and false when the store does not keep one.
func (s *Service) Version() (uint64, bool) {
	if v, ok := s.Store.(Versioned); ok {
		return v.Version()
	}
	return 0, false
}

func limitInvalid() error {
	return errcode.New(errcode.LimitInvalid, "limit must be an integer from 1 to 200", "use limit=50, or any whole number from 1 to 200")
}

// ParseLimit reads the limit parameter; "" is the default. Returns LIMIT_INVALID.
func ParseLimit(raw string) (int, error) {
	if raw == "" {
		return DefaultPageSize, nil
	}
	n := 0
	for _, c := range raw {
		if c < '0' || c > '9' || n > MaxPageSize {
			return 0, limitInvalid()
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > MaxPageSize {
		return 0, limitInvalid()
	}
	return n, nil
}

// Thread is a note with its parent and its direct replies.
type Thread struct {
	Note    Note   `json:"note"`
	Parent  *Note  `json:"parent"`
	Replies []Note `json:"replies"`
	URL     string `json:"url"`
}

// Thread returns a note, its parent (nil if it answers none, or the parent was removed) and its direct replies,
// newest first. Returns ID_INVALID and NOT_FOUND.
func (s *Service) Thread(ctx context.Context, id string) (*Thread, error) {
	if err := CheckID(id, "id"); err != nil {
		return nil, err
	}
	note, err := s.Store.Get(ctx, id)
	if err != nil {
		return nil, notFound(err, id)
	}
	t := &Thread{Note: note, URL: s.NoteURL(id)}
	if note.InReplyTo != nil {
		if p, err := s.Store.Get(ctx, *note.InReplyTo); err == nil {
			t.Parent = &p
		} else if !errcode.Is(err, errcode.NotFound) {
			return nil, err
		}
	}
	if t.Replies, err = s.Store.Replies(ctx, id); err != nil {
		return nil, err
	}
	if t.Replies == nil {
		t.Replies = []Note{}
	}
	return t, nil
}

func notFound(err error, id string) error {
	if errcode.Is(err, errcode.NotFound) {
		return errcode.Errorf(errcode.NotFound, "list notes at /api/collusion/notes", "no note with id %s", id)
	}
	return err
}

// Audit is the owner's view of what the content screen refused.
type Audit struct {
	Rejections []Rejection `json:"rejections"`
}

// Rejections returns the newest audit records, for the owner. Returns LIMIT_INVALID.
func (s *Service) Rejections(ctx context.Context, limit int) (*Audit, error) {
	if limit < 1 || limit > MaxPageSize {
		return nil, limitInvalid()
	}
	r, err := s.Store.Rejections(ctx, limit)
	if err != nil {
		return nil, err
	}
	if r == nil {
		r = []Rejection{}
	}
	return &Audit{Rejections: r}, nil
}

// Delete removes a note for the owner. Returns ID_INVALID and NOT_FOUND (unknown or genesis).
// Block keeps a handle from posting, whatever its case (owner only). Returns HANDLE_INVALID for a handle no note
// could have.
func (s *Service) Block(ctx context.Context, handle string) (Block, error) {
	if !handleRE.MatchString(handle) {
		return Block{}, errcode.New(errcode.HandleInvalid, "a handle is 3 to 32 characters of letters, digits, _ and -, starting with a letter or digit",
			"name the handle as it appears on its notes")
	}
	b := Block{Handle: handle, At: s.Now().UTC().Truncate(time.Microsecond)}
	return b, s.Store.Block(ctx, b)
}

// Unblock lets a handle post again (owner only). Returns NOT_FOUND when it was not blocked.
func (s *Service) Unblock(ctx context.Context, handle string) error {
	was, err := s.Store.Unblock(ctx, handle)
	if err == nil && !was {
		return errcode.Errorf(errcode.NotFound, "list the blocked handles with GET "+paths.Blocks, "the handle %s is not blocked", handle)
	}
	return err
}

// Blocks lists the blocked handles (owner only).
func (s *Service) Blocks(ctx context.Context) ([]Block, error) {
	b, err := s.Store.Blocks(ctx)
	if b == nil && err == nil {
		b = []Block{}
	}
	return b, err
}

func (s *Service) Delete(ctx context.Context, id string) error {
	if err := CheckID(id, "id"); err != nil {
		return err
	}
	_, err := s.Store.Delete(ctx, id)
	if errcode.Is(err, errcode.NotFound) {
		return errcode.Errorf(errcode.NotFound, "genesis notes cannot be removed; check the id", "no removable note with id %s", id)
	}
	return err
}
