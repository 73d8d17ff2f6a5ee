package main

import (
	"context"
	"time"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
)

// buildSlack wires the Slack adapter (adapters/slack) when Slack is
// configured and checks the bot token once (auth.test), so that the
// adapter is ready when the bot serves. A failure does not stop the bot:
// the adapter retries while Slack cannot be reached and stops (this
// platform only, with the fix in the log and /healthz) when Slack refuses
// the token.
func buildSlack(ctx context.Context, cfg Config, deps platformDeps) (platform, error) {
	sc := cfg.Slack
	if sc.BotToken == "" {
		return nil, nil
	}
	acfg := slackadapter.Config{
		BotToken:      sc.BotToken,
		AppToken:      sc.AppToken,
		SigningSecret: sc.SigningSecret,
		Mode:          sc.Mode,
		Admins:        sc.Admins,
		Workers:       sc.Workers,
		PerPerson:     sc.PerPersonTurns,
		APIURL:        sc.APIURL,
		Logger:        deps.Logger,
		Hooks:         deps.Metrics.SlackHooks(),
		Dedup:         deps.Stores.Dedup(nil),
	}
	if deps.Router != nil {
		acfg.Warehouses = deps.Router
		acfg.WarehouseLimit = deps.Router.Limit
	}
	if deps.Inflight != nil {
		acfg.Inflight = deps.Inflight
	}
	if deps.Status != nil {
		acfg.Status = deps.Status("slack")
	}
	if deps.AdminLinks != nil {
		acfg.AdminLinks = deps.AdminLinks
	}
	a, err := slackadapter.Build(acfg, deps.Dialog)
	if err != nil {
		return nil, err
	}
	actx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := a.Authenticate(actx); err != nil && deps.Logger != nil {
		deps.Logger.Warn("slack: the bot token could not be checked at start; it is checked again when the adapter runs", "err", err)
	}
	return a, nil
}
