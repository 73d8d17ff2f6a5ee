package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retrier is the HTTP transport under go-openai: it retries 429 (waiting
// what Retry-After or retry-after-ms says), 5xx and network errors with
// exponential backoff and jitter, never past the request's context. A 429
// that means "out of quota" is not retried.
type retrier struct {
	client *http.Client
	cfg    Config
	log    *slog.Logger
	// sleep waits d or until ctx ends; tests replace it to record waits.
	sleep func(ctx context.Context, d time.Duration) error
}

// rateLimitedError is returned when the server asks to wait longer than
// Config.MaxRetryAfter (or than the time left).
type rateLimitedError struct {
	after  time.Duration
	status int
	body   []byte
}

func (e *rateLimitedError) Error() string {
	return fmt.Sprintf("rate limited: the server asks to wait %s: %s", e.after, clip(e.body, 200))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Do sends req, retrying as described on retrier.
func (r *retrier) Do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		try := req
		if attempt > 0 {
			if req.GetBody == nil && req.Body != nil {
				return nil, errors.New("llm: cannot resend a request without GetBody")
			}
			try = req.Clone(ctx)
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, fmt.Errorf("llm: resend request: %w", err)
				}
				try.Body = body
			}
		}
		resp, err := r.client.Do(try)
		last := attempt >= r.cfg.MaxRetries
		if err != nil {
			if ctx.Err() != nil || last {
				return nil, err
			}
			wait := r.backoff(attempt)
			r.log.Warn("model request failed; retrying", "attempt", attempt+1, "wait", wait, "err", err)
			r.cfg.Hooks.retry(RetryNetwork)
			if err := r.sleep(ctx, wait); err != nil {
				return nil, err
			}
			continue
		}
		wait, retry, err := r.decide(ctx, resp, attempt)
		if err != nil {
			drain(resp)
			return nil, err
		}
		if !retry || last {
			return resp, nil
		}
		drain(resp)
		r.log.Warn("model server asked to retry", "status", resp.StatusCode, "attempt", attempt+1, "wait", wait)
		r.cfg.Hooks.retry(retryReason(resp.StatusCode))
		if err := r.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// decide says whether resp calls for a retry and after how long. It may
// consume and restore resp.Body.
func (r *retrier) decide(ctx context.Context, resp *http.Response, attempt int) (time.Duration, bool, error) {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte("insufficient_quota")) {
			return 0, false, nil // waiting will not help
		}
		wait, ok := retryAfter(resp.Header, time.Now())
		if !ok {
			return r.backoff(attempt), true, nil
		}
		if wait > r.cfg.MaxRetryAfter || !fitsDeadline(ctx, wait) {
			return 0, false, &rateLimitedError{after: wait, status: resp.StatusCode, body: body}
		}
		return wait, true, nil
	case resp.StatusCode == http.StatusInternalServerError, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout,
		resp.StatusCode == 529: // overloaded
		wait, ok := retryAfter(resp.Header, time.Now())
		if !ok || wait > r.cfg.MaxRetryAfter {
			wait = r.backoff(attempt)
		}
		if !fitsDeadline(ctx, wait) {
			return 0, false, nil
		}
		return wait, true, nil
	}
	return 0, false, nil
}

// backoff is the wait before retry attempt+1: Backoff·2^attempt capped at
// MaxBackoff, with "equal jitter" (half fixed, half random) so that many
// clients do not retry in step.
func (r *retrier) backoff(attempt int) time.Duration {
	d := r.cfg.Backoff << min(attempt, 16)
	if d > r.cfg.MaxBackoff || d <= 0 {
		d = r.cfg.MaxBackoff
	}
	half := d / 2
	return half + rand.N(half+1)
}

// retryAfter reads retry-after-ms (OpenAI) or Retry-After (seconds or an
// HTTP date).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func fitsDeadline(ctx context.Context, wait time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > wait
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
}
