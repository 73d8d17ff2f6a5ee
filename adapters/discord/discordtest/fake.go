// Package discordtest is a fake Discord for tests: the REST API on an
// httptest server (reached through an http.Client whose transport rewrites
// the host, or by overriding discordgo's endpoint variables) and the
// gateway on a local WebSocket. It speaks the wire format discordgo v0.29
// uses, keeps the messages the bot posts, and rejects what Discord would
// (content over 2,000 characters, more than 5 rows of 5 buttons, labels
// over 80, custom_ids over 100 or repeated, uploads over 10 MiB, a second
// response to one interaction, a first response more than 3 seconds after
// the interaction was dispatched), so tests that pass respect the limits.
// It can add latency to every REST call and refuse the gateway with a
// close code (4004 bad token, 4014 disallowed intents).
package discordtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"
)

// Wait is how long Next waits for a call (dialog work over the demo
// warehouse can take seconds on a loaded machine).
var Wait = 90 * time.Second

// Guild is a guild the bot is in, with its text channels.
type Guild struct {
	ID       string
	Channels []string
}

// Options configure the fake.
type Options struct {
	BotID, AppID string
	Guilds       []Guild
	// DMChannels are DM channels (no guild).
	DMChannels []string
	// NoThreads makes thread creation fail with Missing Permissions.
	NoThreads bool
	// Token is the bot token the REST API accepts (default "test-token").
	Token string
	// HoldCommands, when set, delays the answer to a command registration
	// (recorded at once) until it is closed or the client gives up.
	HoldCommands <-chan struct{}
	// Latency delays every REST call before it is handled (the network and
	// Discord's own time): a first response is judged when it arrives.
	Latency time.Duration
	// CloseCode, when set, answers Identify by closing the gateway with it
	// (4004: authentication failed, 4014: disallowed intents).
	CloseCode int
	// ResponseWindow is how long after dispatch an interaction accepts its
	// first response (default 3s, as Discord); later ones get 10062
	// Unknown interaction and are listed by Expired.
	ResponseWindow time.Duration
}

// File is an uploaded attachment.
type File struct {
	Field, Name, ContentType string
	Data                     []byte
}

// Call is one REST request the bot made.
type Call struct {
	Method, Path string
	Query        url.Values
	// Body is the JSON payload (payload_json of a multipart request).
	Body  []byte
	Files []File
	// Status and Response are what the fake answered.
	Status   int
	Response []byte
}

// JSON decodes the body into v.
func (c *Call) JSON(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(c.Body, v); err != nil {
		tb.Fatalf("%s %s: body %s: %v", c.Method, c.Path, c.Body, err)
	}
}

func (c *Call) String() string {
	return fmt.Sprintf("%s %s %d %s", c.Method, c.Path, c.Status, c.Body)
}

// Message is a message the fake holds (posted by the bot, or added by a test).
type Message struct {
	ID, ChannelID, GuildID string
	AuthorID               string
	Content                string
	Components             json.RawMessage
	Flags                  int
	Reference              string // message_reference.message_id
	WebhookID              string
	Attachments            []File
}

// Ephemeral reports flag 64.
func (m *Message) Ephemeral() bool { return m.Flags&64 != 0 }

type channel struct {
	id, guild, parent, owner, name string
	thread                         bool
}

type interaction struct {
	id, token, channel, guild, message string
	responded                          bool
	original                           string // message id of @original
	dispatched                         time.Time
	// firstResponse is how long after dispatch the first response came.
	firstResponse time.Duration
}

// Fake is a fake Discord.
type Fake struct {
	Server *httptest.Server
	opts   Options
	tb     testing.TB

	mu           sync.Mutex
	calls        []*Call
	cursor       int
	notify       chan struct{}
	messages     map[string]*Message
	order        []string // message ids in creation order
	channels     map[string]*channel
	interactions map[string]*interaction // by token
	next         int64
	identified   chan json.RawMessage
	commands     map[string]json.RawMessage // registration path → body

	wsMu sync.Mutex
	ws   *websocket.Conn
	seq  int
}

