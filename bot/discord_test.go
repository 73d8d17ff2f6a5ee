package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/bot/internal/config"
	"github.com/clarify-bot/clarify/dialog/router"
)

func TestDiscordNotConfigured(t *testing.T) {
	t.Parallel()
	p, err := buildDiscord(context.Background(), Config{}, platformDeps{})
	if p != nil || err != nil {
		t.Fatalf("without a token: %v, %v", p, err)
	}
}

func TestDiscordBuildChecksShards(t *testing.T) {
	t.Parallel()
	cfg := Config{Discord: DiscordConfig{Token: "test-token", ShardID: 2, ShardCount: 2}}
	if p, err := buildDiscord(context.Background(), cfg, platformDeps{Dialog: &router.Router{}}); err == nil || p != nil {
		t.Fatalf("shard 2 of 2 accepted: %v", p)
	}
}

// TestDiscordServe runs the whole bot with Discord configured against the
// fake Discord through discord.api_url, as staging would: a question in a
// data channel is answered in a thread, /healthz reports Discord up, and
// shutdown drains.
func TestDiscordServe(t *testing.T) {
	t.Parallel()
	const guild, channel, user = "1200000000000000001", "1200000000000000010", "1000000000000000001"
	fake := discordtest.New(t, discordtest.Options{Guilds: []discordtest.Guild{{ID: guild, Channels: []string{channel}}}})
	m, cancel, wait := startMain(t, Config{Discord: DiscordConfig{
		Token: "test-token", GuildID: guild, APIURL: fake.Server.URL,
		DataChannels: []config.DiscordChannel{{ID: channel}},
	}})
	waitHealth(t, m, func(h healthzBody) bool { return h.Components["discord"].State == stateUp })
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

// TestDiscordIntentsRefusedServeGoesOn: Discord closing the gateway with
// 4014 stops the Discord platform only, once, with the fix in /healthz;
// the bot and its other platforms keep serving.
func TestDiscordIntentsRefusedServeGoesOn(t *testing.T) {
	t.Parallel()
	fake := discordtest.New(t, discordtest.Options{CloseCode: 4014, Guilds: []discordtest.Guild{{ID: "1200000000000000001", Channels: []string{"1200000000000000010"}}}})
	slack := slackfake.New(t)
	m, cancel, wait := startMain(t, Config{
		Discord: DiscordConfig{Token: "test-token", APIURL: fake.Server.URL},
		Slack:   SlackConfig{BotToken: slackfake.BotToken, SigningSecret: slackfake.Secret, Mode: "http", APIURL: slack.APIURL()},
	})
	h := waitHealth(t, m, func(h healthzBody) bool {
		return h.Components["discord"].State == stateStopped && h.Components["slack"].State == stateUp
	})
	if d := h.Components["discord"].Detail; !strings.Contains(d, "Message Content intent") || !strings.Contains(d, "4014") {
		t.Fatalf("discord detail %q", d)
	}
	if h.Components["slack"].State != stateUp || h.Warehouses["demo"] != "ok" || h.Status != "degraded" {
		t.Fatalf("healthz %+v", h)
	}
	// The bot still answers on Slack.
	since := slack.Mark()
	ev, _ := json.Marshal(map[string]any{
		"token": "x", "team_id": slackfake.TeamID, "api_app_id": "A0CLARIFY", "type": "event_callback", "event_id": "Ev0AFTER4014", "event_time": 1767200000,
		"event": map[string]any{"type": "app_mention", "user": "U0ANA", "channel": "C0OPS", "ts": "1767200000.000100", "event_ts": "1767200000.000100",
			"text": "<@" + slackfake.BotUserID + "> how many customers do we have?"},
	})
	if code, body := slackfake.Post(t, "http://"+m.Addr()+"/slack/events", slackfake.Secret, time.Now(), "application/json", ev, nil); code != 200 {
		t.Fatalf("slack event: %d %s", code, body)
	}
	slack.Wait(t, since, "chat.update", func(c slackfake.Call) bool { return strings.Contains(c.Get("blocks"), "clarify.feedback") })
	select {
	case <-fake.IdentifiedCh():
	default:
		t.Fatal("the bot never identified")
	}
	select {
	case <-fake.IdentifiedCh():
		t.Fatal("identified again after 4014")
	default:
	}
	cancel()
	if err := wait(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}
