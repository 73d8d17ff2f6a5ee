package llmengine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// maxCompletion bounds each sample; a query needs far less.
const maxCompletion = 1000

// sample is one statement the model proposed.
type sample struct {
	sql    string
	key    string
	weight float64
	// err says why the sample cannot be used (nil once it passed).
	err     error
	checked bool
	repairs int
	node    ast.StmtNode
}

type sampleSet struct{ samples []*sample }

func (s *sampleSet) add(sm *sample) { s.samples = append(s.samples, sm) }

func (s *sampleSet) valid() []*sample {
	var out []*sample
	for _, sm := range s.samples {
		if sm.err == nil && sm.checked {
			out = append(out, sm)
		}
	}
	return out
}

// why summarises the problems of the samples, for logs.
func (s *sampleSet) why() string {
	seen := map[string]bool{}
	var out []string
	for _, sm := range s.samples {
		if sm.err != nil && !seen[sm.err.Error()] {
			seen[sm.err.Error()] = true
			out = append(out, sm.err.Error())
		}
	}
	if len(out) == 0 {
		return "no samples"
	}
	return strings.Join(out, "; ")
}

// fromChoice turns one reply into a sample, usable or not.
func (r *run) fromChoice(ch llm.Choice, weight float64) *sample {
	sql, err := r.e.reply(ch)
	sm := &sample{sql: sql, weight: weight, err: err}
	if err != nil {
		sm.checked = true
		r.e.log.Info("unusable model reply", "err", err, "reply", clipRunes(ch.Message.Content, 300))
	}
	return sm
}

// chat calls the model, falling back once (and remembering it) when a
// compatible server refuses tools or response_format.
func (r *run) chat(ctx context.Context, req llm.Request) (*llm.Response, error) {
	caps := r.e.caps
	for {
		if caps.noJSON.Load() {
			req.JSON = false
		}
		if caps.noTools.Load() {
			req.Tools, req.ToolChoice = nil, ""
		}
		resp, err := r.model.Chat(ctx, req)
		var le *llm.Error
		if err == nil || !errors.As(err, &le) || le.Kind != llm.KindBadRequest {
			return resp, err
		}
		msg := strings.ToLower(le.Msg)
		switch {
		case len(req.Tools) > 0 && strings.Contains(msg, "tool"):
			caps.noTools.Store(true)
			r.e.log.Warn("the model server refuses tools; continuing without them", "err", err)
		case req.JSON && (strings.Contains(msg, "response_format") || strings.Contains(msg, "json")):
			caps.noJSON.Store(true)
			r.e.log.Warn("the model server refuses response_format; continuing without it", "err", err)
		default:
			return nil, err
		}
	}
}

// samples is how many samples a round asks for, and at what temperature:
// more and hotter when the person said none of the readings fit.
func (r *run) samples() (int, float64) {
	n := min(r.e.opts.Samples+2*r.req.Widen, 12)
	t := min(r.e.opts.Temperature+0.15*float64(r.req.Widen), 1.3)
	return n, t
}

// generate asks for fresh samples, letting the model use the tools first
// when tool mode is on.
func (r *run) generate(ctx context.Context) (*sampleSet, error) {
	e := r.e
	msgs := r.generationMessages()
	n, temp := r.samples()
	set := &sampleSet{}
	var tools []llm.Tool
	choice := ""
	if e.opts.Tools && !e.caps.noTools.Load() {
		tools = e.toolDefs()
		var first *llm.Choice
		var err error
		msgs, first, err = r.explore(ctx, msgs, tools, temp)
		if err != nil {
			return nil, err
		}
		if first != nil {
			set.add(r.fromChoice(*first, 1))
			n--
		}
		choice = llm.ToolChoiceNone
	}
	if n > 0 {
		resp, err := r.chat(ctx, llm.Request{Messages: msgs, Tools: tools, ToolChoice: choice, N: n, Temperature: temp, MaxTokens: maxCompletion, JSON: true})
		if err != nil {
			if len(set.samples) == 0 {
				return nil, err
			}
			e.log.Warn("sampling failed after the tool steps; keeping the one answer", "err", err)
		} else {
			for _, ch := range resp.Choices {
				set.add(r.fromChoice(ch, 1))
			}
		}
	}
	if len(set.samples) == 0 {
		return nil, fmt.Errorf("%w: the server returned no choices", llm.ErrBadOutput)
	}
	return set, nil
}

// revise applies new feedback to each of the previous readings (up to
// three), so that what the person chose earlier survives: the manager
// re-applies earlier answers to the new candidates.
func (r *run) revise(ctx context.Context, prev []reading, fb []dialog.Feedback) (*sampleSet, error) {
	n, temp := r.samples()
	per := max(1, (n+len(prev)-1)/len(prev))
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		set  = &sampleSet{}
		errs []error
	)
	for _, p := range prev {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := r.chat(ctx, llm.Request{Messages: r.revisionMessages(p.sql, fb), N: per, Temperature: temp, MaxTokens: maxCompletion, JSON: true})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			for _, ch := range resp.Choices {
				set.add(r.fromChoice(ch, max(p.prior, 0.01)/float64(len(resp.Choices))))
			}
		}()
	}
	wg.Wait()
	if len(set.samples) == 0 {
		if len(errs) > 0 {
			return nil, errs[0]
		}
		return nil, fmt.Errorf("%w: the server returned no choices", llm.ErrBadOutput)
	}
	if len(errs) > 0 {
		r.e.log.Warn("some revisions failed", "failed", len(errs), "err", errs[0])
	}
	return set, nil
}

