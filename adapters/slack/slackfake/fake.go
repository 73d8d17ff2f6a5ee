// Package slackfake is a fake Slack for tests: an httptest server that
// speaks the Web API's wire format (form or JSON requests, {"ok":…}
// answers, 429 with Retry-After), the files upload v2 URL, response_url
// hooks and the Socket Mode WebSocket. It records every call, refuses
// Block Kit that breaks Slack's limits the way Slack does (invalid_blocks),
// and signs HTTP-mode requests the way Slack does.
package slackfake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Identity of the fake workspace and bot.
const (
	TeamID    = "T0CLARIFY"
	TeamName  = "Clarify Test"
	BotUserID = "U0CLARIFY"
	BotID     = "B0CLARIFY"
	BotToken  = "xoxb-1-fake-bot-token"
	AppToken  = "xapp-1-A0CLARIFY-fake-app-token"
	Secret    = "8f742231b10e8888abcd99yyyzzz85a5"
)

// WaitTimeout bounds every wait for a call (the dialog runs real queries
// on a shared machine).
const WaitTimeout = 90 * time.Second

// Call is one request the fake received.
type Call struct {
	Seq    int
	Method string // "chat.postMessage", "views.open", "response_url", "file_upload", …
	Form   url.Values
	JSON   map[string]any
	Raw    []byte
	Header http.Header
	// TS is the message a chat call is about: the ts chat.postMessage
	// returned, or the ts chat.update and chat.delete were given.
	TS string
	// At is when the fake received the call (for latency figures).
	At time.Time
}

// Get reads a parameter from the form, or a top-level JSON string.
func (c Call) Get(key string) string {
	if v := c.Form.Get(key); v != "" {
		return v
	}
	if s, ok := c.JSON[key].(string); ok {
		return s
	}
	return ""
}

// BlocksJSON is the blocks the call sent, as JSON ("" if none): a
// message's blocks, a view's blocks, or a response_url message's blocks.
func (c Call) BlocksJSON() string {
	if b := c.Form.Get("blocks"); b != "" {
		return b
	}
	if v, ok := c.JSON["view"].(map[string]any); ok {
		b, _ := json.Marshal(v["blocks"])
		return string(b)
	}
	if b, ok := c.JSON["blocks"]; ok {
		out, _ := json.Marshal(b)
		return string(out)
	}
	return ""
}

// View is the view a views.open or views.publish call sent.
func (c Call) View() map[string]any {
	v, _ := c.JSON["view"].(map[string]any)
	return v
}

// Server is the fake.
type Server struct {
	srv *httptest.Server
	tb  testing.TB

	mu         sync.Mutex
	calls      []Call
	dropped    int // calls forgotten by DropCalls; Seq counts them
	changed    chan struct{}
	ts         int64
	files      int
	admins     map[string]bool
	rateLimit  map[string]int // method → 429s still to send
	authError  string
	uploads    map[string][]byte
	violations []string
	sockets    chan *Socket
	scopes     []string // nil: DefaultScopes
	latency    time.Duration
	methodLat  map[string]time.Duration
}

// SetMethodLatency delays the answers to one Web API method by d (a slow
// call to hold a bot mid-turn); 0 removes it.
func (s *Server) SetMethodLatency(method string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.methodLat == nil {
		s.methodLat = map[string]time.Duration{}
	}
	s.methodLat[method] = d
}

// SetLatency delays every Web API answer by d, as the network and Slack
// do (about 100 ms from most places); the call is recorded on arrival.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	s.latency = d
	s.mu.Unlock()
}

// New starts a fake Slack; it is closed when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{
		tb:        tb,
		changed:   make(chan struct{}),
		ts:        1_767_000_000,
		admins:    map[string]bool{},
		rateLimit: map[string]int{},
		uploads:   map[string][]byte{},
		sockets:   make(chan *Socket, 4),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.api)
	mux.HandleFunc("/upload/", s.upload)
	mux.HandleFunc("/response/", s.response)
	mux.HandleFunc("/ws", s.websocket)
	s.srv = httptest.NewServer(mux)
	tb.Cleanup(s.srv.Close)
	return s
}

// URL is the server's base URL.
func (s *Server) URL() string { return s.srv.URL }

// APIURL is what slack.OptionAPIURL needs (with the trailing slash).
func (s *Server) APIURL() string { return s.srv.URL + "/api/" }

// ResponseURL is a response_url that posts back to this fake.
func (s *Server) ResponseURL(name string) string { return s.srv.URL + "/response/" + name }

// SetAdmin makes users.info report user as a workspace admin.
func (s *Server) SetAdmin(user string) {
	s.mu.Lock()
	s.admins[user] = true
	s.mu.Unlock()
}

