package discord

// What people read about the adapter's own conditions. Failures of the
// dialog are worded by dialog.FailureText; details go only to the log.
const (
	apology     = "Sorry, something went wrong on my side; the details are in the bot's log."
	busyText    = "I'm busy with other questions right now; please try again in a minute."
	staleButton = "That button is from a message I can no longer act on; please ask again."
	unknownCmd  = "I don't know that command; try /ask, /prefs or /forget."
	noUser      = "I couldn't tell who you are, so I did nothing."
)
