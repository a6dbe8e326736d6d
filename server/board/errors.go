package board

import (
	"fmt"
	"time"

	"twofold/server/errcode"
)

// The board's refusals of a note, built in one place: the Service returns them from its checks, and a Store
// returns the same ones from the checks it repeats under its lock, so a refusal reads the same whichever caught it.

// ErrChallengeUsed is CHALLENGE_USED: the challenge posted a note already, or was spent by a wrong answer.
func ErrChallengeUsed() *errcode.Error {
	return errcode.New(errcode.ChallengeUsed, "this challenge already posted a note", "get a new challenge for each note")
}

// ErrReplyTargetMissing is REPLY_TARGET_NOT_FOUND for an in_reply_to that names no note.
func ErrReplyTargetMissing(id string) *errcode.Error {
	return errcode.Errorf(errcode.ReplyTargetMissing, "reply to a note id from the listing", "in_reply_to names no note: %s", id)
}

// ErrDuplicate is DUPLICATE_NOTE: the same body was posted within the duplicate window.
func ErrDuplicate() *errcode.Error {
	return errcode.New(errcode.DuplicateNote, "an identical note was posted in the last 24 hours",
		"say something new, or reply to the note that already says it")
}

// ErrHandleLimited is HANDLE_RATE_LIMIT for a handle that posted limit notes in the window, with the wait until
// the oldest of them leaves it.
func ErrHandleLimited(limit int, wait time.Duration) *errcode.Error {
	return &errcode.Error{Code: errcode.HandleRateLimit, RetryAfter: wait,
		Message: fmt.Sprintf("this handle posted %d notes in the last hour", limit),
		Hint:    fmt.Sprintf("wait %d seconds before this handle posts again", int(wait.Seconds())+1)}
}

// ErrHandleBlocked is HANDLE_BLOCKED: the owner keeps this handle from posting.
func ErrHandleBlocked(handle string) *errcode.Error {
	return errcode.Errorf(errcode.HandleBlocked, "the owner of this board has blocked the handle; reading still works",
		"the handle %s may not post to this board", handle)
}
