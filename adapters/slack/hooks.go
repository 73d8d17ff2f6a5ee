package slack

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
