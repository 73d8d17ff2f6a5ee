package dialog

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/ontology"
)

// This file is the one place that says what people read when something
// fails. Replies name the kind of failure in plain words and a reference;
// the cause — server messages with account names and hosts, SQL, parser
// output, the model's error text — goes to the log under that reference.

// FailureKind classifies a failure by what the person can do about it.
type FailureKind string

// Failure kinds.
const (
	FailWarehouseDown FailureKind = "warehouse unavailable" // cannot reach the warehouse or its database
	FailAccessDenied  FailureKind = "access denied"         // the bot's account may not read that
	FailTimeout       FailureKind = "timeout"               // the time limit stopped it
	FailCanceled      FailureKind = "canceled"              // the bot stopped (restart) or the person went away
	FailQuery         FailureKind = "query failed"          // the warehouse could not run any reading
	FailModel         FailureKind = "model failed"          // the language model failed
	FailStore         FailureKind = "store failed"          // the bot's own storage failed
	FailInternal      FailureKind = "internal"              // anything else
)

// Failure is a failure with its kind, a reference people can quote to an
// admin, and its cause, which only the log shows.
type Failure struct {
	Kind FailureKind
	Ref  string
	// Detail is a plain sentence about the cause that is safe to show (a
	// model's quota, a budget's reset time), or "".
	Detail string
	Cause  error
}

func (f *Failure) Error() string {
	return fmt.Sprintf("%s (ref %s): %v", f.Kind, f.Ref, f.Cause)
}

func (f *Failure) Unwrap() error { return f.Cause }

// userMessager is an error that knows how to say itself to people without
// server text (the language model's errors do).
type userMessager interface{ UserMessage() string }

// failureOf classifies err; an existing *Failure is returned as it is.
func failureOf(err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	f = &Failure{Ref: newID(), Cause: err}
	var um userMessager
	switch {
	case warehouse.KindOfError(err) == warehouse.KindUnavailable:
		f.Kind = FailWarehouseDown
	case warehouse.KindOfError(err) == warehouse.KindAccessDenied:
		f.Kind = FailAccessDenied
	case warehouse.KindOfError(err) == warehouse.KindTimeout, errors.Is(err, context.DeadlineExceeded):
		f.Kind = FailTimeout
	case warehouse.KindOfError(err) == warehouse.KindCanceled, errors.Is(err, context.Canceled):
		f.Kind = FailCanceled
	case warehouse.KindOfError(err) != warehouse.KindUnknown:
		f.Kind = FailQuery
		if r, ok := sqlguard.Refused(err); ok && r.Kind == sqlguard.KindAccess {
			// The access rules' own sentence (no server text) says what is
			// hidden or sensitive, which the person can act on.
			f.Detail = r.Reason
		}
	case errors.As(err, &um):
		f.Kind, f.Detail = FailModel, um.UserMessage()
	case errors.Is(err, ontology.ErrInUse), errors.Is(err, ErrStore):
		f.Kind = FailStore
	default:
		var we *warehouse.Error
		if errors.As(err, &we) {
			f.Kind = FailQuery
		} else {
			f.Kind = FailInternal
		}
	}
	return f
}

// ErrStore marks failures of the bot's own storage (conversations,
// preferences).
var ErrStore = errors.New("storage failed")

// failureTexts is what people read, by kind; the reference is added.
var failureTexts = map[FailureKind]string{
	FailWarehouseDown: "I can't reach the warehouse right now. Please try again in a moment; if it keeps happening, an admin should check the warehouse connection.",
	FailAccessDenied:  "The warehouse didn't let me read the data that question needs: it may be kept from you, or the bot's account may lack access. Ask an admin if you need it.",
	FailTimeout:       "That took too long, so I stopped. Try narrowing it down, e.g. to one year.",
	FailCanceled:      "I was interrupted before I could finish (probably restarting). Please ask again in a moment.",
	FailQuery:         "The warehouse couldn't run any reading of that question.",
	FailModel:         "The language model couldn't help with that.",
	FailStore:         "Sorry, something went wrong on my side while saving the conversation.",
	FailInternal:      "Sorry, something went wrong on my side.",
}

// Text is what the person reads: a plain sentence and the reference.
func (f *Failure) Text() string {
	s := failureTexts[f.Kind]
	if s == "" {
		s = failureTexts[FailInternal]
	}
	if f.Kind == FailModel && f.Detail != "" {
		s = "The language model couldn't help with that: " + f.Detail + "."
	}
	if f.Kind == FailQuery && f.Detail != "" {
		s = f.Detail
	}
	if f.Kind == FailCanceled {
		return s
	}
	return s + " (reference " + f.Ref + ")"
}

// FailureText is what a person reads for an error Handle returned; the
// adapters call it instead of wording errors themselves. It logs the cause
// under the reference unless the manager already did.
func FailureText(ctx context.Context, log *slog.Logger, err error) string {
	var existing *Failure
	logged := errors.As(err, &existing)
	f := failureOf(err)
	if !logged && log != nil {
		log.WarnContext(ctx, "failure", "kind", string(f.Kind), "ref", f.Ref, "err", err)
	}
	return f.Text()
}

// fail classifies and logs a failure met while handling an event, and
// returns it for the reply.
func (m *Manager) fail(what string, err error) *Failure {
	f := failureOf(err)
	m.log.Warn(what, "kind", string(f.Kind), "ref", f.Ref, "err", err)
	return f
}