// New starts a fake Discord; it is closed when the test ends.
func New(tb testing.TB, opts Options) *Fake {
	tb.Helper()
	if opts.BotID == "" {
		opts.BotID = "1100000000000000001"
	}
	if opts.AppID == "" {
		opts.AppID = opts.BotID
	}
	if opts.Token == "" {
		opts.Token = "test-token"
	}
	f := &Fake{
		opts: opts, tb: tb, notify: make(chan struct{}),
		messages: map[string]*Message{}, channels: map[string]*channel{}, interactions: map[string]*interaction{},
		next: 1300000000000000000, identified: make(chan json.RawMessage, 4), commands: map[string]json.RawMessage{},
	}
	for _, g := range opts.Guilds {
		for _, c := range g.Channels {
			f.channels[c] = &channel{id: c, guild: g.ID, name: "data-" + c[len(c)-3:]}
		}
	}
	for _, c := range opts.DMChannels {
		f.channels[c] = &channel{id: c}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ws/", f.gateway)
	mux.HandleFunc("/api/v9/", f.rest)
	f.Server = httptest.NewServer(mux)
	tb.Cleanup(func() {
		f.wsMu.Lock()
		if f.ws != nil {
			f.ws.Close()
		}
		f.wsMu.Unlock()
		f.Server.Close()
	})
	return f
}

// BotID is the bot's user id.
func (f *Fake) BotID() string { return f.opts.BotID }

// AppID is the application id.
func (f *Fake) AppID() string { return f.opts.AppID }

// NewID returns a fresh snowflake.
func (f *Fake) NewID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.newID()
}

func (f *Fake) newID() string {
	f.next++
	return strconv.FormatInt(f.next, 10)
}

// Client is an HTTP client that sends every request to the fake.
func (f *Fake) Client() *http.Client {
	target, _ := url.Parse(f.Server.URL)
	return &http.Client{Timeout: 30 * time.Second, Transport: rewrite{target: target, base: f.Server.Client().Transport}}
}

type rewrite struct {
	target *url.URL
	base   http.RoundTripper
}

func (r rewrite) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = r.target.Scheme, r.target.Host, r.target.Host
	return r.base.RoundTrip(req)
}

// OverrideEndpoints points discordgo's endpoint variables at the fake, for
// code that builds its own session (the bot's wiring), and restores them
// when the test ends. Do not use it with t.Parallel.
func (f *Fake) OverrideEndpoints(tb testing.TB) {
	tb.Helper()
	vars := []*string{
		&discordgo.EndpointDiscord, &discordgo.EndpointAPI, &discordgo.EndpointGuilds, &discordgo.EndpointChannels,
		&discordgo.EndpointUsers, &discordgo.EndpointGateway, &discordgo.EndpointGatewayBot, &discordgo.EndpointWebhooks,
		&discordgo.EndpointApplications,
	}
	saved := make([]string, len(vars))
	for i, v := range vars {
		saved[i] = *v
		*v = strings.Replace(*v, "https://discord.com/", f.Server.URL+"/", 1)
	}
	tb.Cleanup(func() {
		for i, v := range vars {
			*v = saved[i]
		}
	})
}

// --- gateway ---

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func (f *Fake) gateway(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	f.wsMu.Lock()
	if f.ws != nil {
		f.ws.Close()
	}
	f.ws, f.seq = c, 0
	f.wsMu.Unlock()
	f.send(map[string]any{"op": 10, "d": map[string]any{"heartbeat_interval": 45000}})
	defer func() {
		f.wsMu.Lock()
		if f.ws == c {
			f.ws = nil
		}
		f.wsMu.Unlock()
		c.Close()
	}()
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		var p struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if json.Unmarshal(data, &p) != nil {
			continue
		}
		switch p.Op {
		case 1: // heartbeat
			f.send(map[string]any{"op": 11})
		case 6: // resume: the session goes on
			f.Dispatch("RESUMED", map[string]any{})
		case 2: // identify
			f.identified <- p.D
			if code := f.opts.CloseCode; code != 0 {
				f.wsMu.Lock()
				_ = c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(code, closeReasons[code]))
				f.wsMu.Unlock()
				return
			}
			f.ready()
		}
	}
}

// ready sends READY and the guilds, as a gateway does after Identify. The
// bot may hang up as soon as it is ready (a test that only waited for it
// ends): a gateway drops what it cannot deliver then, so do we.
func (f *Fake) ready() {
	var guilds []map[string]any
	for _, g := range f.opts.Guilds {
		guilds = append(guilds, map[string]any{"id": g.ID, "unavailable": true})
	}
	_ = f.dispatch("READY", map[string]any{
		"v": 10, "session_id": "fake-session", "resume_gateway_url": "ws://" + f.Server.Listener.Addr().String() + "/ws",
		"user":        map[string]any{"id": f.opts.BotID, "username": "Clarify", "discriminator": "0", "global_name": nil, "avatar": nil, "bot": true, "verified": true},
		"application": map[string]any{"id": f.opts.AppID, "flags": 8953856},
		"guilds":      guilds, "private_channels": []any{}, "shard": []int{0, 1},
	})
	for _, g := range f.opts.Guilds {
		var chans []map[string]any
		f.mu.Lock()
		for _, id := range g.Channels {
			c := f.channels[id]
			chans = append(chans, map[string]any{"id": id, "type": 0, "name": c.name, "position": 0, "parent_id": nil, "nsfw": false, "permission_overwrites": []any{}})
		}
		f.mu.Unlock()
		_ = f.dispatch("GUILD_CREATE", map[string]any{
			"id": g.ID, "name": "Test guild " + g.ID, "owner_id": "1100000000000000099", "unavailable": false,
			"joined_at": "2026-01-02T03:04:05.000000+00:00", "large": false, "member_count": 3,
			"channels": chans, "threads": []any{}, "members": []any{}, "roles": []any{}, "emojis": []any{},
			"voice_states": []any{}, "presences": []any{}, "stickers": []any{},
		})
	}
}

