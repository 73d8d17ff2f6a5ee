package adminweb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/qnorm"
	"github.com/clarify-bot/clarify/ontology"
)

// Outcomes the Questions page filters by. A record may have several: an
// answer that asked first, an answer that left words out.
const (
	outcomeAnswered  = "answered"
	outcomeAsked     = "asked"
	outcomeAbstained = "abstained"
	outcomeWrong     = "not what I meant"
	outcomeCaveated  = "caveated"
	outcomeConfirmed = "confirmed"
	outcomeRefused   = "refused"
)

var outcomeFilters = []string{outcomeAnswered, outcomeAsked, outcomeAbstained, outcomeWrong, outcomeCaveated, outcomeConfirmed, outcomeRefused}

// outcomes classifies a question record.
func outcomes(q *ontology.QuestionRecord) []string {
	var out []string
	switch q.Outcome {
	case "answered":
		out = append(out, outcomeAnswered)
		if len(q.Unused) > 0 {
			out = append(out, outcomeCaveated)
		}
	case "failed":
		out = append(out, outcomeAbstained)
	case "confirmed":
		out = append(out, outcomeConfirmed)
	case "refused":
		out = append(out, outcomeRefused)
	}
	for _, st := range q.Steps {
		switch st.Kind {
		case "clarification":
			if !slices.Contains(out, outcomeAsked) {
				out = append(out, outcomeAsked)
			}
		case "wrong":
			if !slices.Contains(out, outcomeWrong) {
				out = append(out, outcomeWrong)
			}
		}
	}
	return out
}

// questionView is a question record as the page shows it.
type questionView struct {
	Seq       uint64
	At        time.Time
	Who       string
	Channel   string
	Warehouse string
	Question  string
	Outcomes  []string
	Steps     []ontology.QuestionStep
	FactsUsed []ontology.FactUse
	SQL       []string
	Rows      int
	Duration  time.Duration
	Engine    string
	Detail    string
	Unused    []string
	// CanVerify: a confirmed answer that is not yet a verified query;
	// VerifySeq is the confirmation's record the button verifies.
	CanVerify bool
	VerifySeq uint64
	Verified  string
}

// foldConfirmed lists a question once: a person's confirmation of an
// answer ("this is right", kept as a record of its own) becomes a mark on
// the answer it confirms when that answer is on the same page, instead of
// a second card with no rows and no time. confirmedBy maps the answer's
// sequence number to its confirmation's.
func foldConfirmed(recs []ontology.Change) (kept []ontology.Change, confirmedBy map[uint64]ontology.Change) {
	type key struct{ user, warehouse, question, sql string }
	keyOf := func(q *ontology.QuestionRecord) key {
		return key{q.User, q.Warehouse, qnorm.Question(q.Question), lastSQL(q)}
	}
	// Newest first: an answer comes after (below) its confirmation.
	answerOf := map[key]uint64{}
	for _, c := range recs {
		if q := c.Question; q != nil && q.Outcome == "answered" && len(q.SQL) > 0 {
			if _, seen := answerOf[keyOf(q)]; !seen {
				answerOf[keyOf(q)] = c.Seq
			}
		}
	}
	confirmedBy = map[uint64]ontology.Change{}
	for _, c := range recs {
		if q := c.Question; q != nil && q.Outcome == "confirmed" {
			if seq, ok := answerOf[keyOf(q)]; ok && seq < c.Seq {
				if _, done := confirmedBy[seq]; !done {
					confirmedBy[seq] = c
				}
				continue
			}
		}
		kept = append(kept, c)
	}
	return kept, confirmedBy
}

// markConfirmed shows on an answer's card that its asker confirmed it,
// with the confirmation's verify button.
func (s *Server) markConfirmed(v questionView, conf ontology.Change, ws *workspace) questionView {
	if !slices.Contains(v.Outcomes, outcomeConfirmed) {
		v.Outcomes = append(v.Outcomes, outcomeConfirmed)
	}
	v.VerifySeq, v.CanVerify = conf.Seq, len(conf.Question.SQL) > 0
	if ws != nil {
		if f, ok := verifiedFor(ws, conf.Question); ok {
			v.CanVerify, v.Verified = false, f.VerifiedBy
		}
	}
	return v
}

