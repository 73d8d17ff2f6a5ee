// Package llm is Clarify's adapter to chat-completion models: the OpenAI
// API, Azure OpenAI and OpenAI-compatible servers (Ollama, vLLM, llama.cpp
// server, LM Studio) through github.com/sashabaranov/go-openai. It offers
// neutral request and response types so that callers never import the SDK,
// retries rate limits and server errors, maps failures to a few error kinds
// with user-facing wording (UserMessage), counts tokens with a real
// tokenizer (Tokenizer) and keeps per-user and per-workspace usage and
// budgets in a small bbolt file (UsageStore).
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Roles of chat messages.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Message is one chat message.
type Message struct {
	Role    string
	Content string
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string
}

// ToolCall is a function call the model asks for; Arguments is JSON text
// written by the model (untrusted).
type ToolCall struct {
	ID, Name, Arguments string
}

// Tool is a function the model may call; Parameters is a JSON Schema object.
type Tool struct {
	Name, Description string
	Parameters        json.RawMessage
}

// Tool choices.
const (
	ToolChoiceAuto = "auto"
	ToolChoiceNone = "none"
)

// Request is one chat completion.
type Request struct {
	Messages []Message
	Tools    []Tool
	// ToolChoice is "", ToolChoiceAuto or ToolChoiceNone.
	ToolChoice string
	// N is the number of samples wanted (0 means 1). Servers that ignore n
	// get separate requests.
	N int
	// Temperature 0 means the server's default.
	Temperature float64
	// MaxTokens bounds each sample's completion (0: no bound).
	MaxTokens int
	// JSON asks for a JSON object (response_format json_object).
	JSON bool
}

// Choice is one sample.
type Choice struct {
	Message      Message
	FinishReason string
}

// Usage counts the tokens of one or more calls.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	Calls            int
	// Estimated is set when the server reported no usage and the tokens
	// were counted locally.
	Estimated bool
}

// Add sums two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens: u.PromptTokens + v.PromptTokens, CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		Calls: u.Calls + v.Calls, Estimated: u.Estimated || v.Estimated,
	}
}

// Total is prompt plus completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Response is the outcome of a Request.
type Response struct {
	Choices []Choice
	Usage   Usage
	Model   string
}

// Config says which server and model to use.
type Config struct {
	// APIKey may be empty for local servers.
	APIKey string
	// BaseURL ends in /v1 for OpenAI-compatible servers
	// ("http://localhost:11434/v1"); empty means api.openai.com. For Azure
	// it is the resource endpoint ("https://NAME.openai.azure.com").
	BaseURL string
	// Model is the model name; on Azure, the deployment name.
	Model string
	Azure bool
	// APIVersion is Azure's api-version (default go-openai's).
	APIVersion string
	// NoN: the server ignores n, send one request per sample. Servers that
	// turn out to ignore n are detected and treated so anyway.
	NoN bool
	// Timeout bounds one Chat call, retries included (default 60s).
	Timeout time.Duration
	// MaxRetries bounds the retries of one HTTP request after a 429, a 5xx
	// or a network error (default 3; negative: none).
	MaxRetries int
	// MaxRetryAfter is the longest Retry-After honoured; a longer one
	// fails at once with ErrRateLimited (default 20s).
	MaxRetryAfter time.Duration
	// Backoff is the first wait after a 5xx, doubled each time up to
	// MaxBackoff, with jitter (defaults 500ms and 8s).
	Backoff, MaxBackoff time.Duration
	// Parallel bounds the separate requests in flight for one call (default 4).
	Parallel int
	// HTTPClient is the transport (default a new http.Client).
	HTTPClient *http.Client
	// Tokens estimates usage when a server reports none (optional).
	Tokens *Tokenizer
	Logger *slog.Logger
	// Hooks hear usage and retries, for metrics (optional).
	Hooks Hooks
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 3
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 20 * time.Second
	}
	if c.Backoff <= 0 {
		c.Backoff = 500 * time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 8 * time.Second
	}
	if c.Parallel <= 0 {
		c.Parallel = 4
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Client calls one model. It is safe for concurrent use.
type Client struct {
	cfg Config
	api *openai.Client
	rt  *retrier
	log *slog.Logger
	// noN is set once the server has answered n>1 with a single choice.
	noN atomic.Bool
	// fixedSampling is set once the model refused temperature, n or
	// max_tokens (reasoning models): such requests are sent without them.
	fixedSampling atomic.Bool
}

// New builds a client; it does not contact the server.
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: no model configured")
	}
	var oc openai.ClientConfig
	switch {
	case cfg.Azure:
		if cfg.BaseURL == "" {
			return nil, errors.New("llm: azure needs the resource endpoint as base_url (https://NAME.openai.azure.com)")
		}
		oc = openai.DefaultAzureConfig(cfg.APIKey, cfg.BaseURL)
		if cfg.APIVersion != "" {
			oc.APIVersion = cfg.APIVersion
		}
		// The model is the deployment name, used as written.
		oc.AzureModelMapperFunc = func(model string) string { return model }
	default:
		oc = openai.DefaultConfig(cfg.APIKey)
		if cfg.BaseURL != "" {
			oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
		}
	}
	c := &Client{cfg: cfg, log: cfg.Logger}
	c.rt = &retrier{client: cfg.HTTPClient, cfg: cfg, log: cfg.Logger, sleep: sleepCtx}
	oc.HTTPClient = c.rt
	c.api = openai.NewClientWithConfig(oc)
	return c, nil
}

// Model is the configured model name.
func (c *Client) Model() string { return c.cfg.Model }