// RateLimit makes the next n calls of method fail with HTTP 429 and
// Retry-After: seconds.
func (s *Server) RateLimit(method string, n int) {
	s.mu.Lock()
	s.rateLimit[method] = n
	s.mu.Unlock()
}

// FailAuth makes auth.test answer {"ok":false,"error":code}.
func (s *Server) FailAuth(code string) {
	s.mu.Lock()
	s.authError = code
	s.mu.Unlock()
}

// Violations lists the Block Kit limit violations seen (answered with
// invalid_blocks, as Slack does).
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// Upload returns a file's uploaded bytes.
func (s *Server) Upload(fileID string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uploads[fileID]
}

// Mark is the number of calls so far: Wait(since=Mark()) waits for calls
// made after it.
func (s *Server) Mark() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dropped + len(s.calls)
}

// Calls returns the calls of method (all calls if method is "").
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Wait returns the first call at or after since that is of method ("" for
// any) and satisfies match (nil matches any), waiting up to WaitTimeout.
func (s *Server) Wait(tb testing.TB, since int, method string, match func(Call) bool) Call {
	tb.Helper()
	deadline := time.NewTimer(WaitTimeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		calls := append([]Call(nil), s.after(since)...)
		ch := s.changed
		s.mu.Unlock()
		// match runs unlocked: it may look at other calls.
		for _, c := range calls {
			if (method == "" || c.Method == method) && (match == nil || match(c)) {
				return c
			}
		}
		select {
		case <-ch:
		case <-deadline.C:
			tb.Fatalf("slackfake: no %s call after #%d within %s; calls:\n%s", method, since, WaitTimeout, s.describe(since))
			return Call{}
		}
	}
}

// Next returns the first call at or after since, waiting up to timeout;
// ok is false when none came (a test that reports what it saw instead of
// failing at once).
func (s *Server) Next(since int, timeout time.Duration) (Call, bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		calls := s.after(since)
		ch := s.changed
		var c Call
		if len(calls) > 0 {
			c = calls[0]
		}
		s.mu.Unlock()
		if len(calls) > 0 {
			return c, true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return Call{}, false
		}
	}
}

func (s *Server) describe(since int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, c := range s.after(since) {
		text := c.Get("text")
		if len(text) > 120 {
			text = text[:120] + "…"
		}
		fmt.Fprintf(&b, "  #%d %s %q\n", c.Seq, c.Method, text)
	}
	return b.String()
}

// after is the calls kept from Seq since on; s.mu is held.
func (s *Server) after(since int) []Call {
	i := min(max(since-s.dropped, 0), len(s.calls))
	return s.calls[i:]
}

func (s *Server) record(c Call) Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Seq = s.dropped + len(s.calls)
	if c.At.IsZero() {
		c.At = time.Now()
	}
	s.calls = append(s.calls, c)
	close(s.changed)
	s.changed = make(chan struct{})
	return c
}

func (s *Server) nextTS() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ts++
	return fmt.Sprintf("%d.%06d", s.ts, s.ts%1_000_000)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	_ = json.NewEncoder(w).Encode(v)
}

type obj = map[string]any