func (s *Server) questionView(id Identity, c ontology.Change, ws *workspace) questionView {
	q := c.Question
	v := questionView{
		Seq: c.Seq, At: c.At, Who: id.Local(q.User), Channel: q.Channel, Warehouse: q.Warehouse, Question: q.Question,
		Outcomes: outcomes(q), Steps: q.Steps, FactsUsed: q.FactsUsed, SQL: q.SQL, Rows: q.Rows,
		Duration: q.Duration.Round(time.Millisecond), Engine: q.Engine, Detail: q.Detail, Unused: q.Unused,
	}
	if q.Outcome == "confirmed" && len(q.SQL) > 0 {
		v.CanVerify, v.VerifySeq = true, c.Seq
		if ws != nil {
			if f, ok := verifiedFor(ws, q); ok {
				v.CanVerify, v.Verified = false, f.VerifiedBy
			}
		}
	}
	return v
}

// verifiedFor finds the workspace's verified query of a record's question
// with the record's SQL.
func verifiedFor(ws *workspace, q *ontology.QuestionRecord) (ontology.Fact, bool) {
	phrase := qnorm.Question(q.Question)
	for _, f := range ws.facts {
		if f.Scope == ontology.ScopeWorkspace && f.Kind == ontology.KindQuery && f.Phrase == phrase &&
			f.Warehouse == q.Warehouse && f.VerifiedBy != "" && f.Target.Choice.Expr == lastSQL(q) {
			return f, true
		}
	}
	return ontology.Fact{}, false
}

// questionFilter is the Questions page's form.
type questionFilter struct {
	User, Channel, Outcome, Q, Phrase, Warehouse string
	Before                                       uint64
}

func (f questionFilter) keep(id Identity) func(q *ontology.QuestionRecord) bool {
	text := strings.ToLower(strings.TrimSpace(f.Q))
	user := strings.ToLower(strings.TrimSpace(f.User))
	channel := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(f.Channel), "#"))
	phrase := ontology.NormalizePhrase(f.Phrase)
	return func(q *ontology.QuestionRecord) bool {
		return (user == "" || strings.Contains(strings.ToLower(id.Local(q.User)), user)) &&
			(channel == "" || strings.Contains(strings.ToLower(q.Channel), channel)) &&
			(text == "" || strings.Contains(strings.ToLower(q.Question), text)) &&
			(f.Warehouse == "" || q.Warehouse == f.Warehouse) &&
			(f.Outcome == "" || slices.Contains(outcomes(q), f.Outcome)) &&
			(phrase == "" || usesPhrase(q, phrase))
	}
}

func (f questionFilter) query(before uint64) string {
	v := url.Values{}
	for k, x := range map[string]string{"user": f.User, "channel": f.Channel, "outcome": f.Outcome, "q": f.Q, "phrase": f.Phrase, "warehouse": f.Warehouse} {
		if x != "" {
			v.Set(k, x)
		}
	}
	if before > 0 {
		v.Set("before", strconv.FormatUint(before, 10))
	}
	return v.Encode()
}

// questionsPerPage is the page size of the Questions page.
const questionsPerPage = 50

func (s *Server) questionsPage(w http.ResponseWriter, rq *request) {
	qv := rq.r.URL.Query()
	f := questionFilter{User: qv.Get("user"), Channel: qv.Get("channel"), Outcome: qv.Get("outcome"), Q: qv.Get("q"), Phrase: qv.Get("phrase"), Warehouse: qv.Get("warehouse")}
	f.Before, _ = strconv.ParseUint(qv.Get("before"), 10, 64)
	if f.Outcome != "" && !slices.Contains(outcomeFilters, f.Outcome) {
		f.Outcome = ""
	}
	recs, err := s.questionRecords(rq.ctx, rq.id, f.Before, questionsPerPage+1, f.keep(rq.id))
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	ws, err := s.load(rq.ctx, rq.id, false)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	more := ""
	if len(recs) > questionsPerPage {
		recs = recs[:questionsPerPage]
		more = "?" + f.query(recs[len(recs)-1].Seq)
	}
	var rows []questionView
	kept, confirmedBy := foldConfirmed(recs)
	for _, c := range kept {
		v := s.questionView(rq.id, c, ws)
		if cs, ok := confirmedBy[c.Seq]; ok {
			v = s.markConfirmed(v, cs, ws)
		}
		rows = append(rows, v)
	}
	s.renderAs(w, rq.r, rq, http.StatusOK, "questions", page{Title: "Questions", Nav: "questions", Data: map[string]any{
		"Rows": rows, "F": f, "Outcomes": outcomeFilters, "Warehouses": s.warehouseNames(), "More": more, "Days": s.cfg.QuestionDays,
	}})
}

