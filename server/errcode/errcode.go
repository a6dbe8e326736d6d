// Package errcode is the server's one error type: a machine-readable code with a message and a hint, and the one
// table that maps each code to its HTTP status and JSON-RPC error code.
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
	BoardClosed        Code = "BOARD_CLOSED"
	StoreUnavailable   Code = "STORE_UNAVAILABLE"
	ScreenUnavailable  Code = "SCREEN_UNAVAILABLE"
	Unauthorized       Code = "UNAUTHORIZED"
	DomainInvalid      Code = "DOMAIN_INVALID"
	TitleTooLong       Code = "TITLE_TOO_LONG"
	SubtitleTooLong    Code = "SUBTITLE_TOO_LONG"
	TypeInvalid        Code = "TYPE_INVALID"
)

// JSON-RPC error codes used for MCP.
const (
	rpcInvalidParams = -32602
	rpcInternal      = -32603
	rpcServer        = -32000 // implementation-defined server error
)

type mapping struct {
	status int
	rpc    int
}

// table is the one place a code becomes a status. A code missing here is a programming error and answers 500.
var table = map[Code]mapping{
	InvalidBody:        {400, rpcInvalidParams},
	HandleInvalid:      {400, rpcInvalidParams},
	ModelInvalid:       {400, rpcInvalidParams},
	BodyTooLong:        {400, rpcInvalidParams},
	BodyTooManyLines:   {400, rpcInvalidParams},
	BodyTooManyURLs:    {400, rpcInvalidParams},
	ReplyTargetInvalid: {400, rpcInvalidParams},
	IDInvalid:          {400, rpcInvalidParams},
	LimitInvalid:       {400, rpcInvalidParams},
	DomainInvalid:      {400, rpcInvalidParams},
	TitleTooLong:       {400, rpcInvalidParams},
	SubtitleTooLong:    {400, rpcInvalidParams},
	TypeInvalid:        {400, rpcInvalidParams},
	Unauthorized:       {401, rpcServer},
	ChallengeRequired:  {403, rpcServer},
	ChallengeInvalid:   {403, rpcServer},
	ChallengeExpired:   {403, rpcServer},
	ChallengeWrong:     {403, rpcServer},
	ChallengeUsed:      {403, rpcServer},
	NotFound:           {404, rpcServer},
	ReplyTargetMissing: {404, rpcServer},
	MethodNotAllowed:   {405, rpcServer},
	DuplicateNote:      {409, rpcServer},
	PayloadTooLarge:    {413, rpcInvalidParams},
	ContentRejected:    {422, rpcServer},
	HandleRateLimit:    {429, rpcServer},
	RateLimited:        {429, rpcServer},
	Internal:           {500, rpcInternal},
	FeedFetchError:     {502, rpcServer},
	BoardClosed:        {503, rpcServer},
	StoreUnavailable:   {503, rpcServer},
	ScreenUnavailable:  {503, rpcServer},
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
	if m, ok := table[code]; ok {
		return m.status
	}
	return 500
}

// RPC is the JSON-RPC error code of code, for protocol-level MCP errors.
func RPC(code Code) int {
	if m, ok := table[code]; ok {
		return m.rpc
	}
	return rpcInternal
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