// IdentifiedCh delivers each Identify's payload (to check there was none).
func (f *Fake) IdentifiedCh() <-chan json.RawMessage { return f.identified }

// Drop closes the gateway connection as a network failure would.
func (f *Fake) Drop() {
	f.wsMu.Lock()
	defer f.wsMu.Unlock()
	if f.ws != nil {
		f.ws.Close()
		f.ws = nil
	}
}

// Identified waits for the bot's Identify and returns its payload.
func (f *Fake) Identified(tb testing.TB) json.RawMessage {
	tb.Helper()
	select {
	case d := <-f.identified:
		return d
	case <-time.After(Wait):
		tb.Fatal("the bot did not identify on the gateway")
		return nil
	}
}

func (f *Fake) send(v any) {
	f.wsMu.Lock()
	defer f.wsMu.Unlock()
	if f.ws == nil {
		return
	}
	_ = f.ws.WriteJSON(v)
}

// Dispatch sends a gateway event (op 0). d is marshalled unless it is
// already JSON ([]byte or json.RawMessage). Interactions are remembered so
// that their responses can be checked.
func (f *Fake) Dispatch(event string, d any) {
	if err := f.dispatch(event, d); err != nil {
		f.tb.Errorf("dispatch %s: %v", event, err)
	}
}

// dispatch sends a gateway event and says why it could not.
func (f *Fake) dispatch(event string, d any) error {
	raw, ok := d.(json.RawMessage)
	if !ok {
		if b, isBytes := d.([]byte); isBytes {
			raw = b
		} else {
			raw, _ = json.Marshal(d)
		}
	}
	if event == "INTERACTION_CREATE" {
		var x struct {
			ID        string `json:"id"`
			Token     string `json:"token"`
			ChannelID string `json:"channel_id"`
			GuildID   string `json:"guild_id"`
			Message   *struct {
				ID string `json:"id"`
			} `json:"message"`
		}
		if err := json.Unmarshal(raw, &x); err == nil {
			rec := &interaction{id: x.ID, token: x.Token, channel: x.ChannelID, guild: x.GuildID, dispatched: time.Now()}
			if x.Message != nil {
				rec.message = x.Message.ID
			}
			f.mu.Lock()
			f.interactions[x.Token] = rec
			f.mu.Unlock()
		}
	}
	return f.push(event, raw)
}

// push writes a dispatch to the current connection.
func (f *Fake) push(event string, raw json.RawMessage) error {
	f.wsMu.Lock()
	defer f.wsMu.Unlock()
	if f.ws == nil {
		return fmt.Errorf("the bot is not connected")
	}
	f.seq++
	return f.ws.WriteJSON(map[string]any{"op": 0, "s": f.seq, "t": event, "d": raw})
}

// --- calls ---

// Mark is the number of calls so far (use with Since).
func (f *Fake) Mark() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// Since returns the calls after mark.
func (f *Fake) Since(mark int) []*Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*Call(nil), f.calls[mark:]...)
}

// Next waits for the next call (after the previous Next's) that matches,
// and returns it; the calls passed over are returned too.
func (f *Fake) Next(tb testing.TB, what string, match func(*Call) bool) (*Call, []*Call) {
	tb.Helper()
	deadline := time.After(Wait)
	for {
		f.mu.Lock()
		for i := f.cursor; i < len(f.calls); i++ {
			if match(f.calls[i]) {
				skipped := append([]*Call(nil), f.calls[f.cursor:i]...)
				f.cursor = i + 1
				c := f.calls[i]
				f.mu.Unlock()
				return c, skipped
			}
		}
		ch := f.notify
		f.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			var all []string
			for _, c := range f.Since(0) {
				all = append(all, c.String())
			}
			tb.Fatalf("no %s call within %v; calls:\n%s", what, Wait, strings.Join(all, "\n"))
			return nil, nil
		}
	}
}

