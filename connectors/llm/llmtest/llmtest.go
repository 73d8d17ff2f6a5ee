// Package llmtest is a fake OpenAI chat-completions server for tests: an
// httptest server that speaks the real wire format (messages, tools, tool
// calls, n, response_format, usage, errors with Retry-After), checks every
// request it gets and answers from a script.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Call is one request the server received.
type Call struct {
	Path   string
	Query  string
	Header http.Header
	Req    openai.ChatCompletionRequest
	Raw    []byte
}

// System is the text of the call's system messages.
func (c Call) System() string { return c.text(openai.ChatMessageRoleSystem) }

// User is the text of the call's user messages.
func (c Call) User() string { return c.text(openai.ChatMessageRoleUser) }

func (c Call) text(role string) string {
	var parts []string
	for _, m := range c.Req.Messages {
		if m.Role == role {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Summary describes the call briefly, for failure messages.
func (c Call) Summary() string {
	clip := func(s string, n int) string {
		if len(s) > n {
			return s[:n] + "…"
		}
		return s
	}
	last := ""
	if n := len(c.Req.Messages); n > 0 {
		m := c.Req.Messages[n-1]
		last = m.Role + ": " + m.Content
		if len(last) > 300 {
			last = m.Role + ": …" + last[len(last)-300:]
		}
	}
	return fmt.Sprintf("n=%d tools=%v system=%q last=%q", c.N(), c.ToolNames(), clip(c.System(), 80), last)
}

// N is the number of samples asked for (1 when n is absent).
func (c Call) N() int { return max(c.Req.N, 1) }

// ToolNames lists the tools offered.
func (c Call) ToolNames() []string {
	var out []string
	for _, t := range c.Req.Tools {
		if t.Function != nil {
			out = append(out, t.Function.Name)
		}
	}
	return out
}

// Reply is what the server answers to one call.
type Reply struct {
	// Status defaults to 200.
	Status int
	Header map[string]string
	// Choices are the samples of a 200 reply.
	Choices []openai.ChatCompletionChoice
	// Body replaces the whole body when set (malformed replies, errors).
	Body string
	// Usage overrides the computed usage; NoUsage sends zeros.
	Usage   *openai.Usage
	NoUsage bool
	// Block holds the request until the client goes away.
	Block bool
}

// Step checks a call and decides the reply. Use tb.Errorf for failed checks.
type Step func(tb testing.TB, c Call) Reply

// Server is the fake. Build it with New.
type Server struct {
	// URL is the base URL for openai.DefaultConfig: srv.URL + "/v1".
	URL string
	// Root is the server's root URL (Azure-style base URLs).
	Root string
	// Model, when set, must be the model of every request.
	Model string
	// Blocked receives a value when a Block reply starts waiting, and
	// Released when its client went away.
	Blocked, Released chan struct{}

	tb       testing.TB
	srv      *httptest.Server
	mu       sync.Mutex
	script   []Step
	fallback Step
	calls    []Call
	models   []string // nil: only Model
}

// New starts a server that is closed with the test.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := &Server{tb: tb, Blocked: make(chan struct{}, 16), Released: make(chan struct{}, 16)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.Root = s.srv.URL
	s.URL = s.srv.URL + "/v1"
	tb.Cleanup(s.srv.Close)
	tb.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.script) > 0 && !tb.Failed() {
			tb.Errorf("llmtest: %d scripted replies were never asked for", len(s.script))
		}
	})
	return s
}

// Client is an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Enqueue adds steps answering the next calls in order.
func (s *Server) Enqueue(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, steps...)
}

// Fallback answers calls once the script is used up (nil: such calls fail the test).
func (s *Server) Fallback(step Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = step
}

