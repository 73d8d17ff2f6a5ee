package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/clarify-bot/clarify/internal/errkind"
)

// Kind classifies model failures for callers that branch on them.
type Kind int

// Kinds of failure.
const (
	KindUnknown     Kind = iota
	KindAuth             // 401/403: the key is wrong or lacks access
	KindQuota            // out of quota or credit (429 insufficient_quota, 402)
	KindRateLimited      // 429 after the retries, or a Retry-After too long to wait
	KindUnavailable      // 5xx after the retries, or the server cannot be reached
	KindTimeout          // Config.Timeout passed
	KindCanceled         // the caller went away
	KindBadRequest       // 400: the server refused the request (context too long…)
	KindNotFound         // 404: no such model or deployment
	KindBudget           // a daily token budget is used up (see UsageStore)
	KindBadOutput        // the model answered, but nothing usable came back
)

var kindNames = map[Kind]string{
	KindUnknown: "error", KindAuth: "unauthorized", KindQuota: "quota exceeded",
	KindRateLimited: "rate limited", KindUnavailable: "unavailable", KindTimeout: "timeout",
	KindCanceled: "canceled", KindBadRequest: "bad request", KindNotFound: "not found",
	KindBudget: "budget exhausted", KindBadOutput: "unusable output",
}

func (k Kind) String() string { return kindNames[k] }

// Error is a classified model failure. Its text is for logs: it may quote
// the server's message. UserMessage words it for people.
type Error struct {
	Kind   Kind
	Status int // HTTP status, when there was one
	Msg    string
	// RetryAfter is what the server asked to wait (rate limits).
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Status > 0 {
		return fmt.Sprintf("llm %s (HTTP %d): %s", e.Kind, e.Status, e.Msg)
	}
	return fmt.Sprintf("llm %s: %s", e.Kind, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// UserMessage words the failure for people, without the server's text.
func (e *Error) UserMessage() string { return UserMessage(e) }

// Is matches the sentinel of the same kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && isSentinel(t) && t.Kind == e.Kind
}

// Sentinels for errors.Is.
var (
	ErrAuth        = &Error{Kind: KindAuth, Msg: "unauthorized"}
	ErrQuota       = &Error{Kind: KindQuota, Msg: "quota exceeded"}
	ErrRateLimited = &Error{Kind: KindRateLimited, Msg: "rate limited"}
	ErrUnavailable = &Error{Kind: KindUnavailable, Msg: "unavailable"}
	ErrTimeout     = &Error{Kind: KindTimeout, Msg: "timeout"}
	ErrCanceled    = &Error{Kind: KindCanceled, Msg: "canceled"}
	ErrBadRequest  = &Error{Kind: KindBadRequest, Msg: "bad request"}
	ErrNotFound    = &Error{Kind: KindNotFound, Msg: "not found"}
	ErrBudget      = &Error{Kind: KindBudget, Msg: "budget exhausted"}
	ErrBadOutput   = &Error{Kind: KindBadOutput, Msg: "unusable output"}
)

func isSentinel(e *Error) bool {
	switch e {
	case ErrAuth, ErrQuota, ErrRateLimited, ErrUnavailable, ErrTimeout, ErrCanceled, ErrBadRequest, ErrNotFound, ErrBudget, ErrBadOutput:
		return true
	}
	return false
}

// KindOf returns the kind of err, KindUnknown when it is not an *Error.
func KindOf(err error) Kind {
	return errkind.Of(err, func(e *Error) Kind { return e.Kind }, KindUnknown)
}

// userMessages is the one table of what people are told for each kind;
// server messages, keys and stack traces stay in the logs.
var userMessages = map[Kind]string{
	KindAuth:        "the language model server refused the bot's credentials; an admin needs to check the API key",
	KindQuota:       "the language model account has run out of quota or credit; an admin needs to check the plan",
	KindRateLimited: "the language model is rate-limited right now; please try again in a minute",
	KindUnavailable: "the language model server is unavailable right now",
	KindTimeout:     "the language model did not answer in time",
	KindCanceled:    "the question was cancelled",
	KindBadRequest:  "the language model refused the request",
	KindNotFound:    "the configured model was not found on the language model server; an admin needs to check the model name",
	KindBudget:      "the daily language model budget is used up",
	KindBadOutput:   "the language model did not come up with a usable query",
	KindUnknown:     "the language model failed",
}

// UserMessage words err for the person who asked. A budget error says
// whose budget and when it resets.
func UserMessage(err error) string {
	// Errors of other packages that word themselves (a budget's reset
	// time) come first; this package's own kinds use the table below.
	var le *Error
	var um interface{ UserMessage() string }
	if !errors.As(err, &le) && errors.As(err, &um) {
		return um.UserMessage()
	}
	if errors.Is(err, context.Canceled) {
		return userMessages[KindCanceled]
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return userMessages[KindTimeout]
	}
	var e *Error
	if errors.As(err, &e) && e.Kind == KindRateLimited && e.RetryAfter >= time.Second {
		return fmt.Sprintf("the language model is rate-limited right now; please try again in about %s", e.RetryAfter.Round(time.Second))
	}
	return userMessages[KindOf(err)]
}

// classify turns an error of go-openai or of the transport into an *Error.
func classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var le *Error
	if errors.As(err, &le) {
		return err
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
			return &Error{Kind: KindTimeout, Msg: "no answer before the time limit", Err: err}
		}
		return &Error{Kind: KindCanceled, Msg: "canceled", Err: err}
	}
	var rl *rateLimitedError
	if errors.As(err, &rl) {
		return &Error{Kind: KindRateLimited, Status: rl.status, Msg: rl.Error(), RetryAfter: rl.after, Err: err}
	}
	var ae *openai.APIError
	if errors.As(err, &ae) {
		code := fmt.Sprint(ae.Code)
		return fromStatus(ae.HTTPStatusCode, code, ae.Type, ae.Message, err)
	}
	var re *openai.RequestError
	if errors.As(err, &re) {
		return fromStatus(re.HTTPStatusCode, "", "", strings.TrimSpace(string(clip(re.Body, 300))), err)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, net.ErrClosed) {
		return &Error{Kind: KindUnavailable, Msg: "cannot reach the server", Err: err}
	}
	return &Error{Kind: KindUnknown, Msg: err.Error(), Err: err}
}

func fromStatus(status int, code, typ, msg string, err error) *Error {
	e := &Error{Status: status, Msg: msg, Err: err}
	if e.Msg == "" {
		e.Msg = "no message"
	}
	switch {
	case status == 401 || status == 403:
		e.Kind = KindAuth
	case status == 402 || code == "insufficient_quota" || typ == "insufficient_quota":
		e.Kind = KindQuota
	case status == 429:
		e.Kind = KindRateLimited
	case status == 404:
		e.Kind = KindNotFound
	case status == 408:
		e.Kind = KindTimeout
	case status >= 500:
		e.Kind = KindUnavailable
	case status >= 400:
		e.Kind = KindBadRequest
	default:
		e.Kind = KindUnknown
	}
	return e
}

// worst picks the error most worth reporting among several samples' errors.
func worst(errs []error) error {
	rank := map[Kind]int{KindAuth: 9, KindQuota: 8, KindNotFound: 7, KindBudget: 6, KindBadRequest: 5, KindRateLimited: 4, KindUnavailable: 3, KindTimeout: 2, KindCanceled: 1}
	var best error
	for _, e := range errs {
		if best == nil || rank[KindOf(e)] > rank[KindOf(best)] {
			best = e
		}
	}
	return best
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