// NextAny waits for the very next call.
func (f *Fake) NextAny(tb testing.TB) *Call {
	tb.Helper()
	c, _ := f.Next(tb, "any", func(*Call) bool { return true })
	return c
}

// Skip moves the cursor past every call so far.
func (f *Fake) Skip() {
	f.mu.Lock()
	f.cursor = len(f.calls)
	f.mu.Unlock()
}

// Is matches calls by method and a path pattern ("*" matches one segment).
func Is(method, pattern string) func(*Call) bool {
	re := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, `[^/]+`) + "$")
	return func(c *Call) bool { return c.Method == method && re.MatchString(c.Path) }
}

// Message returns a message the fake holds.
func (f *Fake) Message(id string) (*Message, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.messages[id]
	if !ok {
		return nil, false
	}
	c := *m
	return &c, true
}

// MessageJSON is a message in Discord's JSON form (for a component
// interaction's "message" field).
func (f *Fake) MessageJSON(id string) json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, ok := f.messages[id]
	if !ok {
		f.tb.Errorf("no message %s", id)
		return json.RawMessage("null")
	}
	return f.messageJSON(m)
}

// Messages lists the messages of a channel, oldest first.
func (f *Fake) Messages(channelID string) []*Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	var ms []*Message
	for _, id := range f.order {
		if m := f.messages[id]; m.ChannelID == channelID {
			c := *m
			ms = append(ms, &c)
		}
	}
	return ms
}

// AddMessage stores a message posted by someone else (a person's
// question), so that threads can start from it.
func (f *Fake) AddMessage(m Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c := f.channels[m.ChannelID]; c != nil && m.GuildID == "" {
		m.GuildID = c.guild
	}
	f.messages[m.ID] = &m
	f.order = append(f.order, m.ID)
}

// Commands returns the body of the last command registration at path
// ("/api/v9/applications/APP/commands" or ".../guilds/G/commands").
func (f *Fake) Commands(path string) json.RawMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.commands[path]
}

// --- REST ---

type apiError struct {
	status int
	code   int
	msg    string
}

// closeReasons are Discord's texts for the close codes the fake sends.
var closeReasons = map[int]string{4004: "Authentication failed.", 4014: "Disallowed intent(s).", 4013: "Invalid intent(s)."}

// Expired lists the interactions whose first response came too late (or
// never came, when all is set), with how late: what Discord shows as
// "This interaction failed".
func (f *Fake) Expired(all bool) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	window := f.window()
	var out []string
	for _, in := range f.interactions {
		switch {
		case in.responded && in.firstResponse > window:
			out = append(out, fmt.Sprintf("%s after %s", in.id, in.firstResponse.Round(time.Millisecond)))
		case !in.responded && all:
			out = append(out, in.id+" never answered")
		}
	}
	return out
}

// FirstResponses are the delays of the first responses, in no order.
func (f *Fake) FirstResponses() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []time.Duration
	for _, in := range f.interactions {
		if in.responded {
			out = append(out, in.firstResponse)
		}
	}
	return out
}

func (f *Fake) window() time.Duration {
	if f.opts.ResponseWindow > 0 {
		return f.opts.ResponseWindow
	}
	return 3 * time.Second
}

func (f *Fake) rest(w http.ResponseWriter, r *http.Request) {
	if f.opts.Latency > 0 {
		time.Sleep(f.opts.Latency) // simulated network and Discord time, not synchronisation
	}
	call := &Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()}
	status, resp := f.serve(r, call)
	call.Status, call.Response = status, resp
	f.mu.Lock()
	f.calls = append(f.calls, call)
	close(f.notify)
	f.notify = make(chan struct{})
	f.mu.Unlock()
	if f.opts.HoldCommands != nil && r.Method == "PUT" && strings.HasSuffix(r.URL.Path, "/commands") {
		select {
		case <-f.opts.HoldCommands:
		case <-r.Context().Done():
			return
		}
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(resp)
}

func errJSON(e apiError) (int, []byte) {
	b, _ := json.Marshal(map[string]any{"message": e.msg, "code": e.code})
	return e.status, b
}

