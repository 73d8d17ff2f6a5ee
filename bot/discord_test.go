package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
)

func TestDiscordNotConfigured(t *testing.T) {
	p, err := buildDiscord(context.Background(), Config{}, platformDeps{})
	if p != nil || err != nil {
		t.Fatalf("without a token: %v, %v", p, err)
	}
}

func TestDiscordBuildChecksShards(t *testing.T) {
	cfg := Config{Discord: DiscordConfig{Token: "test-token", ShardID: 2, ShardCount: 2}}
	if p, err := buildDiscord(context.Background(), cfg, platformDeps{Dialog: &router{}}); err == nil || p != nil {
		t.Fatalf("shard 2 of 2 accepted: %v", p)
	}
}

// TestDiscordServe runs the whole bot with Discord configured against the
// fake Discord (endpoints overridden: bot wiring builds its own session):
// a question in a data channel is answered in a thread, and shutdown drains.
func TestDiscordServe(t *testing.T) {
	const guild, channel, user = "1200000000000000001", "1200000000000000010", "1000000000000000001"
	fake := discordtest.New(t, discordtest.Options{Guilds: []discordtest.Guild{{ID: guild, Channels: []string{channel}}}})
	fake.OverrideEndpoints(t)
	_, cancel, wait := startMain(t, Config{Discord: DiscordConfig{
		Token: "test-token", GuildID: guild,
		DataChannels: []DiscordChannel{{ID: channel}},
	}})
	fake.Identified(t)
	reg, _ := fake.Next(t, "command registration", discordtest.Is("PUT", "/api/v9/applications/*/guilds/"+guild+"/commands"))
	if reg.Status != 200 {
		t.Fatalf("registration: %s", reg)
	}

	id := fake.NewID()
	content := "<@" + fake.BotID() + "> how many customers do we have?"
	fake.AddMessage(discordtest.Message{ID: id, ChannelID: channel, AuthorID: user, Content: content})
	msg, _ := json.Marshal(map[string]any{
		"type": 0, "tts": false, "timestamp": "2026-11-22T12:00:00.123000+00:00", "pinned": false,
		"mentions":      []any{map[string]any{"id": fake.BotID(), "username": "Clarify", "discriminator": "0", "bot": true}},
		"mention_roles": []any{}, "mention_everyone": false, "id": id, "flags": 0, "embeds": []any{},
		"content": content, "components": []any{}, "channel_id": channel, "guild_id": guild, "attachments": []any{},
		"member": map[string]any{"roles": []any{}, "joined_at": "2025-03-01T10:00:00.000000+00:00", "deaf": false, "mute": false, "flags": 0},
		"author": map[string]any{"id": user, "username": "alice", "global_name": "alice", "discriminator": "0", "avatar": nil},
	})
	fake.Dispatch("MESSAGE_CREATE", msg)
	fake.Next(t, "thread", discordtest.Is("POST", "/api/v9/channels/"+channel+"/messages/"+id+"/threads"))
	answer, _ := fake.Next(t, "answer", discordtest.Is("POST", "/api/v9/channels/"+id+"/messages"))
	var body struct {
		Content string `json:"content"`
	}
	answer.JSON(t, &body)
	if answer.Status != 200 || !strings.Contains(body.Content, "```") {
		t.Fatalf("answer: %s", answer)
	}
	cancel()
	if err := wait(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}
