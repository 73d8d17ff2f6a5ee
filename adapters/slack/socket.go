package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/clarify-bot/clarify/internal/backoff"
)

// runSocket holds the Socket Mode connection until ctx ends (slack-go
// reconnects when Slack asks it to; a connection that fails otherwise is
// opened again with backoff) and acknowledges each envelope as soon as its
// work is queued. An app-level token Slack refuses ends it.
func (a *Adapter) runSocket(ctx context.Context) error {
	b := backoff.Backoff{Min: a.cfg.RetryMin, Max: a.cfg.RetryMax}
	for {
		start := time.Now()
		err := a.socketOnce(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, ErrRefused):
			return err
		}
		if time.Since(start) > time.Minute {
			b.Reset() // it was up for a while: this is a new outage
		}
		wait := b.Next()
		a.log.Warn("Slack Socket Mode connection lost; reconnecting", "err", err, "retry_in", wait.Round(time.Second), "attempt", b.Failures())
		a.status(false, "Socket Mode connection lost; reconnecting")
		if backoff.Sleep(ctx, wait) != nil {
			return nil
		}
	}
}

// socketOnce runs one Socket Mode client until it fails or ctx ends.
func (a *Adapter) socketOnce(ctx context.Context) error {
	opts := []socketmode.Option{socketmode.OptionLog(slog.NewLogLogger(a.log.Handler(), slog.LevelDebug))}
	if a.cfg.PingInterval > 0 {
		opts = append(opts, socketmode.OptionPingInterval(a.cfg.PingInterval))
	}
	smc := socketmode.New(a.api, opts...)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- smc.RunContext(ctx) }()
	for {
		select {
		case evt := <-smc.Events:
			a.handleSocket(ctx, smc, evt)
		case err := <-done:
			if err == nil || errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return nil
			}
			var se slack.SlackErrorResponse
			if errors.As(err, &se) {
				return fmt.Errorf("slack socket mode: the app-level token (SLACK_APP_TOKEN) was refused (%w: %w); create an app-level token with the connections:write scope under Basic Information → App-Level Tokens", ErrRefused, err)
			}
			return fmt.Errorf("slack socket mode: %w", err)
		}
	}
}

func (a *Adapter) handleSocket(ctx context.Context, smc *socketmode.Client, evt socketmode.Event) {
	ack := func(payload any) {
		if evt.Request == nil {
			return
		}
		if err := smc.AckCtx(ctx, evt.Request.EnvelopeID, payload); err != nil && ctx.Err() == nil {
			a.log.Error("cannot acknowledge a Socket Mode envelope", "envelope", evt.Request.EnvelopeID, "err", err)
		}
	}
	switch evt.Type {
	case socketmode.EventTypeConnecting:
		a.log.Debug("connecting to Slack (Socket Mode)")
	case socketmode.EventTypeConnected:
		a.log.Info("connected to Slack (Socket Mode)")
		a.status(true, "")
	case socketmode.EventTypeHello:
		a.log.Debug("Socket Mode hello")
	case socketmode.EventTypeDisconnect:
		a.log.Info("Slack asked to reconnect (Socket Mode)")
	case socketmode.EventTypeConnectionError, socketmode.EventTypeIncomingError,
		socketmode.EventTypeErrorBadMessage, socketmode.EventTypeErrorWriteFailed:
		a.log.Warn("Socket Mode trouble", "type", evt.Type, "detail", fmt.Sprintf("%+v", evt.Data))
	case socketmode.EventTypeInvalidAuth:
		a.log.Error("Slack refused the app-level token (SLACK_APP_TOKEN)")
	case socketmode.EventTypeEventsAPI:
		ev, ok := evt.Data.(slackevents.EventsAPIEvent)
		if !ok {
			ack(nil)
			return
		}
		if a.acceptEvent(ev) {
			ack(nil)
		} // else: not acknowledged, Slack sends it again
	case socketmode.EventTypeInteractive:
		cb, ok := evt.Data.(slack.InteractionCallback)
		if !ok {
			ack(nil)
			return
		}
		ack(a.acceptInteraction(cb))
	case socketmode.EventTypeSlashCommand:
		cmd, ok := evt.Data.(slack.SlashCommand)
		if !ok {
			ack(nil)
			return
		}
		ack(a.acceptCommand(cmd))
	}
}
