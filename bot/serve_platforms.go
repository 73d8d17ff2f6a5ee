package main

import (
	"context"
	"errors"
	"strings"

	"github.com/clarify-bot/clarify/bot/internal/stack"
)

// queueDepther is a platform whose waiting turns can be counted (metrics).
type queueDepther interface {
	QueueDepth() int
}

// runPlatform runs one chat platform until ctx ends. The adapters retry a
// platform that cannot be reached themselves (reporting through their
// status hook); Run returns early only when the platform refused the bot
// for good (a token, an intent), with the fix in the error. That stops
// this platform only: the others, the warehouses and /healthz go on.
func (m *Main) runPlatform(ctx context.Context, p platform) {
	name := p.Name()
	err := p.Run(ctx)
	switch {
	case ctx.Err() != nil:
		return
	case err == nil:
		err = errors.New("stopped without saying why")
	}
	m.logger.Error("chat platform stopped; the rest of the bot keeps serving. Fix the configuration and restart", "platform", name, "err", err)
	m.health.set(name, stateStopped, firstLine(err.Error()), 0, 0)
}

// platformStatus is an adapter's status hook for the component name.
func (m *Main) platformStatus(name string) func(up bool, detail string) {
	return func(up bool, detail string) {
		if up {
			m.health.set(name, stateUp, "", 0, 0)
			return
		}
		m.health.set(name, stateDown, detail, 0, 0)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// takeover is what the replica's janitor needs to take over the
// placeholders of replicas that died: the platforms that can, by name.
func (m *Main) takeover() stack.Takeover {
	reps := map[string]stack.OrphanReplacer{}
	for _, p := range m.platforms {
		if or, ok := p.(stack.OrphanReplacer); ok {
			reps[p.Name()] = or
		}
	}
	return stack.Takeover{Replacers: reps, Health: m.health.Registry,
		Resumed: m.metrics.OrphanResumed, Replaced: m.metrics.OrphanReplaced, Logger: m.logger}
}
