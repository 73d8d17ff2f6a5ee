package llmengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// The summarize-review-ask step: when the samples agree, the model reviews
// the agreed query for the four kinds of ambiguity and either says none is
// open (an early stop: no more reviews for this question) or asks one
// multiple-choice question in strict JSON, each option carrying the
// constraint it stands for and the query under it.
//
// The question reaches the person two ways: as Proposal.Ask, and as one
// candidate per option, so that the manager's own machinery (execution,
// grouping, information gain, remembering the answer as a fact) asks
// about the point where the options differ.

type reviewReply struct {
	Ambiguous *bool          `json:"ambiguous"`
	Kind      string         `json:"kind"`
	Phrase    string         `json:"phrase"`
	Question  string         `json:"question"`
	Options   []reviewOption `json:"options"`
}

type reviewOption struct {
	Label      string `json:"label"`
	Constraint string `json:"constraint"`
	SQL        string `json:"sql"`
}

var fenceOnly = regexp.MustCompile("(?s)^```(?:json)?\\s*(.*?)\\s*```$")

// parseReview reads the review strictly: one JSON object (a fence around
// it is tolerated, prose is not), no unknown fields, the required ones
// present and sane.
func parseReview(content string) (*reviewReply, error) {
	c := strings.TrimSpace(content)
	if m := fenceOnly.FindStringSubmatch(c); m != nil {
		c = m[1]
	}
	dec := json.NewDecoder(strings.NewReader(c))
	dec.DisallowUnknownFields()
	var rep reviewReply
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("not the review JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("text after the review JSON")
	}
	if rep.Ambiguous == nil {
		return nil, errors.New(`the review JSON has no "ambiguous"`)
	}
	if !*rep.Ambiguous {
		return &rep, nil
	}
	switch dialog.AmbiguityKind(rep.Kind) {
	case dialog.AmbColumn, dialog.AmbOutput, dialog.AmbQuestion, dialog.AmbValue:
	default:
		return nil, fmt.Errorf("unknown ambiguity kind %q", rep.Kind)
	}
	rep.Question = strings.TrimSpace(rep.Question)
	if rep.Question == "" || len([]rune(rep.Question)) > 300 {
		return nil, errors.New("the question is empty or too long")
	}
	if len(rep.Options) > 3 {
		rep.Options = rep.Options[:3]
	}
	if len(rep.Options) < 2 {
		return nil, fmt.Errorf("%d options; a question needs two or three", len(rep.Options))
	}
	labels := map[string]bool{}
	for i := range rep.Options {
		o := &rep.Options[i]
		o.Label, o.Constraint = strings.TrimSpace(o.Label), strings.TrimSpace(o.Constraint)
		if o.Label == "" || o.Constraint == "" {
			return nil, fmt.Errorf("option %d has no label or constraint", i+1)
		}
		if len([]rune(o.Label)) > 120 || len([]rune(o.Constraint)) > 400 {
			return nil, fmt.Errorf("option %d is too long", i+1)
		}
		o.Label = clipRunes(o.Label, 75)
		if labels[strings.ToLower(o.Label)] {
			return nil, fmt.Errorf("option %q twice", o.Label)
		}
		labels[strings.ToLower(o.Label)] = true
	}
	return &rep, nil
}