// Calls returns the calls received so far.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	tb := s.tb
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c := Call{Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Raw: raw}
	if s.serveModels(w, r) {
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		tb.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if err := json.Unmarshal(raw, &c.Req); err != nil {
		tb.Errorf("llmtest: request body is not a chat completion request: %v\n%s", err, raw)
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	s.check(c)
	s.mu.Lock()
	s.calls = append(s.calls, c)
	var step Step
	if len(s.script) > 0 {
		step, s.script = s.script[0], s.script[1:]
	} else {
		step = s.fallback
	}
	s.mu.Unlock()
	if step == nil {
		tb.Errorf("llmtest: unexpected call %d: %s", len(s.Calls()), c.Summary())
		http.Error(w, "no scripted reply", http.StatusInternalServerError)
		return
	}
	rep := step(tb, c)
	if rep.Block {
		s.Blocked <- struct{}{}
		select {
		case <-r.Context().Done():
			s.Released <- struct{}{}
		case <-time.After(30 * time.Second):
			tb.Errorf("llmtest: the client never went away")
		}
		return
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if rep.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, rep.Body)
		return
	}
	resp := openai.ChatCompletionResponse{ID: "chatcmpl-test", Object: "chat.completion", Created: 1, Model: c.Req.Model, Choices: append([]openai.ChatCompletionChoice(nil), rep.Choices...)}
	for i := range resp.Choices {
		resp.Choices[i].Index = i
		if resp.Choices[i].Message.Role == "" {
			resp.Choices[i].Message.Role = openai.ChatMessageRoleAssistant
		}
		if resp.Choices[i].FinishReason == "" {
			resp.Choices[i].FinishReason = openai.FinishReasonStop
			if len(resp.Choices[i].Message.ToolCalls) > 0 {
				resp.Choices[i].FinishReason = openai.FinishReasonToolCalls
			}
		}
	}
	switch {
	case rep.Usage != nil:
		resp.Usage = *rep.Usage
	case !rep.NoUsage:
		resp.Usage.PromptTokens = len(raw) / 4
		for _, ch := range resp.Choices {
			resp.Usage.CompletionTokens += len(ch.Message.Content)/4 + 1
		}
		resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(resp)
}

// check applies the checks every request must pass.
func (s *Server) check(c Call) {
	tb := s.tb
	if s.Model != "" && c.Req.Model != s.Model {
		tb.Errorf("llmtest: model %q, want %q", c.Req.Model, s.Model)
	}
	if len(c.Req.Messages) == 0 {
		tb.Errorf("llmtest: request without messages")
	}
	if c.Req.Stream {
		tb.Errorf("llmtest: streaming was not expected")
	}
	pending := map[string]bool{}
	for i, m := range c.Req.Messages {
		switch m.Role {
		case openai.ChatMessageRoleSystem, openai.ChatMessageRoleUser:
			if strings.TrimSpace(m.Content) == "" {
				tb.Errorf("llmtest: message %d (%s) is empty", i, m.Role)
			}
		case openai.ChatMessageRoleAssistant:
			for _, tc := range m.ToolCalls {
				pending[tc.ID] = true
			}
		case openai.ChatMessageRoleTool:
			if !pending[m.ToolCallID] {
				tb.Errorf("llmtest: tool message %d answers unknown call %q", i, m.ToolCallID)
			}
			delete(pending, m.ToolCallID)
		default:
			tb.Errorf("llmtest: message %d has role %q", i, m.Role)
		}
	}
	if len(pending) > 0 {
		tb.Errorf("llmtest: tool calls without answers: %v", pending)
	}
	for _, t := range c.Req.Tools {
		if t.Type != openai.ToolTypeFunction || t.Function == nil || t.Function.Name == "" {
			tb.Errorf("llmtest: malformed tool %+v", t)
			continue
		}
		b, _ := json.Marshal(t.Function.Parameters)
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(b, &schema); err != nil || schema.Type != "object" {
			tb.Errorf("llmtest: tool %s: parameters must be a JSON Schema object: %s", t.Function.Name, b)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				tb.Errorf("llmtest: tool %s requires undeclared %q", t.Function.Name, r)
			}
		}
	}
	if c.Req.ToolChoice != nil && len(c.Req.Tools) == 0 {
		tb.Errorf("llmtest: tool_choice without tools")
	}
}

// Text is a 200 reply with one choice per content.
func Text(contents ...string) Reply {
	r := Reply{}
	for _, c := range contents {
		r.Choices = append(r.Choices, openai.ChatCompletionChoice{Message: openai.ChatCompletionMessage{Content: c}})
	}
	return r
}

// SQL is a 200 reply with one {"sql": …} choice per statement.
func SQL(stmts ...string) Reply {
	var contents []string
	for _, s := range stmts {
		b, _ := json.Marshal(map[string]string{"sql": s})
		contents = append(contents, string(b))
	}
	return Text(contents...)
}

// JSON is a 200 reply whose single choice is v as JSON.
func JSON(v any) Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return Text(string(b))
}

// ToolCall is one call of a Tools reply.
type ToolCall struct {
	Name string
	Args any
}

// Tools is a 200 reply asking for tool calls.
func Tools(calls ...ToolCall) Reply {
	msg := openai.ChatCompletionMessage{}
	for i, c := range calls {
		b, err := json.Marshal(c.Args)
		if err != nil {
			panic(err)
		}
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: fmt.Sprintf("call_%d_%s", i, c.Name), Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: c.Name, Arguments: string(b)}})
	}
	return Reply{Choices: []openai.ChatCompletionChoice{{Message: msg}}}
}

// Error is an OpenAI-style error reply.
func Error(status int, code, message string, header map[string]string) Reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": code, "code": code, "param": nil}})
	return Reply{Status: status, Body: string(b), Header: header}
}

// Always answers every call with r after running check (which may be nil).
func Always(r Reply, check func(tb testing.TB, c Call)) Step {
	return func(tb testing.TB, c Call) Reply {
		if check != nil {
			check(tb, c)
		}
		return r
	}
}
