package main

import (
	"context"

	"github.com/clarify-bot/clarify/adapters/discord"
)

// buildDiscord wires the Discord adapter (adapters/discord) when Discord is
// configured (DISCORD_BOT_TOKEN or discord.token); it shares the router,
// and so the managers and the ontology, with the other platforms.
func buildDiscord(ctx context.Context, cfg Config, deps platformDeps) (platform, error) {
	dc := cfg.Discord
	if dc.Token == "" {
		return nil, nil
	}
	channels := make([]discord.Channel, 0, len(dc.DataChannels))
	for _, c := range dc.DataChannels {
		channels = append(channels, discord.Channel{ID: c.ID, AnyMessage: c.AnyMessage})
	}
	dcfg := discord.Config{
		Token:         dc.Token,
		ApplicationID: dc.ApplicationID,
		GuildID:       dc.GuildID,
		DataChannels:  channels,
		AdminRoles:    dc.AdminRoles,
		Admins:        dc.Admins,
		ShardID:       dc.ShardID,
		ShardCount:    dc.ShardCount,
		Workers:       dc.Workers,
		Logger:        deps.Logger,
		Hooks:         deps.Metrics.discordHooks(),
	}
	if deps.AdminLinks != nil {
		dcfg.AdminLinks = deps.AdminLinks
	}
	a, err := discord.New(dcfg, deps.Dialog)
	if err != nil {
		return nil, err
	}
	return a, nil
}