func (f *Fake) serve(r *http.Request, call *Call) (int, []byte) {
	if err := readBody(r, call); err != nil {
		return errJSON(apiError{http.StatusBadRequest, 50109, err.Error()})
	}
	if r.Header.Get("Authorization") != "Bot "+f.opts.Token && !strings.HasPrefix(r.URL.Path, "/api/v9/interactions/") && !strings.HasPrefix(r.URL.Path, "/api/v9/webhooks/") {
		return errJSON(apiError{http.StatusUnauthorized, 0, "401: Unauthorized"})
	}
	p := strings.Split(strings.TrimPrefix(r.URL.Path, "/api/v9/"), "/")
	f.mu.Lock()
	defer f.mu.Unlock()
	if st, b, ok := f.identity(p); ok && r.Method == "GET" {
		return st, b
	}
	switch {
	case r.Method == "GET" && len(p) == 1 && p[0] == "gateway":
		return jsonOK(map[string]string{"url": "ws://" + f.Server.Listener.Addr().String() + "/ws"})
	case r.Method == "PUT" && p[0] == "applications" && p[len(p)-1] == "commands":
		return f.registerCommands(r.URL.Path, call.Body)
	case r.Method == "POST" && p[0] == "interactions" && len(p) == 4 && p[3] == "callback":
		return f.callback(p[1], p[2], call)
	case p[0] == "webhooks" && len(p) >= 3:
		return f.webhook(r.Method, p[1], p[2], p[3:], call)
	case p[0] == "channels" && len(p) >= 3 && p[2] == "messages":
		return f.channelMessages(r, p[1], p[3:], call)
	case r.Method == "POST" && p[0] == "channels" && len(p) == 3 && p[2] == "typing":
		if f.channels[p[1]] == nil {
			return errJSON(apiError{http.StatusNotFound, 10003, "Unknown Channel"})
		}
		return http.StatusNoContent, nil
	}
	return errJSON(apiError{http.StatusNotFound, 0, "404: Not Found"})
}

func readBody(r *http.Request, call *Call) error {
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		b, err := io.ReadAll(r.Body)
		call.Body = b
		return err
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	total := 0
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		data, err := io.ReadAll(part)
		if err != nil {
			return err
		}
		if part.FormName() == "payload_json" {
			call.Body = data
			continue
		}
		total += len(data)
		call.Files = append(call.Files, File{Field: part.FormName(), Name: part.FileName(), ContentType: part.Header.Get("Content-Type"), Data: data})
	}
	if total > 10<<20 {
		return fmt.Errorf("request entity too large: %d bytes of files", total)
	}
	return nil
}

func jsonOK(v any) (int, []byte) {
	b, _ := json.Marshal(v)
	return http.StatusOK, b
}

var commandName = regexp.MustCompile(`^[-_\p{Ll}\p{N}]{1,32}$`)

func (f *Fake) registerCommands(path string, body []byte) (int, []byte) {
	var cmds []map[string]any
	if err := json.Unmarshal(body, &cmds); err != nil {
		return errJSON(apiError{http.StatusBadRequest, 50035, "Invalid Form Body"})
	}
	check := func(m map[string]any) string {
		name, _ := m["name"].(string)
		desc, _ := m["description"].(string)
		if !commandName.MatchString(name) {
			return "invalid name " + name
		}
		if n := utf8.RuneCountInString(desc); n < 1 || n > 100 {
			return "invalid description of " + name
		}
		return ""
	}
	for _, c := range cmds {
		if e := check(c); e != "" {
			return errJSON(apiError{http.StatusBadRequest, 50035, e})
		}
		opts, _ := c["options"].([]any)
		for _, o := range opts {
			if e := check(o.(map[string]any)); e != "" {
				return errJSON(apiError{http.StatusBadRequest, 50035, e})
			}
		}
		c["id"], c["application_id"], c["version"] = f.newID(), f.opts.AppID, f.newID()
	}
	f.commands[path] = body
	return jsonOK(cmds)
}

// payload is the part of a message body the fake checks and keeps.
type payload struct {
	Content    *string         `json:"content"`
	Components json.RawMessage `json:"components"`
	Flags      int             `json:"flags"`
	Reference  *struct {
		MessageID string `json:"message_id"`
	} `json:"message_reference"`
	CustomID string `json:"custom_id"`
	Title    string `json:"title"`
}

type component struct {
	Type       int         `json:"type"`
	CustomID   string      `json:"custom_id"`
	Label      string      `json:"label"`
	Style      int         `json:"style"`
	URL        string      `json:"url"`
	Components []component `json:"components"`
	MaxLength  int         `json:"max_length"`
	Value      string      `json:"value"`
}

