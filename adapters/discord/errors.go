package discord

import (
	"context"
	"errors"
)

// What people read. Error details (SQL, stack traces, tokens) go only to
// the log; this table is the one place that maps error kinds to text.
const (
	apology     = "Sorry, something went wrong on my side; the details are in the bot's log."
	busyText    = "I'm busy with other questions right now; please try again in a minute."
	staleButton = "That button is from a message I can no longer act on; please ask again."
	unknownCmd  = "I don't know that command; try /ask, /prefs or /forget."
	noUser      = "I couldn't tell who you are, so I did nothing."
)

var userTexts = []struct {
	is   func(error) bool
	text string
}{
	{func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }, "That took too long, so I stopped. Try again, or ask a narrower question."},
	{func(err error) bool { return errors.Is(err, context.Canceled) }, "I'm restarting and couldn't finish that; please ask again in a minute."},
}

// userText is the plain text shown for a failure.
func userText(err error) string {
	for _, t := range userTexts {
		if t.is(err) {
			return t.text
		}
	}
	return apology
}
