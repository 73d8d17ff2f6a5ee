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
	acfg := discord.Config{
		Token:         dc.Token,
		ApplicationID: dc.ApplicationID,
		GuildID:       dc.GuildID,
		DataChannels:  channels,
		AdminRoles:    dc.AdminRoles,
		Admins:        dc.Admins,
		ShardID:       dc.ShardID,
		ShardCount:    dc.ShardCount,
		Workers:       dc.Workers,
		APIURL:        dc.APIURL,
		GatewayURL:    dc.GatewayURL,
		Logger:        deps.Logger,
		Hooks:         deps.Metrics.DiscordHooks(),
	}
	if deps.Router != nil {
		acfg.WarehouseLimit = deps.Router.Limit
	}
	if deps.Status != nil {
		acfg.Status = deps.Status(discord.Platform)
	}
	if deps.AdminLinks != nil {
		acfg.AdminLinks = deps.AdminLinks
	}
	a, err := discord.New(acfg, deps.Dialog)
	if err != nil {
		return nil, err
	}
	return a, nil
}
