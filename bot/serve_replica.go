package main

import (
	"context"
	"errors"
	"time"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/internal/inflight"
)

// orphanReplacer is a platform that can take over a placeholder a dead
// process left (Slack): it finishes the turn recorded with it (resumed;
// it forgets the placeholder once delivered) or replaces it with a note.
type orphanReplacer interface {
	Orphaned(ctx context.Context, p inflight.Placeholder) (resumed bool, err error)
}

// maxTakeovers is how many times a turn whose replica stopped is run
// again elsewhere: once, so that a turn which itself kills replicas stops
// two of them at most.
const maxTakeovers = 1

// replaceOrphans takes over the placeholders of replicas that died: each
// is claimed first, so that of two survivors one finishes it; those of
// platforms this process does not run are left to a replica that does.
// Reading them is also the store's health check.
func (m *Main) replaceOrphans(ctx context.Context) {
	orphans, err := m.replica.Store.Orphans(ctx, m.replica.Alive)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		if st, _ := m.health.get("store"); st.State == stateUp {
			m.logger.Warn("the store does not answer; events are left for the platforms to send again until it does", "err", err)
		}
		m.health.set("store", stateDown, "not answering; retrying", 0, 0)
		return
	}
	if st, _ := m.health.get("store"); st.State != stateUp {
		m.logger.Info("the store answers again")
		m.health.set("store", stateUp, "", 0, 0)
	}
	for _, p := range orphans {
		var rep orphanReplacer
		for _, pl := range m.platforms {
			if or, ok := pl.(orphanReplacer); ok && pl.Name() == p.Platform {
				rep = or
			}
		}
		if rep == nil {
			continue
		}
		mine, ok, err := m.replica.Store.Claim(ctx, p)
		if err != nil || !ok {
			if err != nil {
				m.logger.Warn("cannot take over a placeholder left by a stopped replica; retrying later", "err", err)
			}
			continue
		}
		if mine.Takeovers > maxTakeovers && len(mine.Turn) > 0 {
			// The replica that ran it again stopped too: the turn itself
			// may be what stops them (a query that exhausts memory).
			m.logger.Warn("a turn stopped the replica that took it over; asking the person to try again instead of running it a third time",
				"platform", p.Platform, "channel", p.Channel, "thread", p.Thread, "takeovers", mine.Takeovers)
			mine.Turn = nil
		}
		resumed, err := rep.Orphaned(ctx, mine)
		var se slack.SlackErrorResponse
		if err != nil && !(errors.As(err, &se) && (se.Err == "message_not_found" || se.Err == "channel_not_found" || se.Err == "cant_update_message")) {
			m.logger.Warn("cannot replace a placeholder left by a stopped replica; retrying later", "platform", p.Platform, "channel", p.Channel, "err", err)
			if err := m.replica.Store.Release(ctx, mine, p); err != nil {
				m.logger.Warn("cannot give back a placeholder", "err", err)
			}
			continue
		}
		if resumed {
			m.metrics.OrphanResumed(p.Platform)
			m.logger.Info("took over a turn left by a stopped replica; finishing it in its thread",
				"platform", p.Platform, "channel", p.Channel, "thread", p.Thread, "replica", p.Replica, "click", p.Click)
			continue
		}
		if err := m.replica.Store.Done(ctx, mine); err != nil {
			m.logger.Warn("cannot forget a replaced placeholder", "err", err)
			continue
		}
		m.metrics.OrphanReplaced(p.Platform)
		m.logger.Info("replaced a placeholder left by a stopped replica; the person was asked to try again",
			"platform", p.Platform, "channel", p.Channel, "thread", p.Thread, "replica", p.Replica, "click", p.Click)
	}
}

// janitor looks for orphaned placeholders at start and then every tick.
func (m *Main) janitor(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		m.replaceOrphans(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
