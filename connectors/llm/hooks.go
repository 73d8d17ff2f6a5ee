package llm

import "net/http"

// Hooks hear what the client does, for metrics. Nil fields are skipped;
// they are called on the request's goroutine and must not block.
type Hooks struct {
	// Usage: one completion came back, with the tokens it used (counted
	// locally when the server reported none).
	Usage func(model string, u Usage)
	// Retry: a request is about to be sent again; reason is
	// RetryRateLimited, RetryServerError or RetryNetwork.
	Retry func(reason string)
}

// Reasons for Hooks.Retry.
const (
	RetryRateLimited = "rate_limited" // 429 with a wait we honour
	RetryServerError = "server_error" // 5xx or overloaded
	RetryNetwork     = "network"      // no response at all
)

func (h Hooks) usage(model string, u Usage) {
	if h.Usage != nil {
		h.Usage(model, u)
	}
}

func (h Hooks) retry(reason string) {
	if h.Retry != nil {
		h.Retry(reason)
	}
}

// retryReason names why a response is retried.
func retryReason(status int) string {
	if status == http.StatusTooManyRequests {
		return RetryRateLimited
	}
	return RetryServerError
}
