// Package llmengine is the dialog.Engine that asks a language model for SQL.
//
// For each question it links the question to the schema with the catalog
// (only the linked tables and columns, with comments, profiles, joins and
// matched stored values go into the prompt, DAIL-SQL style), asks for
// several samples (optionally letting the model call search_columns,
// search_values, join_path and execute_sql first), treats every sample as
// untrusted (prose around SQL, several statements, writes, invented
// columns, absurd length), repairs failing ones with the error and the
// schema at most twice, and turns them into candidates whose priors are the
// samples' shares. When the samples agree it runs a summarize-review-ask
// step; when a query finds nothing it checks the values it compared with.
// Free-text feedback revises the previous readings (after FISQL). The
// manager executes, groups and asks as for any engine.
package llmengine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// Model is the chat model (a *llm.Client).
type Model interface {
	Chat(ctx context.Context, req llm.Request) (*llm.Response, error)
}

// Executor runs guarded read-only statements (a *warehouse.DB).
type Executor interface {
	Query(ctx context.Context, statement string, lim sqlresult.Limits) (*sqlresult.Result, error)
}

// Usage enforces daily budgets and records what each question cost (a *llmusage.Store).
type Usage interface {
	Allow(ctx context.Context, user, workspace string) error
	Record(ctx context.Context, r llmusage.Record) error
}

// Counter counts tokens (a *llm.Tokenizer).
type Counter interface {
	Count(s string) int
}

var (
	_ Model         = (*llm.Client)(nil)
	_ Executor      = (*warehouse.DB)(nil)
	_ Usage         = (*llmusage.Store)(nil)
	_ Counter       = (*llm.Tokenizer)(nil)
	_ dialog.Engine = (*Engine)(nil)
)