// verifyQuestion makes a confirmed answer a verified query of the
// workspace: the asker's kept answer (learned again from the record if it
// was deleted) is verified by the admin.
func (s *Server) verifyQuestion(w http.ResponseWriter, rq *request) {
	seq, err := strconv.ParseUint(rq.r.PathValue("seq"), 10, 64)
	c, cerr := s.cfg.Store.ChangeAt(rq.ctx, seq)
	if err != nil || cerr != nil || c.Question == nil || c.Question.Platform != rq.id.Platform || c.Question.Workspace != rq.id.Workspace {
		if cerr != nil && !errors.Is(cerr, ontology.ErrNotFound) {
			s.storeFailed(w, rq, cerr)
			return
		}
		s.fail(w, rq.r, rq, http.StatusNotFound, "There is no such question in this workspace.")
		return
	}
	q := c.Question
	if q.Outcome != "confirmed" || len(q.SQL) == 0 {
		s.fail(w, rq.r, rq, http.StatusConflict, "Only an answer its asker marked correct can become a verified query.")
		return
	}
	if msg := s.checkVerified(rq.ctx, q.Warehouse, lastSQL(q)); msg != "" {
		s.fail(w, rq.r, rq, http.StatusConflict, msg)
		return
	}
	phrase := qnorm.Question(q.Question)
	facts, err := s.cfg.Store.List(rq.ctx, ontology.Filter{Owner: q.User, Warehouse: q.Warehouse, Phrase: phrase, IncludeInactive: true})
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	var src ontology.Fact
	for _, f := range facts {
		if f.Scope == ontology.ScopeUser && f.Kind == ontology.KindQuery && f.Target.Choice.Expr == lastSQL(q) {
			src = f
		}
	}
	if src.ID == "" {
		// The person's kept answer is gone (forgotten, or another answer
		// kept since): keep this one again, as marking it correct did.
		src, err = s.cfg.Store.Learn(rq.ctx, ontology.Fact{
			Scope: ontology.ScopeUser, Owner: q.User, Warehouse: q.Warehouse, Phrase: phrase, Kind: ontology.KindQuery,
			Question: q.Question, Meaning: "Answer marked correct: " + q.Question,
			Target: ontology.Target{Slot: "query", Choice: ontology.Term{Kind: ontology.TermSQL, Expr: lastSQL(q)}},
		})
		if err != nil {
			s.storeFailed(w, rq, err)
			return
		}
	}
	nf, err := s.cfg.Store.Verify(rq.ctx, src.ID, rq.id.WorkspaceKey(), rq.id.User, rq.actor)
	if err != nil {
		if errors.Is(err, ontology.ErrInvalid) {
			s.fail(w, rq.r, rq, http.StatusConflict, "The answer could not be verified: "+err.Error())
			return
		}
		s.storeFailed(w, rq, err)
		return
	}
	s.log.Info("answer verified from the admin console", "fact", nf.ID, "question", q.Question, "user", rq.id.UserKey(), "from", rq.from)
	http.Redirect(w, rq.r, fmt.Sprintf("%s/questions?notice=verified&q=%s", s.cfg.Prefix, url.QueryEscape(q.Question)), http.StatusSeeOther)
}

func phraseQuery(wh, phrase string) string {
	return url.Values{"warehouse": {wh}, "phrase": {phrase}}.Encode()
}

// checkVerified runs a query about to become a verified one through the
// warehouse's guarded, access-checked path, as any statement: it was
// answered for its asker, whose access level may see more than the rest
// of the workspace it is verified for. "" when it passes, else why not.
func (s *Server) checkVerified(ctx context.Context, warehouseName, sql string) string {
	wh, ok := s.cfg.Warehouses[warehouseName]
	if !ok {
		return fmt.Sprintf("The warehouse %q is not served by this bot, so its answer cannot be checked.", warehouseName)
	}
	_, err := wh.Query(ctx, sql, warehouse.Limits{MaxRows: 1})
	switch {
	case err == nil:
		return ""
	case warehouse.KindOfError(err) == warehouse.KindAccessDenied:
		return "This answer can't become a verified query: the warehouse's privileges refuse what it reads to the workspace's default access level."
	}
	if r, ok := sqlguard.Refused(err); ok && r.Kind == sqlguard.KindAccess {
		return "This answer can't become a verified query: the access rules refuse it for the workspace (" + r.Reason + ")."
	}
	return "This answer can't become a verified query: it does not run now (" + err.Error() + ")."
}
