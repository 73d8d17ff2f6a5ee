package eval

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clarify-bot/clarify/dialog"
)

// FailureKind says why a question was not answered correctly.
type FailureKind string

const (
	// FailNoCandidate: no answer came back (a notice only), no reading of
	// the question ran.
	FailNoCandidate FailureKind = "no candidate"
	// FailGoldMissing: none of the first round's candidates gives the gold result.
	FailGoldMissing FailureKind = "gold not among candidates"
	// FailWrongPick: a candidate gives the gold result, the final answer does not.
	FailWrongPick FailureKind = "wrong pick"
	// FailExecution: the gold or the final answer failed to run (or the bot failed).
	FailExecution FailureKind = "execution error"
)

// Outcome says how a question ended, for honesty rather than accuracy: a
// wrong answer given with no question asked, no remembered fact and no
// caveat is the failure people do not forgive.
type Outcome string

const (
	OutcomeRight Outcome = "right"
	// OutcomeSilentWrong: wrong, with nothing asked, no fact used, no caveat.
	OutcomeSilentWrong Outcome = "silent wrong"
	// OutcomeCaveated: wrong, but the answer said what it left out.
	OutcomeCaveated Outcome = "caveated"
	// OutcomeWrongAfterAsking: wrong after asking or using a remembered choice.
	OutcomeWrongAfterAsking Outcome = "wrong after asking"
	// OutcomeAbstained: no answer.
	OutcomeAbstained Outcome = "abstained"
)

// outcome classifies a scored question.
func (r *QuestionResult) outcome() Outcome {
	switch {
	case r.Correct:
		return OutcomeRight
	case r.AnswerSQL == "":
		return OutcomeAbstained
	case len(r.Unused) > 0:
		return OutcomeCaveated
	case r.Questions > 0 || r.FactsUsed > 0:
		return OutcomeWrongAfterAsking
	}
	return OutcomeSilentWrong
}

// FailureKinds lists the kinds in report order.
var FailureKinds = []FailureKind{FailNoCandidate, FailGoldMissing, FailWrongPick, FailExecution}

