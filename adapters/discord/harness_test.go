package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/clarify-bot/clarify/adapters/discord/discordtest"
)

// Fixed ids of the test world.
const (
	guildID   = "1200000000000000001"
	dataCh    = "1200000000000000010"
	otherCh   = "1200000000000000011"
	anyCh     = "1200000000000000012" // a data channel where every message is a question
	dmCh      = "1200000000000000020"
	alice     = "1000000000000000001"
	bob       = "1000000000000000002" // Manage Server
	carol     = "1000000000000000003" // has the admin role
	otherBot  = "1000000000000000004"
	adminRole = "1250000000000000001"

	permsPlain  = "1071698529857"          // typical member: no Manage Server
	permsManage = "1071698529889"          // the same | Manage Server (1<<5)
	intentsWant = 1 | 1<<9 | 1<<12 | 1<<15 // guilds, guild messages, DMs, message content
)

// logBuffer collects the adapter's logs; they are printed when a test fails
// (discordgo's global logger hook may keep writing after the test ends, so
// the logs never go to t.Log directly).
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func testLogger(t *testing.T) *slog.Logger {
	t.Helper()
	lb := &logBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("adapter log:\n%s", lb.String())
		}
	})
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newFake is the fake Discord with one guild (three text channels) and a DM.
func newFake(t *testing.T, opts discordtest.Options) *discordtest.Fake {
	t.Helper()
	opts.Guilds = []discordtest.Guild{{ID: guildID, Channels: []string{dataCh, otherCh, anyCh}}}
	opts.DMChannels = []string{dmCh}
	return discordtest.New(t, opts)
}

// harness runs an adapter against the fake.
type harness struct {
	t        *testing.T
	fake     *discordtest.Fake
	a        *Adapter
	stop     func() error
	identify json.RawMessage
}

func testConfig(t *testing.T, fake *discordtest.Fake) Config {
	return Config{
		Token: "test-token", GuildID: guildID, HTTPClient: fake.Client(), Logger: testLogger(t),
		DataChannels: []Channel{{ID: dataCh}, {ID: anyCh, AnyMessage: true}},
		AdminRoles:   []string{adminRole}, Workers: 4,
	}
}

// start runs the adapter until the test ends (or stop is called) and waits
// until it has identified and registered its commands.
func start(t *testing.T, fake *discordtest.Fake, cfg Config, d Dialog) *harness {
	t.Helper()
	a, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(60 * time.Second):
				runErr = fmt.Errorf("Run did not return after cancel")
			}
		})
		return runErr
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	h := &harness{t: t, fake: fake, a: a, stop: stop}
	h.identify = fake.Identified(t)
	if cfg.ShardID == 0 {
		fake.Next(t, "command registration", func(c *discordtest.Call) bool {
			return c.Method == "PUT" && strings.HasSuffix(c.Path, "/commands")
		})
	}
	return h
}

// quiet waits until the adapter has no queued or running work, so that the
// next event's calls are its own.
func (h *harness) quiet() {
	h.t.Helper()
	deadline := time.After(discordtest.Wait)
	for {
		ackIdle, ackCh := h.a.acks.Idle()
		workIdle, workCh := h.a.work.Idle()
		if ackIdle && workIdle {
			return
		}
		select {
		case <-ackCh:
		case <-workCh:
		case <-deadline:
			h.t.Fatal("the adapter did not become idle")
		}
	}
}

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
}).ParseGlob(filepath.Join("testdata", "*.json")))

func render(t *testing.T, name string, data any) json.RawMessage {
	t.Helper()
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("%s renders invalid JSON:\n%s", name, b.String())
	}
	return b.Bytes()
}

// person is who sends an event.
type person struct {
	ID, Name    string
	Roles       []string
	Permissions string
	Bot         bool
}

var (
	alicePerson = person{ID: alice, Name: "alice", Permissions: permsPlain}
	bobPerson   = person{ID: bob, Name: "bob", Permissions: permsManage}
	carolPerson = person{ID: carol, Name: "carol", Roles: []string{adminRole}, Permissions: permsPlain}
)

func (p person) roles() string {
	b, _ := json.Marshal(append([]string{}, p.Roles...))
	return string(b)
}

// msgOpts is a message someone posts.
type msgOpts struct {
	Channel, Content string
	From             person
	Mention          bool
	Type             int
	WebhookID        string
	// ReplyTo (DMs) is the message replied to; it must be in the fake.
	ReplyTo string
}

