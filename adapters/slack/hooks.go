package slack

import "time"

// Methods are the Web API methods the adapter calls (the method label of
// its hooks), so that metrics can start every series at zero.
var Methods = []string{
	"auth.test", "users.info", "chat.postMessage", "chat.update", "chat.delete",
	"chat.postEphemeral", "files.uploadV2", "views.open", "views.publish", "response_url",
}

// Hooks hear the adapter's dealings with Slack, for metrics. Nil fields
// are skipped; they must not block. method is a Web API method name
// ("chat.postMessage") or "response_url": a short, fixed set.
type Hooks struct {
	// APIError: a Web API call failed for good (after any rate-limit waits).
	APIError func(method string)
	// Retry: a call was rate limited and will be sent again after the wait.
	Retry func(method string)
	// Duplicate: an event Slack sent again (same event_id) was dropped.
	Duplicate func()
	// DedupUnavailable: an event was left for Slack to send again because
	// the shared store could not check its id.
	DedupUnavailable func()
	// FirstMessage: the time from receiving an event to the first message
	// the person sees (the placeholder, or the reply when there is none).
	FirstMessage func(time.Duration)
	// Answered: the time from receiving an event to its replies delivered.
	Answered func(time.Duration)
}

func (h Hooks) dedupUnavailable() {
	if h.DedupUnavailable != nil {
		h.DedupUnavailable()
	}
}

func (h Hooks) firstMessage(d time.Duration) {
	if h.FirstMessage != nil {
		h.FirstMessage(d)
	}
}

func (h Hooks) answered(d time.Duration) {
	if h.Answered != nil {
		h.Answered(d)
	}
}

func (h Hooks) apiError(method string) {
	if h.APIError != nil {
		h.APIError(method)
	}
}

func (h Hooks) retry(method string) {
	if h.Retry != nil {
		h.Retry(method)
	}
}

func (h Hooks) duplicate() {
	if h.Duplicate != nil {
		h.Duplicate()
	}
}
