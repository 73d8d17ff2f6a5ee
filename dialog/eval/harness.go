package eval

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// Executor runs guarded read-only statements (a *warehouse.DB). The harness
// runs gold queries and candidate readings through it, on the same guarded
// path as the bot.
type Executor interface {
	Query(ctx context.Context, statement string, lim sqlresult.Limits) (*sqlresult.Result, error)
}

var _ Executor = (*warehouse.DB)(nil)

// Dialog is the conversation being scored: a *dialog.Manager.
type Dialog interface {
	Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)
	Trace(ctx context.Context, who dialog.Who, conversation string) (*dialog.Trace, error)
}

var _ Dialog = (*dialog.Manager)(nil)

// Options tune a Harness. Zero fields take the defaults.
type Options struct {
	// Limits bound each gold query and each reading the harness runs
	// (default: 10 s, 10,000 rows — the manager's answer cap).
	Limits sqlresult.Limits
	// CheckBudget bounds the time spent per question executing candidates
	// to tell "wrong pick" from "gold not among candidates" (default 2 min).
	CheckBudget time.Duration
	Logger      *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Limits.Timeout <= 0 {
		o.Limits.Timeout = 10 * time.Second
	}
	if o.Limits.MaxRows <= 0 {
		o.Limits.MaxRows = 10_000
	}
	if o.CheckBudget <= 0 {
		o.CheckBudget = 2 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Harness runs gold queries, plays the simulated user and scores runs over
// one warehouse. It caches which candidate SQL matches which question's gold,
// so runs of several strategies over the same questions execute each
// reading once. It is safe for concurrent use.
type Harness struct {
	exec    Executor
	resolve sqlshape.Resolver
	canon   func(string) string
	opts    Options
	// columns are the warehouse's "table.column" names (lower-case), and
	// tables its tables, for the linking gold-check.
	columns map[string]bool
	tables  map[string]bool
	// links are the tables that only join others (every column a key).
	links map[string]bool

	mu      sync.Mutex
	matches map[matchKey]matchOutcome
}

type matchKey struct{ question, sql string }

type matchOutcome struct {
	match bool
	err   error
}

// New builds a harness over the warehouse exec with the snapshot the bot
// uses (for resolving columns and canonicalising literals as it does).
func New(exec Executor, snap *warehouse.Snapshot, opts Options) *Harness {
	labels := dialog.NewLabels(snap)
	h := &Harness{
		exec:    exec,
		resolve: labels.TableOf,
		canon:   CanonValue(snap),
		opts:    opts.withDefaults(),
		matches: map[matchKey]matchOutcome{},
		columns: map[string]bool{},
		tables:  map[string]bool{},
		links:   map[string]bool{},
	}
	if snap != nil {
		for _, t := range snap.Schema.Tables {
			tn := strings.ToLower(t.Name)
			h.tables[tn] = true
			keys := 0
			for _, c := range t.Columns {
				cn := strings.ToLower(c.Name)
				h.columns[tn+"."+cn] = true
				if keyName(cn) {
					keys++
				}
			}
			h.links[tn] = len(t.Columns) > 1 && keys == len(t.Columns)
		}
	}
	return h
}

// Needs lists what a query reads of the warehouse: its tables (as
// "table.*") and columns ("table.column"), lower-case, at any depth of
// nesting; names of CTEs and derived tables are left out.
func (h *Harness) Needs(sql string) ([]string, bool) {
	sh, err := sqlshape.Parse(sql, h.resolve)
	if err != nil {
		return nil, false
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	var tables func(s *sqlshape.Shape)
	tables = func(s *sqlshape.Shape) {
		for _, t := range s.Tables {
			if h.tables[t] {
				add(t + ".*")
			}
		}
		for _, sub := range s.Subs {
			tables(sub.Shape)
		}
	}
	tables(sh)
	for _, c := range sh.Columns {
		t, col, _ := strings.Cut(c, ".")
		switch {
		case col == "*" && h.tables[t]:
			add(c)
		case h.columns[c]:
			add(c)
		}
	}
	return out, true
}

// MissingFromPrompt lists what the question's gold reads that the
// prompt (Trace.Prompt: "table.column" names) did not show; a table
// counts as shown with any of its columns. With several golds, the one
// the prompt covers best is judged; ok is false when no gold parses.
func (h *Harness) MissingFromPrompt(g *Gold, prompt []string) (missing []string, ok bool) {
	shown := map[string]bool{}
	for _, c := range prompt {
		c = strings.ToLower(c)
		shown[c] = true
		t, _, _ := strings.Cut(c, ".")
		shown[t+".*"] = true
	}
	for _, sql := range g.Question.Golds() {
		needs, parsed := h.Needs(sql)
		if !parsed {
			continue
		}
		var miss []string
		for _, n := range needs {
			if !shown[n] {
				miss = append(miss, n)
			}
		}
		if !ok || len(miss) < len(missing) {
			missing, ok = miss, true
		}
		if len(miss) == 0 {
			break
		}
	}
	return missing, ok
}

// CanonValue canonicalises a literal exactly as the dialog manager does
// for slot values: lower-cased, then a stored code mapped to the name it
// abbreviates when the data shows it ('TX' → 'texas'), so that gold and
// option slot values compare equal.
func CanonValue(snap *warehouse.Snapshot) func(string) string {
	alias := map[string]string{}
	if snap != nil {
		for _, a := range snap.Aliases {
			alias[strings.ToLower(a.Code)] = strings.ToLower(a.Name)
		}
	}
	return func(v string) string {
		v = strings.ToLower(v)
		if n, ok := alias[v]; ok {
			return n
		}
		return v
	}
}

// Slots reads the decision slots of a query as the manager does; ok is
// false when the query cannot be parsed.
func (h *Harness) Slots(sql string) (sqlshape.Slots, bool) {
	sh, err := sqlshape.Parse(sql, h.resolve)
	if err != nil {
		return nil, false
	}
	return sh.Slots(h.canon), true
}

// Gold is what the harness knows of a question's gold queries.
type Gold struct {
	Question Question
	// Results of the gold queries that ran; Slots of those that parsed.
	Results []*sqlresult.Result
	Slots   []sqlshape.Slots
	// Err is set when no gold query ran: the question cannot be scored.
	Err error
}

// PrepareGold runs a question's gold queries (gold_sql and every
// alt_gold_sql). Each one that fails is a Problem located at the question's
// line of file; the question stays scorable while one of them runs.
func (h *Harness) PrepareGold(ctx context.Context, file string, q Question) (*Gold, []Problem) {
	g := &Gold{Question: q}
	var probs []Problem
	var errs []error
	for i, sql := range q.Golds() {
		field := "gold_sql"
		if i > 0 {
			field = fmt.Sprintf("alt_gold_sql[%d]", i-1)
		}
		if s, ok := h.Slots(sql); ok {
			g.Slots = append(g.Slots, s)
		}
		res, err := h.exec.Query(ctx, sql, h.opts.Limits)
		if err != nil {
			if ctx.Err() != nil {
				g.Err = ctx.Err()
				return g, probs
			}
			h.opts.Logger.Info("gold query failed", "question", q.ID, "field", field, "err", err)
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
			probs = append(probs, Problem{File: file, Line: q.Line, ID: q.ID, Reason: fmt.Sprintf("%s fails: %v", field, err)})
			continue
		}
		if res.Truncated {
			probs = append(probs, Problem{File: file, Line: q.Line, ID: q.ID, Reason: fmt.Sprintf("%s has more than %d rows; compared on the first %d", field, h.opts.Limits.MaxRows, h.opts.Limits.MaxRows)})
		}
		g.Results = append(g.Results, res)
	}
	if len(g.Results) == 0 {
		g.Err = errors.Join(errs...)
	}
	return g, probs
}

// Matches reports whether sql's result execution-matches the question's
// gold, running sql (bounded by Options.Limits) unless an earlier check
// of the same question and sql is cached.
func (h *Harness) Matches(ctx context.Context, g *Gold, sql string) (bool, error) {
	key := matchKey{question: g.Question.ID, sql: sql}
	h.mu.Lock()
	out, ok := h.matches[key]
	h.mu.Unlock()
	if ok {
		return out.match, out.err
	}
	res, err := h.exec.Query(ctx, sql, h.opts.Limits)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err() // not cached: the reading itself may be fine
		}
		h.opts.Logger.Debug("reading failed", "question", g.Question.ID, "sql", sql, "err", err)
		out = matchOutcome{err: err}
	} else {
		out = matchOutcome{match: MatchAny(res, g.Results, g.Question.Ordered)}
	}
	h.mu.Lock()
	h.matches[key] = out
	h.mu.Unlock()
	return out.match, out.err
}

// How the simulated user decided.
const (
	BySlot   = "slot"   // the gold's value of the clarification's slot is this option's
	ByResult = "result" // this option keeps a reading whose result matches the gold
	ByNone   = "none"   // no option agrees with the gold: "none of these"
)

// NoneOfThese is what the simulated user types when no option agrees.
const NoneOfThese = "none of these"

// Choice is one clarification and the simulated user's answer to it.
type Choice struct {
	// ID is the clarification's id: a question answered again after
	// declined words is one question.
	ID      string   `json:"id,omitempty"`
	Key     string   `json:"key"`
	Prompt  string   `json:"prompt"`
	Options []string `json:"options"`
	Values  []string `json:"values"`
	// Gold is the gold's value of the slot ("" when the gold lacks it or
	// cannot be parsed).
	Gold string `json:"gold,omitempty"`
	// Picked is the index of the chosen option, -1 for "none of these" or
	// a typed answer.
	Picked int    `json:"picked"`
	By     string `json:"by"`
	// Typed is what the user typed under Other… (By == ByTyped).
	Typed string `json:"typed,omitempty"`
}

// Answer is the simulated user: it picks the option of c that agrees with
// the gold. First by meaning: the option whose Value is the gold query's
// value of the clarification's slot. Where that is inconclusive (the gold
// lacks the slot, cannot be parsed, or the golds disagree), by result: the
// option keeping a reading whose result execution-matches the gold. If no
// option agrees it answers "none of these". It never types SQL.
func (h *Harness) Answer(ctx context.Context, g *Gold, c *dialog.Clarification) Choice {
	return h.answer(ctx, g, c, true)
}

// answer is Answer, typing the gold's meaning only when typing is set.
func (h *Harness) answer(ctx context.Context, g *Gold, c *dialog.Clarification, typing bool) Choice {
	if c.Key.Name == vocabKey {
		return h.answerWord(ctx, g, c)
	}
	ch := Choice{ID: c.ID, Key: c.Key.String(), Prompt: c.Prompt, Picked: -1, By: ByNone}
	for _, o := range c.Options {
		ch.Options = append(ch.Options, o.Label)
		ch.Values = append(ch.Values, o.Value.String())
	}
	// By meaning.
	bySlot := map[int]bool{}
	emptyMatch := -1
	for _, s := range g.Slots {
		v := s.Get(c.Key)
		if ch.Gold == "" {
			ch.Gold = v.String()
		}
		for i, o := range c.Options {
			if c.Key.Name == "" || !o.Value.Equal(v) {
				continue
			}
			if v.IsEmpty() {
				// The gold lacks this part: agreeing with "nothing" says
				// little when the gold computes it another way (a
				// subquery instead of ORDER BY … LIMIT 1).
				emptyMatch = i
				continue
			}
			bySlot[i] = true
		}
	}
	if len(bySlot) == 1 {
		for i := range bySlot {
			ch.Picked, ch.By = i, BySlot
		}
		return ch
	}
	// By result.
	first := -1
	for i, o := range c.Options {
		for _, sql := range o.Readings {
			ok, err := h.Matches(ctx, g, sql)
			if err != nil || !ok {
				continue
			}
			if first < 0 || bySlot[i] && !bySlot[first] {
				first = i
			}
			break
		}
	}
	switch {
	case first >= 0:
		ch.Picked, ch.By = first, ByResult
	case typing && h.typedMeaning(g, c) != "":
		// No option is the gold's meaning: the user says it (typed.go).
		ch.By, ch.Typed = ByTyped, h.typedMeaning(g, c)
	case emptyMatch >= 0:
		ch.Picked, ch.By = emptyMatch, BySlot
	}
	return ch
}