// Chat runs one completion with req.N samples. Errors are *Error values
// matching the package's sentinels (ErrAuth, ErrQuota, ErrRateLimited,
// ErrUnavailable, ErrTimeout, ErrCanceled, ErrBadRequest, ErrNotFound).
// Cancelling ctx cancels the HTTP request.
func (c *Client) Chat(ctx context.Context, req Request) (*Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	n := max(req.N, 1)
	if n > 1 && (c.cfg.NoN || c.noN.Load() || c.fixedSampling.Load()) {
		return c.separate(ctx, req, n, nil)
	}
	resp, err := c.once(ctx, req, n)
	if err != nil {
		return nil, err
	}
	if n > 1 && len(resp.Choices) == 1 {
		// The server ignored n: remember it and ask for the rest one by one.
		if !c.noN.Swap(true) {
			c.log.Info("the model server ignores n; sending one request per sample", "model", c.cfg.Model, "asked", n, "got", len(resp.Choices))
		}
		return c.separate(ctx, req, n-1, resp)
	}
	return resp, nil
}

// separate sends k requests with n=1, at most Parallel at a time, and adds
// their choices to into. Some failing is fine as long as one sample came back.
func (c *Client) separate(ctx context.Context, req Request, k int, into *Response) (*Response, error) {
	if into == nil {
		into = &Response{Model: c.cfg.Model}
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	sem := make(chan struct{}, c.cfg.Parallel)
	for range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				mu.Lock()
				errs = append(errs, classify(ctx, ctx.Err()))
				mu.Unlock()
				return
			}
			defer func() { <-sem }()
			r, err := c.once(ctx, req, 1)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			into.Choices = append(into.Choices, r.Choices...)
			into.Usage = into.Usage.Add(r.Usage)
		}()
	}
	wg.Wait()
	if len(into.Choices) == 0 && len(errs) > 0 {
		return nil, worst(errs)
	}
	if len(errs) > 0 {
		c.log.Warn("some samples failed", "model", c.cfg.Model, "failed", len(errs), "got", len(into.Choices), "err", errs[0])
	}
	return into, nil
}

// once sends one HTTP request (with the retrier's retries).
func (c *Client) once(ctx context.Context, req Request, n int) (*Response, error) {
	oreq := c.toOpenAI(req, n)
	resp, err := c.api.CreateChatCompletion(ctx, oreq)
	if err != nil && isSamplingRefusal(err) && !c.fixedSampling.Load() {
		// A reasoning model: temperature, n and max_tokens are fixed.
		c.fixedSampling.Store(true)
		c.log.Info("the model takes no temperature, n or max_tokens; sending requests without them", "model", c.cfg.Model, "err", err)
		if n > 1 {
			return c.separate(ctx, req, n, nil)
		}
		resp, err = c.api.CreateChatCompletion(ctx, c.toOpenAI(req, 1))
	}
	if err != nil {
		return nil, classify(ctx, err)
	}
	out := &Response{Model: resp.Model}
	for _, ch := range resp.Choices {
		out.Choices = append(out.Choices, Choice{Message: fromOpenAI(ch.Message), FinishReason: string(ch.FinishReason)})
	}
	out.Usage = Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens, Calls: 1}
	if resp.Usage.TotalTokens == 0 && resp.Usage.PromptTokens == 0 && c.cfg.Tokens != nil {
		out.Usage.PromptTokens = c.cfg.Tokens.CountMessages(req.Messages)
		for _, ch := range out.Choices {
			out.Usage.CompletionTokens += c.cfg.Tokens.Count(ch.Message.Content)
			for _, tc := range ch.Message.ToolCalls {
				out.Usage.CompletionTokens += c.cfg.Tokens.Count(tc.Name + tc.Arguments)
			}
		}
		out.Usage.Estimated = true
	}
	c.cfg.Hooks.usage(c.cfg.Model, out.Usage)
	return out, nil
}

func (c *Client) toOpenAI(req Request, n int) openai.ChatCompletionRequest {
	o := openai.ChatCompletionRequest{Model: c.cfg.Model}
	fixed := c.fixedSampling.Load()
	if !fixed {
		o.Temperature = float32(req.Temperature)
		o.MaxTokens = req.MaxTokens
		if n > 1 {
			o.N = n
		}
	} else if req.MaxTokens > 0 {
		o.MaxCompletionTokens = req.MaxTokens * 4 // room for reasoning tokens
	}
	if req.JSON {
		o.ResponseFormat = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}
	for _, m := range req.Messages {
		om := openai.ChatCompletionMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
		o.Messages = append(o.Messages, om)
	}
	for _, t := range req.Tools {
		o.Tools = append(o.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	if req.ToolChoice != "" && len(req.Tools) > 0 {
		o.ToolChoice = req.ToolChoice
	}
	return o
}

func fromOpenAI(m openai.ChatCompletionMessage) Message {
	out := Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
	if out.Content == "" && len(m.MultiContent) > 0 {
		var b strings.Builder
		for _, p := range m.MultiContent {
			b.WriteString(p.Text)
		}
		out.Content = b.String()
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out
}

// isSamplingRefusal recognises go-openai's local refusal of sampling
// parameters for reasoning models.
func isSamplingRefusal(err error) bool {
	return errors.Is(err, openai.ErrReasoningModelLimitationsOther) ||
		errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) ||
		errors.Is(err, openai.ErrReasoningSamplingUnsupported)
}

// String describes the client for logs (never the key).
func (c *Client) String() string {
	where := "api.openai.com"
	if u, err := url.Parse(c.cfg.BaseURL); err == nil && c.cfg.BaseURL != "" {
		u.User = nil // never log credentials put in the URL
		where = u.String()
	}
	kind := "openai"
	if c.cfg.Azure {
		kind = "azure"
	}
	return fmt.Sprintf("%s model %s at %s", kind, c.cfg.Model, where)
}