// QuestionResult is the outcome of one question.
type QuestionResult struct {
	ID       string   `json:"id"`
	Line     int      `json:"line"`
	Question string   `json:"question"`
	User     string   `json:"user,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Gold     string   `json:"gold"`
	// GoldRows is the row count of the first gold result that ran (-1: none ran).
	GoldRows int  `json:"gold_rows"`
	Correct  bool `json:"correct"`
	// Questions is how many clarifications were asked.
	Questions int      `json:"questions"`
	Asked     []Choice `json:"asked,omitempty"`
	// AnswerSQL is the SQL of the final answer ("" when none came back).
	AnswerSQL  string      `json:"answer_sql,omitempty"`
	AnswerRows int         `json:"answer_rows"`
	Notice     string      `json:"notice,omitempty"`
	Failure    FailureKind `json:"failure,omitempty"`
	// Unused are the words the answer said it did not take into account.
	Unused []string `json:"unused,omitempty"`
	// Outcome sorts the question for honesty: see the Outcome constants.
	Outcome Outcome `json:"outcome"`
	Detail  string  `json:"detail,omitempty"`
	// GoldAmong is "yes" or "no" when the first round's candidates were
	// checked against the gold (for wrong answers), "" otherwise.
	GoldAmong       string  `json:"gold_among_candidates,omitempty"`
	Engine          string  `json:"engine,omitempty"`
	Candidates      int     `json:"candidates"`
	FailedCands     int     `json:"failed_candidates"`
	Interpretations int     `json:"interpretations"`
	Entropy         float64 `json:"entropy"`
	FactsUsed       int     `json:"facts_used"`
	// BotSeconds is the time the bot took over all turns; CheckSeconds the
	// harness's own time (gold checks of readings and candidates).
	BotSeconds   float64 `json:"bot_seconds"`
	CheckSeconds float64 `json:"check_seconds"`
	// Tokens are the model tokens the conversation spent.
	Tokens int `json:"tokens"`
	// PromptCovers is "yes" when the model's first prompt showed every
	// table and column the gold reads, "no" when it did not (PromptMissing
	// lists what was missing), "" without a model.
	PromptCovers  string   `json:"prompt_covers_gold,omitempty"`
	PromptMissing []string `json:"prompt_missing,omitempty"`
	// TopP is how likely the bot found its likeliest first reading, and
	// TopRight whether that reading gives the gold result; AnswerP is how
	// likely it found the reading it answered with (reliability tables).
	TopP     float64 `json:"top_p,omitempty"`
	TopRight bool    `json:"top_right,omitempty"`
	AnswerP  float64 `json:"answer_p,omitempty"`
	// Candidates' SQL (first round), for failure analysis.
	CandidateSQL []string `json:"candidate_sql,omitempty"`
}

// RunConfig describes one run over a dataset.
type RunConfig struct {
	// Dataset names the workspace the simulated users ask in.
	Dataset  string
	Engine   string
	Strategy string
	// MaxRounds caps the questions per conversation (0: 4; negative: none, as dialog.NeverAsk).
	MaxRounds int
	// Carry keeps one ontology per simulated user across the dataset, in
	// order: questions without a user share one user. Without it every
	// question has a user of its own, so nothing learned carries over.
	Carry bool
	// Progress, if set, is called after each question.
	Progress func(done, total int, r *QuestionResult)
}

// extraTurns bounds the clarifications answered per question beyond
// MaxRounds, against a dialog that keeps asking.
const extraTurns = 4

// sharedUser is the simulated user of questions without one under Carry.
const sharedUser = "sim"

// Run puts every question through d, one conversation each, in order, and
// scores the answers. Questions whose gold did not run are not asked; they
// count as execution errors. It stops early only when ctx ends, returning
// what it has with ctx's error.
func (h *Harness) Run(ctx context.Context, d Dialog, golds []*Gold, cfg RunConfig) (*Run, error) {
	switch {
	case cfg.MaxRounds == 0:
		cfg.MaxRounds = 4
	case cfg.MaxRounds < 0:
		cfg.MaxRounds = 0 // dialog.NeverAsk
	}
	run := &Run{Dataset: cfg.Dataset, Engine: cfg.Engine, Strategy: cfg.Strategy, Carry: cfg.Carry, MaxRounds: cfg.MaxRounds}
	start := time.Now()
	for i, g := range golds {
		if err := ctx.Err(); err != nil {
			run.summarise(time.Since(start))
			return run, fmt.Errorf("run %s: %w", cfg.Dataset, err)
		}
		r := h.ask(ctx, d, g, cfg)
		run.Results = append(run.Results, r)
		if cfg.Progress != nil {
			cfg.Progress(i+1, len(golds), &run.Results[len(run.Results)-1])
		}
	}
	run.summarise(time.Since(start))
	if err := ctx.Err(); err != nil {
		return run, fmt.Errorf("run %s: %w", cfg.Dataset, err)
	}
	return run, nil
}

func (h *Harness) who(q Question, cfg RunConfig) dialog.Who {
	user := q.User
	switch {
	case cfg.Carry && user == "":
		user = sharedUser
	case !cfg.Carry && user == "":
		user = "q:" + q.ID
	case !cfg.Carry:
		user = q.User + "/q:" + q.ID
	}
	return dialog.Who{Platform: "eval", Workspace: cfg.Dataset, Channel: "eval", User: user}
}

// ask runs one conversation and scores it.
func (h *Harness) ask(ctx context.Context, d Dialog, g *Gold, cfg RunConfig) (r QuestionResult) {
	q := g.Question
	r = QuestionResult{ID: q.ID, Line: q.Line, Question: q.Question, User: q.User, Tags: q.Tags, Gold: q.GoldSQL}
	if g.Err != nil {
		r.GoldRows = -1
		r.Failure, r.Detail = FailExecution, "gold failed: "+g.Err.Error()
		return r
	}
	r.GoldRows = len(g.Results[0].Rows)
	who := h.who(q, cfg)
	conv := cfg.Dataset + "/" + q.ID
	var bot, check time.Duration
	handle := func(ev dialog.Event) ([]dialog.Reply, error) {
		t := time.Now()
		defer func() { bot += time.Since(t) }()
		return d.Handle(ctx, ev)
	}
	replies, err := handle(dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: q.Question})
	var answer *dialog.Answer
	var last *dialog.Clarification
	saidNone, retried := false, false
	for turn := 0; err == nil; turn++ {
		var clar *dialog.Clarification
		for _, rp := range replies {
			switch {
			case rp.Kind == dialog.ReplyAnswer && rp.Answer != nil:
				answer = rp.Answer
			case rp.Kind == dialog.ReplyClarification && rp.Clarification != nil:
				clar = rp.Clarification
			case rp.Kind == dialog.ReplyNotice:
				r.Notice = rp.Text
			}
		}
		typing := true
		if answer == nil && clar == nil && last != nil && !retried && len(r.Asked) > 0 && r.Asked[len(r.Asked)-1].By == ByTyped {
			// The words were declined and the question is still open:
			// answer it as a person would next, with the options.
			clar, typing, retried = last, false, true
		}
		if answer != nil || clar == nil {
			break
		}
		last = clar
		if turn >= cfg.MaxRounds+extraTurns {
			r.Detail = fmt.Sprintf("still asking after %d clarifications", turn)
			break
		}
		t := time.Now()
		ch := h.answer(ctx, g, clar, typing)
		check += time.Since(t)
		r.Asked = append(r.Asked, ch)
		ev := dialog.Event{Kind: dialog.EventChoose, Conversation: conv, Who: who, Target: clar.ID, Option: ch.Picked}
		switch {
		case ch.By == ByTyped:
			ev = dialog.Event{Kind: dialog.EventOther, Conversation: conv, Who: who, Target: clar.ID, Text: ch.Typed}
		case ch.Picked < 0:
			saidNone = true
			ev = dialog.Event{Kind: dialog.EventOther, Conversation: conv, Who: who, Target: clar.ID, Text: NoneOfThese}
		}
		replies, err = handle(ev)
	}
	r.BotSeconds = bot.Seconds()
	r.Questions = distinctQuestions(r.Asked)
	var tr *dialog.Trace
	if t, terr := d.Trace(ctx, who, conv); terr == nil {
		tr = t
		r.Engine, r.Candidates, r.FailedCands, r.Interpretations = tr.Engine, tr.Candidates, tr.Failed, tr.Interpretations
		r.Entropy, r.FactsUsed, r.CandidateSQL = tr.Entropy, tr.FactsUsed, tr.SQL
		r.Questions = max(r.Questions, tr.Questions)
		r.Tokens, r.TopP, r.AnswerP = tr.Tokens, tr.TopP, tr.AnswerP
		if len(tr.Prompt) > 0 {
			if miss, ok := h.MissingFromPrompt(g, tr.Prompt); ok {
				r.PromptCovers, r.PromptMissing = "yes", miss
				if len(miss) > 0 {
					r.PromptCovers = "no"
				}
			}
		}
	}
	t := time.Now()
	if tr != nil && tr.TopSQL != "" {
		if ok, err := h.Matches(ctx, g, tr.TopSQL); err == nil {
			r.TopRight = ok
		}
	}
	defer func() {
		r.CheckSeconds = (check + time.Since(t)).Seconds()
		r.Outcome = r.outcome()
	}()
	switch {
	case err != nil:
		r.Failure, r.Detail = FailExecution, "bot error: "+err.Error()
	case answer != nil:
		r.AnswerSQL, r.AnswerRows, r.Unused = answer.SQL, answer.RowCount, answer.Unused
		// The reading is scored: a figure shown beside it (Answer.Added) is
		// for people, not part of what was asked.
		r.Correct = MatchAny(answer.Reading(), g.Results, q.Ordered)
		if !r.Correct {
			r.Failure = h.whyWrong(ctx, g, &r)
		}
	case r.Interpretations > 0 && !saidNone && r.Detail == "":
		// Readings ran, no clarification is pending, and the user never
		// ruled them all out: the final answer's query failed.
		r.Failure, r.Detail = FailExecution, "answer failed: "+r.Notice
	default:
		r.Failure = FailNoCandidate
		if saidNone && r.Detail == "" {
			r.Detail = "no other reading after \"" + NoneOfThese + "\""
		}
	}
	return r
}

// whyWrong tells a wrong pick from a gold that no candidate gives, running
// the first round's candidates (bounded by CheckBudget).
func (h *Harness) whyWrong(ctx context.Context, g *Gold, r *QuestionResult) FailureKind {
	cctx, cancel := context.WithTimeout(ctx, h.opts.CheckBudget)
	defer cancel()
	unchecked := 0
	for _, sql := range r.CandidateSQL {
		ok, err := h.Matches(cctx, g, sql)
		if ok {
			r.GoldAmong = "yes"
			return FailWrongPick
		}
		if err != nil && errors.Is(err, cctx.Err()) {
			unchecked++
		}
	}
	r.GoldAmong = "no"
	if unchecked > 0 {
		r.Detail = fmt.Sprintf("%d candidates not checked within %s", unchecked, h.opts.CheckBudget)
	}
	return FailGoldMissing
}

// distinctQuestions counts the clarifications answered: one answered
// again (after the dialog declined typed words) counts once.
func distinctQuestions(asked []Choice) int {
	n := 0
	for i, c := range asked {
		if i > 0 && c.ID != "" && asked[i-1].ID == c.ID && asked[i-1].By == ByTyped {
			continue
		}
		n++
	}
	return n
}
