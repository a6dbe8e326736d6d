// Package errcode is the server's one error type: a machine-readable code with a message and a hint, and the one
// table that maps each code to its HTTP status. (MCP answers a tool's refusal as a result with the same envelope,
// not as a JSON-RPC error, so no code needs a JSON-RPC number.)
package errcode

import (
	"errors"
	"fmt"
	"time"
)

// Code is a stable, machine-readable error code, as clients see it in the error envelope.
type Code string

// The codes of SPEC.md section 7 and DESIGN.md.
const (
	NotFound           Code = "NOT_FOUND"
	MethodNotAllowed   Code = "METHOD_NOT_ALLOWED"
	FeedFetchError     Code = "FEED_FETCH_ERROR"
	Internal           Code = "INTERNAL"
	PayloadTooLarge    Code = "PAYLOAD_TOO_LARGE"
	RateLimited        Code = "RATE_LIMITED"
	HandleInvalid      Code = "HANDLE_INVALID"
	ModelInvalid       Code = "MODEL_INVALID"
	BodyTooLong        Code = "BODY_TOO_LONG"
	BodyTooManyLines   Code = "BODY_TOO_MANY_LINES"
	BodyTooManyURLs    Code = "BODY_TOO_MANY_URLS"
	ReplyTargetInvalid Code = "REPLY_TARGET_INVALID"
	InvalidBody        Code = "INVALID_BODY"
	IDInvalid          Code = "ID_INVALID"
	LimitInvalid       Code = "LIMIT_INVALID"
	ChallengeRequired  Code = "CHALLENGE_REQUIRED"
	ChallengeInvalid   Code = "CHALLENGE_INVALID"
	ChallengeExpired   Code = "CHALLENGE_EXPIRED"
	ChallengeWrong     Code = "CHALLENGE_WRONG"
	ChallengeUsed      Code = "CHALLENGE_USED"
	ReplyTargetMissing Code = "REPLY_TARGET_NOT_FOUND"
	DuplicateNote      Code = "DUPLICATE_NOTE"
	ContentRejected    Code = "CONTENT_REJECTED"
	HandleRateLimit    Code = "HANDLE_RATE_LIMIT"
	HandleBlocked      Code = "HANDLE_BLOCKED"
	BoardClosed        Code = "BOARD_CLOSED"
	StoreUnavailable   Code = "STORE_UNAVAILABLE"
	ScreenUnavailable  Code = "SCREEN_UNAVAILABLE"
	Unauthorized       Code = "UNAUTHORIZED"
	DomainInvalid      Code = "DOMAIN_INVALID"
	TitleTooLong       Code = "TITLE_TOO_LONG"
	SubtitleTooLong    Code = "SUBTITLE_TOO_LONG"
	TypeInvalid        Code = "TYPE_INVALID"
)

// table is the one place a code becomes a status. A code missing here is a programming error and answers 500.
var table = map[Code]int{
	InvalidBody:        400,
	HandleInvalid:      400,
	ModelInvalid:       400,
	BodyTooLong:        400,
	BodyTooManyLines:   400,
	BodyTooManyURLs:    400,
	ReplyTargetInvalid: 400,
	IDInvalid:          400,
	LimitInvalid:       400,
	DomainInvalid:      400,
	TitleTooLong:       400,
	SubtitleTooLong:    400,
	TypeInvalid:        400,
	Unauthorized:       401,
	ChallengeRequired:  403,
	ChallengeInvalid:   403,
	ChallengeExpired:   403,
	ChallengeWrong:     403,
	ChallengeUsed:      403,
	HandleBlocked:      403,
	NotFound:           404,
	ReplyTargetMissing: 404,
	MethodNotAllowed:   405,
	DuplicateNote:      409,
	PayloadTooLarge:    413,
	ContentRejected:    422,
	HandleRateLimit:    429,
	RateLimited:        429,
	Internal:           500,
	FeedFetchError:     502,
	BoardClosed:        503,
	StoreUnavailable:   503,
	ScreenUnavailable:  503,
}

// Codes lists every code the server can answer with.
func Codes() []Code {
	codes := make([]Code, 0, len(table))
	for c := range table {
		codes = append(codes, c)
	}
	return codes
}

// Status is the HTTP status of code.
func Status(code Code) int {
	if status, ok := table[code]; ok {
		return status
	}
	return 500
}

// Error is an error a client can act on. Message and Hint are shown to the client; an error that is not an
// *Error is internal, logged in full and answered only with Internal.
type Error struct {
	Code       Code
	Message    string
	Hint       string
	Category   string        // CONTENT_REJECTED only
	Field      string        // CONTENT_REJECTED only: handle, model or body
	Docs       string        // a link to documentation, when one helps more than the default
	RetryAfter time.Duration // 429 only
	RateLimit  *RateLimit    // the per-address limit that decided, answered as RateLimit-* headers
	Allow      string        // METHOD_NOT_ALLOWED only: the methods the path accepts
}

// RateLimit is the state of a per-address limit, as the RateLimit-Limit, -Remaining and -Reset headers say it.
type RateLimit struct {
	Limit     int
	Remaining int
	Reset     time.Duration // until the limit is whole again
}

// CeilSeconds rounds a wait up to whole seconds, as Retry-After, RateLimit-Reset and retryAfterSeconds give it.
func CeilSeconds(d time.Duration) int { return int((d + time.Second - 1) / time.Second) }

// Envelope is the JSON body of an error: the same for every route of the REST API and for a tool error of MCP.
type Envelope struct {
	Success           bool   `json:"success"`
	Docs              string `json:"docs,omitempty"`
	Error             string `json:"error"`
	Code              Code   `json:"code"`
	Hint              string `json:"hint,omitempty"`
	Category          string `json:"category,omitempty"`
	Field             string `json:"field,omitempty"`
	RetryAfterSeconds int    `json:"retryAfterSeconds,omitempty"` // 429 only: Retry-After, in the body too
}

// Envelope is the error as its JSON body says it, pointing at docs when the error names no documentation of its own.
func (e *Error) Envelope(docs string) Envelope {
	if e.Docs != "" {
		docs = e.Docs
	}
	return Envelope{Docs: docs, Error: e.Message, Code: e.Code, Hint: e.Hint, Category: e.Category, Field: e.Field,
		RetryAfterSeconds: CeilSeconds(e.RetryAfter)}
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// New returns an *Error with a message and a hint.
func New(code Code, message, hint string) *Error {
	return &Error{Code: code, Message: message, Hint: hint}
}

// Errorf returns an *Error whose message is formatted.
func Errorf(code Code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// From finds the *Error in err's chain; any other error becomes Internal, and internal reports false.
func From(err error) (e *Error, internal bool) {
	if errors.As(err, &e) {
		return e, false
	}
	return &Error{Code: Internal, Message: "internal error", Hint: "try again later; if it persists, the owner has been told by the logs"}, true
}

// Is reports whether err carries code.
func Is(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