// review runs the step for agreed candidates. It returns the option
// readings, the question, and whether the model found nothing open. A
// failed review is logged and changes nothing.
func (r *run) review(ctx context.Context, cands []dialog.Candidate, mem *convMemory) ([]dialog.Candidate, *dialog.EngineQuestion, bool) {
	e := r.e
	top := cands[0].SQL
	summary := ""
	if sh, err := sqlshape.Parse(top, e.labels.TableOf); err == nil {
		summary = sqlshape.Explain(sh, e.labels)
	}
	var asked []askedQ
	if mem != nil {
		asked = mem.asked
	}
	resp, err := r.chat(ctx, llm.Request{Messages: r.reviewMessages(top, summary, asked), N: 1, Temperature: 0.01, MaxTokens: 2 * maxCompletion, JSON: true})
	if err != nil || len(resp.Choices) == 0 {
		e.log.Warn("review failed; answering without it", "err", err)
		return nil, nil, false
	}
	if len(resp.Choices[0].Message.Content) > e.opts.MaxOutputBytes {
		e.log.Info("review reply rejected", "err", errTooLong)
		return nil, nil, false
	}
	rep, err := parseReview(resp.Choices[0].Message.Content)
	if err != nil {
		e.log.Info("review reply rejected", "err", err, "reply", clipRunes(resp.Choices[0].Message.Content, 300))
		return nil, nil, false
	}
	if !*rep.Ambiguous {
		return nil, nil, true
	}
	if similarQuestion(rep.Question, rep.Phrase, asked, r.req.Feedback) {
		e.log.Info("review asked again what was already asked; not asking", "question", rep.Question)
		return nil, nil, false
	}
	phrase := ""
	if inText(r.text, rep.Phrase) && r.namesSchema(rep.Phrase) {
		phrase = strings.TrimSpace(rep.Phrase)
	}
	q := &dialog.EngineQuestion{Kind: dialog.AmbiguityKind(rep.Kind), Prompt: rep.Question, Phrase: phrase}
	for _, o := range rep.Options {
		q.Options = append(q.Options, dialog.EngineOption{Label: o.Label, Feedback: o.Constraint})
	}

	// The readings under each option, checked like any sample.
	var total float64
	for _, c := range cands {
		total += c.Prior
	}
	excluded := map[string]bool{}
	for _, s := range r.req.Exclude {
		excluded[sqlKey(s)] = true
	}
	var opts []dialog.Candidate
	for _, o := range rep.Options {
		if o.SQL == "" {
			continue
		}
		sql, err := extractSQL(o.SQL)
		if err != nil || len(sql) > e.opts.MaxSQLBytes {
			continue
		}
		sm := &sample{sql: sql, weight: 1}
		if err := r.validate(ctx, sm, excluded); err != nil {
			return nil, q, false
		}
		if sm.err != nil {
			e.log.Info("review option query unusable", "option", o.Label, "err", sm.err)
			continue
		}
		opts = append(opts, dialog.Candidate{SQL: sm.sql, Phrases: e.phrases(sm.sql, r.link, r.text)})
	}
	if len(opts) == 0 {
		return nil, q, false
	}
	// Every reading weighs the same: the model says the question is open.
	k := float64(len(rep.Options))
	for i := range cands {
		cands[i].Prior = total / k / float64(len(cands))
	}
	for i := range opts {
		opts[i].Prior = total / k
	}
	if phrase != "" {
		all := append(append([]dialog.Candidate(nil), cands...), opts...)
		for _, key := range e.differingSlots(all) {
			for i := range cands {
				setPhrase(&cands[i], key, phrase)
			}
			for i := range opts {
				setPhrase(&opts[i], key, phrase)
			}
		}
	}
	return opts, q, false
}

// setPhrase gives a slot the words it came from, unless linking already
// found better ones.
func setPhrase(c *dialog.Candidate, key sqlshape.SlotKey, phrase string) {
	if c.Phrases == nil {
		c.Phrases = map[sqlshape.SlotKey]string{}
	}
	if _, ok := c.Phrases[key]; !ok {
		c.Phrases[key] = phrase
	}
}

// namesSchema reports whether some word of phrase names a column, a
// stored value or a number: a phrase like "what was" quotes the person
// but says nothing a question could be about.
func (r *run) namesSchema(phrase string) bool {
	for _, w := range words(strings.ToLower(phrase)) {
		if len(r.link.wordCols[w]) > 0 || reNumber.MatchString(w) {
			return true
		}
		for _, v := range r.link.values {
			if slices.Contains(words(strings.ToLower(v.phrase)), w) {
				return true
			}
		}
	}
	return false
}

// differingSlots lists the slot keys whose values differ among the candidates.
func (e *Engine) differingSlots(cands []dialog.Candidate) []sqlshape.SlotKey {
	var slots []sqlshape.Slots
	keys := map[sqlshape.SlotKey]bool{}
	for _, c := range cands {
		sh, err := sqlshape.Parse(c.SQL, e.labels.TableOf)
		if err != nil {
			continue
		}
		s := sh.Slots(e.canon)
		slots = append(slots, s)
		for k := range s {
			keys[k] = true
		}
	}
	var out []sqlshape.SlotKey
	for k := range keys {
		if k.Name == sqlshape.SlotTables {
			continue
		}
		for _, s := range slots[1:] {
			if !s.Get(k).Equal(slots[0].Get(k)) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// similarQuestion reports whether a proposed question repeats one already
// asked or answered: the same phrase, or mostly the same words.
func similarQuestion(q, phrase string, asked []askedQ, fb []dialog.Feedback) bool {
	p := normPhrase(phrase)
	qt := tokenSet(q)
	for _, a := range asked {
		if p != "" && p == normPhrase(a.phrase) {
			return true
		}
		if jaccard(qt, tokenSet(a.prompt)) >= 0.5 {
			return true
		}
	}
	for _, f := range fb {
		if p != "" && p == normPhrase(f.About) {
			return true
		}
	}
	return false
}

func normPhrase(s string) string { return strings.ToLower(strings.Join(words(s), " ")) }

var questionStop = map[string]bool{"the": true, "a": true, "an": true, "do": true, "you": true, "mean": true, "which": true, "what": true, "should": true, "i": true, "by": true, "of": true, "for": true, "to": true, "is": true, "or": true, "in": true}

func tokenSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words(strings.ToLower(s)) {
		if !questionStop[w] {
			out[w] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// inText reports whether phrase occurs in text as whole words.
func inText(text, phrase string) bool {
	p := normPhrase(phrase)
	return p != "" && strings.Contains(" "+normPhrase(text)+" ", " "+p+" ")
}