func (s *Server) api(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	body, _ := io.ReadAll(r.Body)
	c := Call{Method: method, Raw: body, Header: r.Header.Clone()}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		_ = json.Unmarshal(body, &c.JSON)
	default:
		c.Form, _ = url.ParseQuery(string(body))
	}
	if c.Form == nil {
		c.Form = url.Values{}
	}
	switch method {
	case "chat.postMessage":
		c.TS = s.nextTS()
	case "chat.update", "chat.delete":
		c.TS = c.Get("ts")
	}
	c = s.record(c)

	s.mu.Lock()
	if d := s.latency + s.methodLat[method]; d > 0 {
		s.mu.Unlock()
		// Simulated network and server time, not synchronisation; a client
		// that went away (a killed bot) ends it.
		select {
		case <-time.After(d):
		case <-r.Context().Done():
		}
		s.mu.Lock()
	}
	limited := s.rateLimit[method] > 0
	if limited {
		s.rateLimit[method]--
	}
	authError := s.authError
	s.mu.Unlock()
	if limited {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		return
	}
	if !s.authorized(c, method) {
		writeJSON(w, obj{"ok": false, "error": "not_authed"})
		return
	}
	if v := s.checkLimits(c); v != "" {
		writeJSON(w, obj{"ok": false, "error": "invalid_blocks", "response_metadata": obj{"messages": []string{v}}})
		return
	}
	s.writeScopes(w)
	switch method {
	case "auth.test":
		if authError != "" {
			writeJSON(w, obj{"ok": false, "error": authError})
			return
		}
		writeJSON(w, obj{"ok": true, "url": "https://clarify-test.slack.com/", "team": TeamName, "user": "clarify",
			"team_id": TeamID, "user_id": BotUserID, "bot_id": BotID})
	case "apps.connections.open":
		writeJSON(w, obj{"ok": true, "url": "ws" + strings.TrimPrefix(s.srv.URL, "http") + "/ws"})
	case "chat.postMessage":
		ts := c.TS
		writeJSON(w, obj{"ok": true, "channel": c.Get("channel"), "ts": ts,
			"message": obj{"type": "message", "user": BotUserID, "bot_id": BotID, "text": c.Get("text"), "ts": ts, "thread_ts": c.Get("thread_ts")}})
	case "chat.postEphemeral":
		writeJSON(w, obj{"ok": true, "message_ts": s.nextTS()})
	case "chat.update":
		writeJSON(w, obj{"ok": true, "channel": c.Get("channel"), "ts": c.Get("ts"), "text": c.Get("text")})
	case "chat.delete":
		writeJSON(w, obj{"ok": true, "channel": c.Get("channel"), "ts": c.Get("ts")})
	case "views.open", "views.publish", "views.update", "views.push":
		view := c.View()
		writeJSON(w, obj{"ok": true, "view": obj{"id": "V" + strconv.Itoa(c.Seq), "team_id": TeamID, "type": view["type"],
			"blocks": view["blocks"], "private_metadata": view["private_metadata"], "callback_id": view["callback_id"]}})
	case "users.info":
		u := c.Get("user")
		s.mu.Lock()
		admin := s.admins[u]
		s.mu.Unlock()
		writeJSON(w, obj{"ok": true, "user": obj{"id": u, "team_id": TeamID, "name": strings.ToLower(u), "is_admin": admin, "is_owner": false, "is_bot": false}})
	case "files.getUploadURLExternal":
		s.mu.Lock()
		s.files++
		id := fmt.Sprintf("F%06d", s.files)
		s.mu.Unlock()
		writeJSON(w, obj{"ok": true, "upload_url": s.srv.URL + "/upload/" + id, "file_id": id})
	case "files.completeUploadExternal":
		var files []obj
		_ = json.Unmarshal([]byte(c.Get("files")), &files)
		writeJSON(w, obj{"ok": true, "files": files})
	default:
		writeJSON(w, obj{"ok": false, "error": "unknown_method"})
	}
}

// authorized checks the token the way the real API would: bot token in
// the form or a Bearer header; the app-level token for Socket Mode.
func (s *Server) authorized(c Call, method string) bool {
	tok := c.Form.Get("token")
	if h := c.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
		tok = strings.TrimPrefix(h, "Bearer ")
	}
	if method == "apps.connections.open" {
		return tok == AppToken
	}
	return tok == BotToken
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/upload/")
	var content []byte
	if mr, err := r.MultipartReader(); err == nil {
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			if p.FormName() == "file" {
				content, _ = io.ReadAll(p)
			}
			_ = p.Close()
		}
	}
	s.record(Call{Method: "file_upload", Form: url.Values{"file_id": {id}}, Raw: content, Header: r.Header.Clone()})
	s.mu.Lock()
	s.uploads[id] = content
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "OK - %d", len(content))
}

func (s *Server) response(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c := Call{Method: "response_url", Raw: body, Header: r.Header.Clone(), Form: url.Values{"hook": {strings.TrimPrefix(r.URL.Path, "/response/")}}}
	_ = json.Unmarshal(body, &c.JSON)
	c = s.record(c)
	if v := s.checkLimits(c); v != "" {
		writeJSON(w, obj{"ok": false, "error": "invalid_blocks"})
		return
	}
	writeJSON(w, obj{"ok": true})
}

// Sign returns the headers Slack sends with an HTTP-mode request.
func Sign(secret string, at time.Time, body []byte) http.Header {
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:", ts)
	mac.Write(body)
	h := http.Header{}
	h.Set("X-Slack-Request-Timestamp", ts)
	h.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return h
}

// Post sends a signed request to an HTTP-mode endpoint and returns the
// status and body.
func Post(tb testing.TB, endpoint, secret string, at time.Time, contentType string, body []byte, extra http.Header) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(string(body)))
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range Sign(secret, at, body) {
		req.Header[k] = v
	}
	for k, v := range extra {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// FormBody is an interaction's form body: payload=<json>.
func FormBody(payload []byte) []byte {
	return []byte(url.Values{"payload": {string(payload)}}.Encode())
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// DropCalls forgets the calls and uploads received so far, so that a long
// load run measures the bot's memory rather than the fake's records.
func (s *Server) DropCalls() {
	s.mu.Lock()
	s.dropped += len(s.calls)
	s.calls = nil
	s.uploads = map[string][]byte{}
	s.mu.Unlock()
}