// check validates every sample — guard, schema, and (with an executor)
// the warehouse — and sends failing ones back for repair, at most
// MaxRepairs times each. Only cancellation is returned as an error.
func (r *run) check(ctx context.Context, set *sampleSet) error {
	e := r.e
	excluded := map[string]bool{}
	for _, s := range r.req.Exclude {
		excluded[sqlKey(s)] = true
	}
	for round := 0; ; round++ {
		for _, sm := range set.samples {
			if sm.checked {
				continue
			}
			if err := r.validate(ctx, sm, excluded); err != nil {
				return err
			}
		}
		// Distinct failing statements worth a repair, at most three a round.
		var todo []*sample
		seen := map[string]bool{}
		for _, sm := range set.samples {
			if sm.err == nil || sm.sql == "" || sm.repairs >= e.opts.MaxRepairs || errors.Is(sm.err, errExcluded) || seen[sm.key] {
				continue
			}
			seen[sm.key] = true
			todo = append(todo, sm)
			if len(todo) == 3 {
				break
			}
		}
		if len(todo) == 0 || round >= e.opts.MaxRepairs {
			return nil
		}
		fixed := make([]string, len(todo))
		var wg sync.WaitGroup
		for i, sm := range todo {
			wg.Add(1)
			go func() {
				defer wg.Done()
				fixed[i] = r.repair(ctx, sm)
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, sm := range todo {
			key := sm.key
			for _, other := range set.samples {
				if other.key != key || other.err == nil {
					continue
				}
				other.repairs++
				if fixed[i] != "" {
					other.sql, other.key, other.err, other.checked = fixed[i], "", nil, false
				}
			}
		}
	}
}

var errExcluded = errors.New("the person already rejected this reading")

// validate checks one sample; it returns an error only on cancellation.
func (r *run) validate(ctx context.Context, sm *sample, excluded map[string]bool) error {
	e := r.e
	sm.checked = true
	if sm.sql == "" {
		if sm.err == nil {
			sm.err = errNoSQL
		}
		return nil
	}
	sm.key = sqlKey(sm.sql)
	st, err := sqlguard.Check(sm.sql)
	if err != nil {
		sm.err = fmt.Errorf("refused by the read-only guard: %w", err)
		return nil
	}
	sm.sql, sm.key, sm.node = st.Text, sqlKey(st.Text), st.Node
	if excluded[sm.key] {
		sm.err = errExcluded
		return nil
	}
	if err := e.checkSchema(st.Node); err != nil {
		sm.err = err
		return nil
	}
	if e.opts.Exec == nil {
		return nil
	}
	if r.results == nil {
		r.results = map[string]*sqlresult.Result{}
	}
	if _, done := r.results[sm.sql]; done {
		return nil
	}
	res, err := e.opts.Exec.Query(ctx, sm.sql, e.opts.ExecLimits)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		switch warehouse.KindOfError(err) {
		case warehouse.KindSyntax, warehouse.KindUnknownColumn, warehouse.KindUnknownTable, warehouse.KindRefused, warehouse.KindUnknown:
			sm.err = fmt.Errorf("the warehouse rejected it: %w", err)
		case warehouse.KindAccessDenied:
			// Refused by the asker's account: a reading without what it
			// may not read may still answer. The repair prompt gets the
			// plain wording, never the server's message.
			e.log.Info("the warehouse's privileges refused a candidate", "err", err)
			sm.err = fmt.Errorf("the warehouse rejected it: %w", modelError(err))
		default:
			// A timeout or an outage says nothing about the query: the
			// manager runs it again and reports what happens.
			e.log.Info("engine check could not run a candidate", "kind", warehouse.KindOfError(err), "err", err)
		}
		return nil
	}
	r.results[sm.sql] = res
	return nil
}

// repair asks for a corrected statement; "" when none came back.
func (r *run) repair(ctx context.Context, sm *sample) string {
	e := r.e
	resp, err := r.chat(ctx, llm.Request{Messages: r.repairMessages(sm.sql, sm.err.Error()), N: 1, Temperature: 0.2, MaxTokens: maxCompletion, JSON: true})
	if err != nil || len(resp.Choices) == 0 {
		e.log.Warn("repair failed", "err", err)
		return ""
	}
	sql, err := e.reply(resp.Choices[0])
	if err != nil {
		e.log.Info("unusable repair", "err", err)
		return ""
	}
	e.log.Info("repaired a query", "problem", sm.err, "before", sm.sql, "after", sql)
	return sql
}