// Options configure an Engine.
type Options struct {
	Model Model
	// ModelName names the model in usage records.
	ModelName string
	Catalog   *catalog.Catalog
	// Exec, when set, lets the engine run its candidates to repair the ones
	// the warehouse rejects and to check the values of empty results, and
	// offers execute_sql as a tool. Without it, repairs rely on the guard
	// and the schema check.
	Exec Executor
	// Usage, when set, enforces budgets and records usage.
	Usage Usage
	// Tokens, when set, keeps the linked schema within PromptTokens.
	Tokens Counter
	// Samples per question (default 5) at Temperature (default 0.7).
	Samples     int
	Temperature float64
	// Tools lets the model call the schema tools for up to MaxToolSteps rounds (default 4).
	Tools        bool
	MaxToolSteps int
	// MaxRepairs bounds the repair rounds of a failing query (default 2).
	MaxRepairs int
	// PromptTokens bounds the linked schema's tokens (default 1400).
	PromptTokens int
	// MaxTables bounds the tables linked to a question before joins (default 6).
	MaxTables int
	// ExecLimits bound the engine's own executions (default 200 rows, 10s).
	ExecLimits sqlresult.Limits
	// MaxSQLBytes refuses longer statements (default 8000); MaxOutputBytes
	// refuses longer replies (default 20000).
	MaxSQLBytes, MaxOutputBytes int
	Logger                      *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Samples <= 0 {
		o.Samples = 5
	}
	if o.Temperature <= 0 {
		o.Temperature = 0.7
	}
	if o.MaxToolSteps <= 0 {
		o.MaxToolSteps = 4
	}
	if o.MaxRepairs <= 0 {
		o.MaxRepairs = 2
	}
	if o.PromptTokens <= 0 {
		o.PromptTokens = 1400
	}
	if o.MaxTables <= 0 {
		o.MaxTables = 6
	}
	if o.ExecLimits.MaxRows <= 0 {
		o.ExecLimits.MaxRows = 200
	}
	if o.ExecLimits.Timeout <= 0 {
		o.ExecLimits.Timeout = 10 * time.Second
	}
	if o.MaxSQLBytes <= 0 {
		o.MaxSQLBytes = 8000
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = 20000
	}
	if o.ModelName == "" {
		o.ModelName = "model"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Engine is the model-backed engine for one warehouse. It is safe for
// concurrent use.
type Engine struct {
	opts     Options
	cat      *catalog.Catalog
	labels   *dialog.Labels
	canon    func(string) string
	profiles map[string]*warehouse.Profile
	columns  map[string]map[string]bool // table → columns, lower-case
	adj      map[string]map[string]bool // table → tables it joins directly
	lim      linkLimits
	log      *slog.Logger
	mem      *memory
	// caps remembers what the server turned out not to support.
	caps *capabilities
}

type capabilities struct {
	noTools, noJSON atomic.Bool
}

// New builds an engine over a catalog.
func New(opts Options) (*Engine, error) {
	opts = opts.withDefaults()
	switch {
	case opts.Model == nil:
		return nil, errors.New("llmengine: no model")
	case opts.Catalog == nil:
		return nil, errors.New("llmengine: no catalog")
	}
	snap := opts.Catalog.Snapshot()
	e := &Engine{
		opts: opts, cat: opts.Catalog, labels: dialog.NewLabels(snap), log: opts.Logger,
		profiles: map[string]*warehouse.Profile{}, columns: map[string]map[string]bool{}, adj: map[string]map[string]bool{},
		mem: newMemory(2048), caps: &capabilities{},
	}
	for i := range snap.Profiles {
		p := &snap.Profiles[i]
		k := strings.ToLower(p.Table + "." + p.Column)
		if _, dup := e.profiles[k]; !dup {
			e.profiles[k] = p
		}
	}
	for _, t := range snap.Schema.Tables {
		cols := map[string]bool{}
		for _, c := range t.Columns {
			cols[strings.ToLower(c.Name)] = true
		}
		e.columns[strings.ToLower(t.Name)] = cols
	}
	for _, j := range snap.Schema.Joins {
		a, b := strings.ToLower(j.FromTable), strings.ToLower(j.ToTable)
		for _, p := range [][2]string{{a, b}, {b, a}} {
			if e.adj[p[0]] == nil {
				e.adj[p[0]] = map[string]bool{}
			}
			e.adj[p[0]][p[1]] = true
		}
	}
	alias := map[string]string{}
	for _, a := range snap.Aliases {
		alias[strings.ToLower(a.Code)] = strings.ToLower(a.Name)
	}
	e.canon = func(v string) string {
		if n, ok := alias[v]; ok {
			return n
		}
		return v
	}
	e.lim = linkLimits{maxTables: opts.MaxTables, wideTable: 16, promptTokens: opts.PromptTokens, columnsPerWord: 30, columnsQuestion: 30}
	if opts.Tokens != nil {
		e.lim.count = opts.Tokens.Count
	}
	return e, nil
}

func (e *Engine) profile(table, column string) *warehouse.Profile {
	return e.profiles[strings.ToLower(table+"."+column)]
}

// Name is "llm".
func (e *Engine) Name() string { return "llm" }

// Error is what Candidates returns on failure: Error() is the plain
// sentence the manager shows people (it appears in its fallback note);
// Unwrap gives the cause, which the engine has already logged.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

func (e *Engine) fail(err error, req dialog.Request) error {
	if err == nil {
		return nil
	}
	var ue *Error
	if errors.As(err, &ue) {
		return err
	}
	e.log.Warn("llm engine failed", "question", req.Question, "kind", llm.KindOf(err), "err", err)
	return &Error{Msg: llm.UserMessage(err), Err: err}
}

// Candidates proposes readings of the question as SQL.
func (e *Engine) Candidates(ctx context.Context, req dialog.Request) (prop *dialog.Proposal, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if e.opts.Usage != nil {
		if err := e.opts.Usage.Allow(ctx, req.Who.Identity().UserKey(), req.Who.Identity().WorkspaceKey()); err != nil {
			return nil, e.fail(err, req)
		}
	}
	r := &run{e: e, req: req, model: &meter{m: e.opts.Model}, key: memKey(req), notes: map[string]bool{}}
	defer func() { r.record(ctx, err) }()
	prop, err = r.propose(ctx)
	if err != nil {
		return nil, e.fail(err, req)
	}
	// The dialog's audit record of the question counts what it cost.
	u := r.model.usage()
	prop.PromptTokens, prop.CompletionTokens = u.PromptTokens, u.CompletionTokens
	return prop, nil
}

// meter sums the usage of the calls of one question.
type meter struct {
	m  Model
	mu sync.Mutex
	u  llm.Usage
}

func (m *meter) Chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	resp, err := m.m.Chat(ctx, req)
	if resp != nil {
		m.mu.Lock()
		m.u = m.u.Add(resp.Usage)
		m.mu.Unlock()
	}
	return resp, err
}

func (m *meter) usage() llm.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.u
}

