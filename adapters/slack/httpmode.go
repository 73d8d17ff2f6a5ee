package slack

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// maxRequestBody bounds what an HTTP-mode request may send.
const maxRequestBody = 1 << 20

// Routes mounts the Events API, interactivity and slash command endpoints
// on the bot's HTTP server. In Socket Mode it mounts nothing: Slack talks
// over the WebSocket, and no endpoint should accept unsigned traffic.
func (a *Adapter) Routes(mux *http.ServeMux) {
	if a.cfg.Mode != ModeHTTP {
		return
	}
	// Events carry an event_id that is de-duplicated: a retry Slack sends
	// in the same second (same signature) is answered 200 and dropped
	// there. Interactions and commands have no such id: a replayed
	// signature is refused.
	mux.HandleFunc("POST "+EventsPath, a.verified(false, a.serveEvents))
	mux.HandleFunc("POST "+InteractivityPath, a.verified(true, a.serveInteractivity))
	mux.HandleFunc("POST "+CommandsPath, a.verified(true, a.serveCommand))
}

// verified reads the body and lets the request through only when Slack
// signed it (HMAC-SHA256 of v0:timestamp:body with the signing secret),
// the timestamp is within five minutes, and (with noReplay) the same
// signed request was not seen before. Until the bot token was checked
// (Slack unreachable at start) requests get 503, so that Slack retries.
func (a *Adapter) verified(noReplay bool, next func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !a.ready.Load() {
			w.Header().Set("Retry-After", "10")
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		if err != nil {
			http.Error(w, "cannot read the request", http.StatusRequestEntityTooLarge)
			return
		}
		sv, err := slack.NewSecretsVerifier(r.Header, a.cfg.SigningSecret)
		if err == nil {
			_, _ = sv.Write(body) // an HMAC never fails to write
			err = sv.Ensure()
		}
		if err != nil {
			reason := "bad signature"
			if errors.Is(err, slack.ErrExpiredTimestamp) {
				reason = "stale timestamp"
			}
			a.log.Warn("refused an unverified Slack request", "path", r.URL.Path, "reason", reason, "err", err)
			http.Error(w, reason, http.StatusUnauthorized)
			return
		}
		if noReplay && !a.sigs.first(r.Header.Get("X-Slack-Signature")) {
			a.log.Warn("refused a replayed Slack request", "path", r.URL.Path)
			http.Error(w, "replayed request", http.StatusUnauthorized)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next(w, r, body)
	}
}

func (a *Adapter) serveEvents(w http.ResponseWriter, r *http.Request, body []byte) {
	ev, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
	if err != nil {
		// An event type the bot does not handle: acknowledge, or Slack retries it.
		a.log.Debug("ignoring an unreadable event", "err", err)
		w.WriteHeader(http.StatusOK)
		return
	}
	switch ev.Type {
	case slackevents.URLVerification:
		v, ok := ev.Data.(*slackevents.EventsAPIURLVerificationEvent)
		if !ok {
			http.Error(w, "bad url_verification", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, v.Challenge)
	case slackevents.CallbackEvent:
		if r.Header.Get("X-Slack-Retry-Num") != "" {
			a.log.Debug("Slack retried an event", "retry", r.Header.Get("X-Slack-Retry-Num"), "reason", r.Header.Get("X-Slack-Retry-Reason"))
		}
		if !a.acceptEvent(ev) {
			// Not queued: Slack will send it again.
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusOK)
	case slackevents.AppRateLimited:
		a.log.Warn("Slack is rate limiting this app's events")
		w.WriteHeader(http.StatusOK)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

func (a *Adapter) serveInteractivity(w http.ResponseWriter, r *http.Request, _ []byte) {
	cb, err := slack.InteractionCallbackParse(r)
	if err != nil {
		a.log.Warn("unreadable interaction", "err", err)
		http.Error(w, "bad payload", http.StatusBadRequest)
		return
	}
	writeAck(w, a.acceptInteraction(cb))
}

func (a *Adapter) serveCommand(w http.ResponseWriter, r *http.Request, _ []byte) {
	cmd, err := slack.SlashCommandParse(r)
	if err != nil {
		a.log.Warn("unreadable slash command", "err", err)
		http.Error(w, "bad command", http.StatusBadRequest)
		return
	}
	if r.PostForm.Get("ssl_check") == "1" {
		// Slack checking the certificate of the command URL: nothing to do.
		w.WriteHeader(http.StatusOK)
		return
	}
	writeAck(w, a.acceptCommand(cmd))
}

func writeAck(w http.ResponseWriter, payload any) {
	if payload == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(payload)
}