// checkMessage applies Discord's message limits.
func checkMessage(p payload) string {
	if p.Content != nil && utf8.RuneCountInString(*p.Content) > 2000 {
		return fmt.Sprintf("content: %d characters, over 2000", utf8.RuneCountInString(*p.Content))
	}
	if len(p.Components) == 0 || string(p.Components) == "null" {
		return ""
	}
	var rows []component
	if err := json.Unmarshal(p.Components, &rows); err != nil {
		return "components: " + err.Error()
	}
	if len(rows) > 5 {
		return fmt.Sprintf("components: %d action rows, over 5", len(rows))
	}
	seen := map[string]bool{}
	for _, row := range rows {
		if row.Type != 1 {
			return fmt.Sprintf("components: top level type %d, want an action row", row.Type)
		}
		if len(row.Components) == 0 || len(row.Components) > 5 {
			return fmt.Sprintf("components: %d buttons in a row", len(row.Components))
		}
		for _, b := range row.Components {
			switch {
			case b.Type != 2:
				return fmt.Sprintf("components: type %d in a message row", b.Type)
			case b.Label == "" || utf8.RuneCountInString(b.Label) > 80:
				return fmt.Sprintf("components: label %q", b.Label)
			case b.CustomID == "" || len(b.CustomID) > 100:
				return fmt.Sprintf("components: custom_id %q", b.CustomID)
			case seen[b.CustomID]:
				return fmt.Sprintf("components: duplicate custom_id %q", b.CustomID)
			case b.Style < 1 || b.Style > 4:
				return fmt.Sprintf("components: style %d", b.Style)
			}
			seen[b.CustomID] = true
		}
	}
	return ""
}

// checkModal applies Discord's modal limits (title ≤ 45, one or more
// action rows each holding one text input).
func checkModal(p payload) string {
	if p.CustomID == "" || len(p.CustomID) > 100 {
		return "modal custom_id " + p.CustomID
	}
	if n := utf8.RuneCountInString(p.Title); n < 1 || n > 45 {
		return "modal title " + p.Title
	}
	var rows []component
	if err := json.Unmarshal(p.Components, &rows); err != nil || len(rows) == 0 || len(rows) > 5 {
		return "modal components"
	}
	for _, row := range rows {
		if row.Type != 1 || len(row.Components) != 1 || row.Components[0].Type != 4 {
			return "modal: want ActionsRow{TextInput}"
		}
		ti := row.Components[0]
		if n := utf8.RuneCountInString(ti.Label); n < 1 || n > 45 || ti.MaxLength > 4000 || ti.CustomID == "" {
			return "modal text input"
		}
	}
	return ""
}

func (f *Fake) callback(id, token string, call *Call) (int, []byte) {
	in := f.interactions[token]
	if in == nil || in.id != id {
		return errJSON(apiError{http.StatusNotFound, 10062, "Unknown interaction"})
	}
	if in.responded {
		return errJSON(apiError{http.StatusBadRequest, 40060, "Interaction has already been acknowledged."})
	}
	if late := time.Since(in.dispatched); late > f.window() {
		// Discord has forgotten the interaction: the person saw "This
		// interaction failed".
		in.responded, in.firstResponse = true, late
		return errJSON(apiError{http.StatusNotFound, 10062, "Unknown interaction"})
	}
	var resp struct {
		Type int     `json:"type"`
		Data payload `json:"data"`
	}
	if err := json.Unmarshal(call.Body, &resp); err != nil {
		return errJSON(apiError{http.StatusBadRequest, 50035, "Invalid Form Body"})
	}
	switch resp.Type {
	case 4, 7:
		if e := checkMessage(resp.Data); e != "" {
			return errJSON(apiError{http.StatusBadRequest, 50035, e})
		}
	case 9:
		if e := checkModal(resp.Data); e != "" {
			return errJSON(apiError{http.StatusBadRequest, 50035, e})
		}
	}
	in.responded, in.firstResponse = true, time.Since(in.dispatched)
	switch resp.Type {
	case 4, 5:
		m := &Message{ID: f.newID(), ChannelID: in.channel, GuildID: in.guild, AuthorID: f.opts.BotID, WebhookID: f.opts.AppID, Flags: resp.Data.Flags}
		if resp.Data.Content != nil {
			m.Content = *resp.Data.Content
		}
		f.store(m)
		in.original = m.ID
	case 6, 7:
		in.original = in.message
	}
	return http.StatusNoContent, nil
}

func (f *Fake) store(m *Message) {
	f.messages[m.ID] = m
	f.order = append(f.order, m.ID)
}

func (f *Fake) apply(m *Message, p payload, files []File) {
	if p.Content != nil {
		m.Content = *p.Content
	}
	if len(p.Components) > 0 {
		m.Components = append(json.RawMessage(nil), p.Components...)
		if string(m.Components) == "null" {
			m.Components = nil
		}
	}
	if p.Reference != nil {
		m.Reference = p.Reference.MessageID
	}
	m.Attachments = append(m.Attachments, files...)
}

