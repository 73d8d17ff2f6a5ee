package discord

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// endpointTransport sends discordgo's REST calls to another server than
// discord.com (a fake in tests, a staging proxy) by rewriting the scheme
// and host; the paths (/api/v9/…) stay. With a gateway URL it also answers
// the gateway lookup (GET /api/v9/gateway and /gateway/bot) itself, so
// that the WebSocket goes there. discordgo computes its endpoints once
// from discord.com, and this is the one hook it offers per session.
type endpointTransport struct {
	api     *url.URL // nil: discord.com
	gateway string   // "": as the API says
	base    http.RoundTripper
}

func (t endpointTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.gateway != "" && req.Method == http.MethodGet && (strings.HasSuffix(req.URL.Path, "/gateway") || strings.HasSuffix(req.URL.Path, "/gateway/bot")) {
		body, _ := json.Marshal(map[string]any{"url": t.gateway, "shards": 1})
		return &http.Response{
			StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body)), Request: req,
		}, nil
	}
	if t.api != nil {
		req = req.Clone(req.Context())
		req.URL.Scheme, req.URL.Host, req.Host = t.api.Scheme, t.api.Host, t.api.Host
	}
	return t.base.RoundTrip(req)
}

// withEndpoints returns a copy of c that reaches apiURL and gatewayURL.
func withEndpoints(c *http.Client, apiURL, gatewayURL string) (*http.Client, error) {
	t := endpointTransport{gateway: strings.TrimRight(gatewayURL, "/")}
	if apiURL != "" {
		u, err := url.Parse(apiURL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("discord: api_url %q: want http(s)://host[:port]", apiURL)
		}
		t.api = u
	}
	if t.gateway != "" {
		u, err := url.Parse(t.gateway)
		if err != nil || u.Host == "" || (u.Scheme != "ws" && u.Scheme != "wss") {
			return nil, fmt.Errorf("discord: gateway_url %q: want ws(s)://host[:port]/path", gatewayURL)
		}
	}
	cp := *c
	t.base = cp.Transport
	if t.base == nil {
		t.base = http.DefaultTransport
	}
	cp.Transport = t
	return &cp, nil
}

// ErrRefused marks a failure that retrying will not fix: Discord refused
// the token or the intents. Run ends with it; the message names the fix.
var ErrRefused = errors.New("refused by Discord")

// refusal words a gateway close code or REST status Discord uses to say
// the bot may not connect as configured, nil for anything worth retrying.
// https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-close-event-codes
func refusal(err error) error {
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		fix := ""
		switch ce.Code {
		case 4004:
			fix = "Discord refused the bot token (gateway close code 4004, authentication failed): copy the token from the developer portal (Bot → Reset Token) into DISCORD_BOT_TOKEN"
		case 4014:
			fix = "Discord refused the gateway intents (close code 4014, disallowed intents): enable the Message Content intent in the developer portal (Bot → Privileged Gateway Intents), then restart"
		case 4013:
			fix = "Discord refused the gateway intents as invalid (close code 4013)"
		case 4010, 4011:
			fix = fmt.Sprintf("Discord refused the shard (close code %d): set discord.shard_count (and one replica per discord.shard_id); the bot is in too many guilds for one connection", ce.Code)
		case 4012:
			fix = "Discord refused the gateway API version (close code 4012): upgrade Clarify"
		}
		if fix != "" {
			return fmt.Errorf("discord: %s (%w: %w)", fix, ErrRefused, err)
		}
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
		return fmt.Errorf("discord: Discord refused the bot token (HTTP 401): copy the token from the developer portal (Bot → Reset Token) into DISCORD_BOT_TOKEN (%w: %w)", ErrRefused, err)
	}
	return nil
}