// post dispatches MESSAGE_CREATE (and stores the message in the fake so
// that threads can start from it); it returns the message id.
func (h *harness) post(m msgOpts) string {
	h.t.Helper()
	id := h.fake.NewID()
	content := m.Content
	mentions := "[]"
	if m.Mention {
		content = "<@" + h.fake.BotID() + "> " + content
		mentions = fmt.Sprintf(`[{"username":"Clarify","public_flags":0,"id":%q,"global_name":null,"discriminator":"0","avatar":null,"bot":true}]`, h.fake.BotID())
	}
	h.fake.AddMessage(discordtest.Message{ID: id, ChannelID: m.Channel, AuthorID: m.From.ID, Content: content})
	data := map[string]any{
		"ID": id, "Type": m.Type, "Content": content, "ChannelID": m.Channel, "GuildID": guildID,
		"UserID": m.From.ID, "Username": m.From.Name, "Bot": m.From.Bot, "Roles": m.From.roles(),
		"Mentions": mentions, "WebhookID": m.WebhookID, "Referenced": "", "ReferenceID": "",
	}
	name := "message_create_guild.json"
	if m.Channel == dmCh {
		name = "message_create_dm.json"
		if m.ReplyTo != "" {
			data["Referenced"], data["ReferenceID"] = string(h.fake.MessageJSON(m.ReplyTo)), m.ReplyTo
			if m.Type == 0 {
				data["Type"] = 19
			}
		}
	}
	h.fake.Dispatch("MESSAGE_CREATE", render(h.t, name, data))
	return id
}

// interaction is one interaction a test sends.
type interaction struct {
	ID, Token string
}

// interact dispatches INTERACTION_CREATE of type typ with the rendered data
// template; on is the message a component belongs to ("" for commands).
func (h *harness) interact(typ int, channel string, from person, dataTemplate string, data map[string]any, on string) interaction {
	h.t.Helper()
	in := interaction{ID: h.fake.NewID(), Token: "tok-" + h.fake.NewID()}
	guild := guildID
	if channel == dmCh {
		guild = ""
	}
	msg := ""
	if on != "" {
		msg = string(h.fake.MessageJSON(on))
	}
	env := map[string]any{
		"Type": typ, "ID": in.ID, "Token": in.Token, "AppID": h.fake.AppID(), "GuildID": guild, "ChannelID": channel,
		"ChannelType": 0, "UserID": from.ID, "Username": from.Name, "Roles": from.roles(), "Permissions": from.Permissions,
		"Data": string(render(h.t, dataTemplate, data)), "Message": msg,
	}
	h.fake.Dispatch("INTERACTION_CREATE", render(h.t, "interaction.json", env))
	return in
}

func (h *harness) command(channel string, from person, tmpl string, data map[string]any) interaction {
	return h.interact(2, channel, from, tmpl, data, "")
}

func (h *harness) click(m *discordtest.Message, customID string, from person) interaction {
	return h.interact(3, m.ChannelID, from, "data_button.json", map[string]any{"CustomID": customID}, m.ID)
}

func (h *harness) submit(m *discordtest.Message, customID, text string, from person) interaction {
	return h.interact(5, m.ChannelID, from, "data_modal.json", map[string]any{"CustomID": customID, "Text": text}, m.ID)
}

// callback is the interaction's first response, which must be the first
// call after the event (the adapter must be quiet before the event).
type callback struct {
	Type int `json:"type"`
	Data struct {
		Content    string            `json:"content"`
		Flags      int               `json:"flags"`
		CustomID   string            `json:"custom_id"`
		Title      string            `json:"title"`
		Components []json.RawMessage `json:"components"`
	} `json:"data"`
}

func (h *harness) firstResponse(in interaction) callback {
	h.t.Helper()
	// "typing…" of an earlier question may come in between; nothing else.
	c, _ := h.fake.Next(h.t, "first response", notTyping)
	if want := "/api/v9/interactions/" + in.ID + "/" + in.Token + "/callback"; c.Method != "POST" || c.Path != want {
		h.t.Fatalf("first call after the interaction = %s, want POST %s (the response must come first)", c, want)
	}
	if c.Status != 204 {
		h.t.Fatalf("the fake refused the response: %s", c)
	}
	var cb callback
	c.JSON(h.t, &cb)
	return cb
}

// posted waits for the next call matching method and path pattern, checks
// that the fake accepted it, and returns the message it created or edited.
func (h *harness) posted(what, method, pattern string) (*discordtest.Call, *discordtest.Message) {
	h.t.Helper()
	c, _ := h.fake.Next(h.t, what, discordtest.Is(method, pattern))
	if c.Status != 200 {
		h.t.Fatalf("%s: the fake refused: %s", what, c)
	}
	return c, h.messageOf(c)
}

// messageOf is the message a call created or edited (from the fake's answer).
func (h *harness) messageOf(c *discordtest.Call) *discordtest.Message {
	h.t.Helper()
	var m struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(c.Response, &m); err != nil || m.ID == "" {
		h.t.Fatalf("no message in the answer to %s", c)
	}
	msg, ok := h.fake.Message(m.ID)
	if !ok {
		h.t.Fatalf("the fake lost message %s", m.ID)
	}
	return msg
}

// components decodes message components for exact comparison.
type row struct {
	Type       int      `json:"type"`
	Components []button `json:"components"`
}

type button struct {
	Type     int    `json:"type"`
	Style    int    `json:"style"`
	Label    string `json:"label"`
	CustomID string `json:"custom_id"`
	Disabled bool   `json:"disabled"`
}

func rowsOfJSON(t *testing.T, raw json.RawMessage) []row {
	t.Helper()
	var rows []row
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &rows); err != nil {
			t.Fatalf("components %s: %v", raw, err)
		}
	}
	return rows
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Fatalf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}