func (f *Fake) webhook(method, app, token string, rest []string, call *Call) (int, []byte) {
	in := f.interactions[token]
	if app != f.opts.AppID || in == nil {
		return errJSON(apiError{http.StatusNotFound, 10015, "Unknown Webhook"})
	}
	if !in.responded {
		return errJSON(apiError{http.StatusNotFound, 10015, "Unknown Webhook (no response to the interaction yet)"})
	}
	var p payload
	if len(call.Body) > 0 {
		if err := json.Unmarshal(call.Body, &p); err != nil {
			return errJSON(apiError{http.StatusBadRequest, 50035, "Invalid Form Body"})
		}
	}
	if e := checkMessage(p); e != "" {
		return errJSON(apiError{http.StatusBadRequest, 50035, e})
	}
	switch {
	case method == "POST" && len(rest) == 0:
		m := &Message{ID: f.newID(), ChannelID: in.channel, GuildID: in.guild, AuthorID: f.opts.BotID, WebhookID: f.opts.AppID, Flags: p.Flags}
		f.apply(m, p, call.Files)
		f.store(m)
		return http.StatusOK, f.messageJSON(m)
	case method == "PATCH" && len(rest) == 2 && rest[0] == "messages":
		id := rest[1]
		if id == "@original" {
			id = in.original
		}
		m := f.messages[id]
		if m == nil {
			return errJSON(apiError{http.StatusNotFound, 10008, "Unknown Message"})
		}
		f.apply(m, p, call.Files)
		return http.StatusOK, f.messageJSON(m)
	}
	return errJSON(apiError{http.StatusNotFound, 0, "404: Not Found"})
}

func (f *Fake) channelMessages(r *http.Request, channelID string, rest []string, call *Call) (int, []byte) {
	ch := f.channels[channelID]
	if ch == nil {
		return errJSON(apiError{http.StatusNotFound, 10003, "Unknown Channel"})
	}
	switch {
	case r.Method == "GET" && len(rest) == 0:
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if limit <= 0 || limit > 100 {
			limit = 50
		}
		var list []json.RawMessage
		for i := len(f.order) - 1; i >= 0 && len(list) < limit; i-- {
			if m := f.messages[f.order[i]]; m.ChannelID == channelID && !m.Ephemeral() {
				list = append(list, f.messageJSON(m))
			}
		}
		return jsonOK(list)
	case r.Method == "POST" && len(rest) == 0:
		var p payload
		if err := json.Unmarshal(call.Body, &p); err != nil {
			return errJSON(apiError{http.StatusBadRequest, 50035, "Invalid Form Body"})
		}
		if e := checkMessage(p); e != "" {
			return errJSON(apiError{http.StatusBadRequest, 50035, e})
		}
		if (p.Content == nil || *p.Content == "") && len(call.Files) == 0 {
			return errJSON(apiError{http.StatusBadRequest, 50006, "Cannot send an empty message"})
		}
		m := &Message{ID: f.newID(), ChannelID: channelID, GuildID: ch.guild, AuthorID: f.opts.BotID}
		f.apply(m, p, call.Files)
		f.store(m)
		return http.StatusOK, f.messageJSON(m)
	case r.Method == "PATCH" && len(rest) == 1:
		m := f.messages[rest[0]]
		if m == nil || m.ChannelID != channelID {
			return errJSON(apiError{http.StatusNotFound, 10008, "Unknown Message"})
		}
		if m.AuthorID != f.opts.BotID {
			return errJSON(apiError{http.StatusForbidden, 50005, "Cannot edit a message authored by another user"})
		}
		var p payload
		if err := json.Unmarshal(call.Body, &p); err != nil {
			return errJSON(apiError{http.StatusBadRequest, 50035, "Invalid Form Body"})
		}
		if e := checkMessage(p); e != "" {
			return errJSON(apiError{http.StatusBadRequest, 50035, e})
		}
		f.apply(m, p, call.Files)
		return http.StatusOK, f.messageJSON(m)
	case r.Method == "POST" && len(rest) == 2 && rest[1] == "threads":
		return f.startThread(ch, rest[0], call)
	}
	return errJSON(apiError{http.StatusNotFound, 0, "404: Not Found"})
}

func (f *Fake) pushJSON(event string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return f.push(event, raw)
}

