package offline

import (
	"context"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
)

// Explanation is what the engine made of a question, stage by stage, for
// people looking for the stage to change when a reading is wrong (bot
// readings): the words, what the reading stage linked them to, how many
// plans the plan stage built, and the candidates the engine proposes.
type Explanation struct {
	Words      []string
	Mentions   []links.Mention
	Plans      int
	Candidates []dialog.Candidate
}

// Explain reads the request as Candidates does and reports each stage.
func (e *Engine) Explain(ctx context.Context, req dialog.Request) (*Explanation, error) {
	a := read.Analyse(e.reader, req.Question, req.Feedback, req.Facts, e.now())
	x := &Explanation{Mentions: a.Mentions()}
	for _, t := range a.Toks {
		x.Words = append(x.Words, t.Raw)
	}
	// The plan stage marks what it uses on the analysis: count its plans
	// on an analysis of their own, so the mentions above are the reading
	// stage's alone.
	x.Plans = len(e.planner.Readings(read.Analyse(e.reader, req.Question, req.Feedback, req.Facts, e.now()), req.Widen, req.Facts))
	p, err := e.Candidates(ctx, req)
	if err != nil {
		return nil, err
	}
	x.Candidates = p.Candidates
	return x, nil
}
