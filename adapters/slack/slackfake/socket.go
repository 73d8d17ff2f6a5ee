package slackfake

import (
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Socket is one Socket Mode connection from the app under test. The fake
// sends {"type":"hello"} when it connects, then the envelopes a test sends,
// and collects the app's acknowledgements ({"envelope_id", "payload"}).
// It sends no pings: give the app a long ping interval.
type Socket struct {
	conn    *websocket.Conn
	wmu     sync.Mutex
	mu      sync.Mutex
	acks    map[string]json.RawMessage
	changed chan struct{}
	closed  chan struct{}
}

func (s *Server) websocket(w http.ResponseWriter, r *http.Request) {
	conn, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	sock := &Socket{conn: conn, acks: map[string]json.RawMessage{}, changed: make(chan struct{}), closed: make(chan struct{})}
	s.tb.Cleanup(func() { conn.Close() })
	if err := sock.write(map[string]any{"type": "hello", "num_connections": 1,
		"connection_info": map[string]any{"app_id": "A0CLARIFY"}, "debug_info": map[string]any{"host": "slackfake"}}); err != nil {
		conn.Close()
		return
	}
	go sock.read()
	select {
	case s.sockets <- sock:
	default:
	}
}

// Socket waits for the app to connect.
func (s *Server) Socket(tb testing.TB) *Socket {
	tb.Helper()
	select {
	case sock := <-s.sockets:
		return sock
	case <-time.After(WaitTimeout):
		tb.Fatal("slackfake: the app did not open a Socket Mode connection")
		return nil
	}
}

func (k *Socket) write(v any) error {
	k.wmu.Lock()
	defer k.wmu.Unlock()
	return k.conn.WriteJSON(v)
}

func (k *Socket) read() {
	defer close(k.closed)
	for {
		_, msg, err := k.conn.ReadMessage()
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(msg, &ack) != nil || ack.EnvelopeID == "" {
			continue
		}
		k.mu.Lock()
		if ack.Payload == nil {
			ack.Payload = json.RawMessage("null")
		}
		k.acks[ack.EnvelopeID] = ack.Payload
		close(k.changed)
		k.changed = make(chan struct{})
		k.mu.Unlock()
	}
}

// Send sends an envelope: kind is "events_api", "interactive" or
// "slash_commands"; payload is the raw payload JSON.
func (k *Socket) Send(tb testing.TB, envelopeID, kind string, payload []byte, retryAttempt int) {
	tb.Helper()
	env := map[string]any{
		"envelope_id":              envelopeID,
		"type":                     kind,
		"payload":                  json.RawMessage(payload),
		"accepts_response_payload": kind != "events_api",
	}
	if retryAttempt > 0 {
		env["retry_attempt"], env["retry_reason"] = retryAttempt, "timeout"
	}
	if err := k.write(env); err != nil {
		tb.Fatalf("slackfake: send envelope: %v", err)
	}
}

// WaitAck waits for the acknowledgement of an envelope and returns its payload.
func (k *Socket) WaitAck(tb testing.TB, envelopeID string) json.RawMessage {
	tb.Helper()
	deadline := time.NewTimer(WaitTimeout)
	defer deadline.Stop()
	for {
		k.mu.Lock()
		p, ok := k.acks[envelopeID]
		ch := k.changed
		k.mu.Unlock()
		if ok {
			return p
		}
		select {
		case <-ch:
		case <-k.closed:
			tb.Fatalf("slackfake: the connection closed before envelope %s was acknowledged", envelopeID)
		case <-deadline.C:
			tb.Fatalf("slackfake: envelope %s was not acknowledged", envelopeID)
		}
	}
}

// Acked reports whether an envelope was acknowledged.
func (k *Socket) Acked(envelopeID string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.acks[envelopeID]
	return ok
}

// Close closes the connection from Slack's side.
func (k *Socket) Close() { k.conn.Close() }