func (f *Fake) startThread(parent *channel, messageID string, call *Call) (int, []byte) {
	if f.opts.NoThreads {
		return errJSON(apiError{http.StatusForbidden, 50013, "Missing Permissions"})
	}
	if parent.thread || parent.guild == "" {
		return errJSON(apiError{http.StatusBadRequest, 50024, "Cannot execute action on this channel type"})
	}
	m := f.messages[messageID]
	if m == nil || m.ChannelID != parent.id {
		return errJSON(apiError{http.StatusNotFound, 10008, "Unknown Message"})
	}
	if _, exists := f.channels[messageID]; exists {
		return errJSON(apiError{http.StatusBadRequest, 160004, "A thread has already been created for this message"})
	}
	var body struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(call.Body, &body)
	if n := utf8.RuneCountInString(body.Name); n < 1 || n > 100 {
		return errJSON(apiError{http.StatusBadRequest, 50035, "thread name"})
	}
	th := &channel{id: messageID, guild: parent.guild, parent: parent.id, owner: f.opts.BotID, name: body.Name, thread: true}
	f.channels[th.id] = th
	obj := map[string]any{
		"id": th.id, "type": 11, "guild_id": th.guild, "parent_id": th.parent, "owner_id": th.owner, "name": th.name,
		"last_message_id": nil, "message_count": 0, "member_count": 1, "rate_limit_per_user": 0, "flags": 0,
		"thread_metadata": map[string]any{"archived": false, "auto_archive_duration": 1440, "locked": false, "archive_timestamp": "2026-11-22T12:00:00.000000+00:00"},
	}
	// Discord tells the gateway too (if the bot is connected); the event
	// goes out before the answer, so the bot's state knows the thread
	// before anyone writes in it.
	_ = f.pushJSON("THREAD_CREATE", map[string]any{"newly_created": true, "id": obj["id"], "type": 11, "guild_id": th.guild, "parent_id": th.parent, "owner_id": th.owner, "name": th.name, "thread_metadata": obj["thread_metadata"]})
	return jsonOK(obj)
}

func (f *Fake) messageJSON(m *Message) json.RawMessage {
	typ := 0
	if m.Reference != "" {
		typ = 19
	}
	obj := map[string]any{
		"id": m.ID, "channel_id": m.ChannelID, "type": typ, "content": m.Content, "tts": false,
		"timestamp": "2026-11-22T12:00:00.000000+00:00", "edited_timestamp": nil, "pinned": false,
		"mention_everyone": false, "mentions": []any{}, "mention_roles": []any{}, "embeds": []any{}, "flags": m.Flags,
		"author": map[string]any{"id": m.AuthorID, "username": "someone", "discriminator": "0", "global_name": nil, "avatar": nil},
	}
	if m.AuthorID == f.opts.BotID {
		obj["author"] = map[string]any{"id": m.AuthorID, "username": "Clarify", "discriminator": "0", "global_name": nil, "avatar": nil, "bot": true}
	}
	if m.GuildID != "" {
		obj["guild_id"] = m.GuildID
	}
	if m.WebhookID != "" {
		obj["webhook_id"] = m.WebhookID
		obj["application_id"] = m.WebhookID
	}
	if len(m.Components) > 0 {
		obj["components"] = m.Components
	} else {
		obj["components"] = []any{}
	}
	if m.Reference != "" {
		obj["message_reference"] = map[string]any{"type": 0, "message_id": m.Reference, "channel_id": m.ChannelID}
	}
	var atts []any
	for _, a := range m.Attachments {
		atts = append(atts, map[string]any{"id": "9" + strconv.Itoa(len(atts)), "filename": a.Name, "size": len(a.Data), "content_type": a.ContentType, "url": "https://cdn.example/" + a.Name, "proxy_url": "https://cdn.example/" + a.Name})
	}
	if atts == nil {
		atts = []any{}
	}
	obj["attachments"] = atts
	b, _ := json.Marshal(obj)
	return b
}

// Buttons lists a message's buttons: custom_id → label, and the ids in
// order.
func Buttons(tb testing.TB, components json.RawMessage) (labels map[string]string, ids []string) {
	tb.Helper()
	var rows []component
	if len(components) > 0 {
		if err := json.Unmarshal(components, &rows); err != nil {
			tb.Fatalf("components %s: %v", components, err)
		}
	}
	labels = map[string]string{}
	for _, r := range rows {
		for _, b := range r.Components {
			labels[b.CustomID] = b.Label
			ids = append(ids, b.CustomID)
		}
	}
	return labels, ids
}

// Rows returns the number of action rows and the buttons per row.
func Rows(tb testing.TB, components json.RawMessage) []int {
	tb.Helper()
	var rows []component
	if len(components) > 0 {
		if err := json.Unmarshal(components, &rows); err != nil {
			tb.Fatalf("components %s: %v", components, err)
		}
	}
	var n []int
	for _, r := range rows {
		n = append(n, len(r.Components))
	}
	return n
}