// run is one call of Candidates.
type run struct {
	e     *Engine
	req   dialog.Request
	model *meter
	key   string
	link  *linked
	// text is the question and its feedback, for linking and phrases.
	text  string
	notes map[string]bool
	order []string
	// results of the engine's own executions, by SQL.
	results map[string]*sqlresult.Result
}

func (r *run) note(s string) {
	if !r.notes[s] {
		r.notes[s] = true
		r.order = append(r.order, s)
	}
}

// record stores the question's usage even when the person went away: the
// tokens were spent.
func (r *run) record(ctx context.Context, err error) {
	u := r.model.usage()
	if r.e.opts.Usage == nil || u.Calls == 0 {
		return
	}
	outcome := "ok"
	if err != nil {
		outcome = llm.KindOf(err).String()
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	rec := llmusage.Record{
		User: r.req.Who.Identity().UserKey(), Workspace: r.req.Who.Identity().WorkspaceKey(), Warehouse: r.req.Warehouse,
		Question: r.req.Question, Model: r.e.opts.ModelName,
		PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Calls: u.Calls, Estimated: u.Estimated,
		Outcome: outcome,
	}
	if err := r.e.opts.Usage.Record(rctx, rec); err != nil {
		r.e.log.Warn("cannot record model usage", "user", rec.User, "err", err)
	}
}

// propose is the whole generation of one round.
func (r *run) propose(ctx context.Context) (*dialog.Proposal, error) {
	e := r.e
	var fb []string
	for _, f := range r.req.Feedback {
		fb = append(fb, f.Text)
	}
	r.text = strings.TrimSpace(r.req.Question + " " + strings.Join(fb, " "))
	r.link = e.link(r.text, r.req.Facts)
	mem := e.mem.get(r.key)

	var set *sampleSet
	var err error
	// fresh: the candidates are independent samples of the question, so
	// their votes are what the manager calibrates (revisions are not).
	fresh := true
	if mem != nil && len(mem.readings) > 0 && mem.applied < len(r.req.Feedback) {
		set, err = r.revise(ctx, mem.readings, r.req.Feedback[mem.applied:])
		fresh = false
	} else {
		set, err = r.generate(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := r.check(ctx, set); err != nil {
		return nil, err
	}
	valid := set.valid()
	if len(valid) == 0 {
		// Nothing usable even after repairs: one fresh try, then give up.
		again, err := r.generate(ctx)
		if err != nil {
			return nil, err
		}
		if err := r.check(ctx, again); err != nil {
			return nil, err
		}
		set, valid = again, again.valid()
		fresh = true
	}
	if len(valid) == 0 {
		return nil, &Error{Msg: llm.UserMessage(llm.ErrBadOutput), Err: fmt.Errorf("%w: %s", llm.ErrBadOutput, set.why())}
	}
	prop := &dialog.Proposal{Prompt: r.link.shown()}
	cands := r.candidates(valid, fresh)
	var ask *dialog.EngineQuestion
	if e.opts.Exec != nil {
		cands, ask = r.checkValues(ctx, cands)
	}
	if ask == nil && r.agree(cands) && r.req.Widen == 0 && (mem == nil || !mem.settled) && (mem == nil || mem.sraRounds < 2) {
		var more []dialog.Candidate
		var settled bool
		more, ask, settled = r.review(ctx, cands, mem)
		if len(more) > 0 {
			// The review's readings weigh what the model says, not votes.
			fresh = false
		}
		cands = append(cands, more...)
		if settled {
			e.mem.update(r.key, func(m *convMemory) { m.settled = true })
		}
	}
	prop.Candidates = normalise(cands)
	for i := range prop.Candidates {
		prop.Candidates[i].Unused, prop.Candidates[i].Unlinked = r.account(prop.Candidates[i].SQL)
	}
	if fresh {
		prop.Samples = len(set.samples)
	} else {
		for i := range prop.Candidates {
			prop.Candidates[i].Votes = 0
		}
	}
	prop.Ask = ask
	prop.Notes = r.order
	e.mem.update(r.key, func(m *convMemory) {
		m.readings = m.readings[:0]
		for i, c := range prop.Candidates {
			if i == 3 {
				break
			}
			m.readings = append(m.readings, reading{sql: c.SQL, prior: c.Prior})
		}
		m.applied = len(r.req.Feedback)
		if ask != nil {
			m.asked = append(m.asked, askedQ{prompt: ask.Prompt, phrase: ask.Phrase})
			m.sraRounds++
		}
	})
	e.log.Debug("llm candidates", "question", r.req.Question, "candidates", len(prop.Candidates), "ask", ask != nil, "usage", r.model.usage())
	return prop, nil
}

// candidates turns valid samples into candidates, one per distinct
// statement, with the samples' shares as priors and, for fresh samples,
// their count as votes.
func (r *run) candidates(valid []*sample, fresh bool) []dialog.Candidate {
	weight := map[string]float64{}
	var order []string
	for _, s := range valid {
		if _, ok := weight[s.key]; !ok {
			order = append(order, s.key)
		}
		weight[s.key] += s.weight
	}
	bySQL := map[string]string{}
	for _, s := range valid {
		if _, ok := bySQL[s.key]; !ok {
			bySQL[s.key] = s.sql
		}
	}
	var out []dialog.Candidate
	for _, k := range order {
		c := dialog.Candidate{SQL: bySQL[k], Prior: weight[k], Phrases: r.e.phrases(bySQL[k], r.link, r.text)}
		if fresh {
			c.Votes = weight[k]
		}
		out = append(out, c)
	}
	return out
}

// agree reports whether the candidates are one reading: one statement, or
// (when the engine ran them) equal results.
func (r *run) agree(cands []dialog.Candidate) bool {
	if len(cands) == 1 {
		return true
	}
	if r.results == nil {
		return false
	}
	first := ""
	for i, c := range cands {
		res, ok := r.results[c.SQL]
		if !ok {
			return false
		}
		k := resultKey(res)
		if i == 0 {
			first = k
		} else if k != first {
			return false
		}
	}
	return true
}

// normalise merges equal statements (summing their priors and phrases)
// and scales the priors to sum to 1, most likely first.
func normalise(cands []dialog.Candidate) []dialog.Candidate {
	byKey := map[string]int{}
	var out []dialog.Candidate
	var total float64
	for _, c := range cands {
		k := sqlKey(c.SQL)
		if i, ok := byKey[k]; ok {
			out[i].Prior += c.Prior
			out[i].Votes += c.Votes
			for pk, pv := range c.Phrases {
				if _, ok := out[i].Phrases[pk]; !ok {
					out[i].Phrases[pk] = pv
				}
			}
			total += c.Prior
			continue
		}
		if c.Phrases == nil {
			c.Phrases = map[sqlshape.SlotKey]string{}
		}
		byKey[k] = len(out)
		out = append(out, c)
		total += c.Prior
	}
	if total > 0 {
		for i := range out {
			out[i].Prior /= total
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Prior > out[j].Prior })
	return out
}
