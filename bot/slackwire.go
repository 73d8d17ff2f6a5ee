package main

import (
	"context"

	slackadapter "github.com/clarify-bot/clarify/adapters/slack"
)

// buildSlack wires the Slack adapter (adapters/slack) when Slack is
// configured: it checks the bot token with auth.test, so a wrong token
// stops `bot serve` with a clear error instead of a silent bot.
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
		APIURL:        sc.APIURL,
		Logger:        deps.Logger,
		Hooks:         deps.Metrics.slackHooks(),
		Dedup:         deps.Stores.dedup(nil),
	}
	if deps.Router != nil {
		acfg.Warehouses = deps.Router
	}
	if deps.AdminLinks != nil {
		acfg.AdminLinks = deps.AdminLinks
	}
	a, err := slackadapter.New(ctx, acfg, deps.Dialog)
	if err != nil {
		return nil, err
	}
	return a, nil
}
