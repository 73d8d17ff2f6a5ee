package adminweb

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/ontology"
)

// proposal is a meaning several people chose on their own, that nobody
// contradicted lately: a candidate for the team's definition.
type proposal struct {
	Key                     string
	Warehouse, Phrase, Kind string
	Meaning, Target         string
	// People hold the meaning (their user facts); Latest is the newest of
	// those facts.
	People  []string
	FactIDs []string
	stats
	Latest time.Time
	// Team is the team's current definition of the phrase, when it has
	// another; Others are people who chose differently, longer ago than
	// the window.
	Team   string
	Others []string
	// fact is the supporters' most recently used fact, the one promoted.
	fact ontology.Fact
}

// proposalKey names a proposal stably across requests and replicas.
func proposalKey(ws Identity, f ontology.Fact) string {
	sum := sha256.Sum256([]byte(ws.WorkspaceKey() + "\x00" + f.Warehouse + "\x00" + f.Phrase + "\x00" + meaningKey(f)))
	return hex.EncodeToString(sum[:8])
}

// proposals finds the workspace's agreement proposals: for each phrase
// and kind of decision, a meaning held (active) by at least ProposalPeople
// people, when nobody used another meaning of it within ProposalWindow,
// the team does not already have it, and no admin dismissed it at its
// present support. Verified queries are promoted from the Questions page
// instead.
func (s *Server) proposals(ctx context.Context, ws *workspace) ([]*proposal, error) {
	dismissed, err := s.state.dismissals(ctx)
	if err != nil {
		return nil, err
	}
	since := s.cfg.Now().Add(-s.cfg.ProposalWindow)
	type slot struct{ wh, phrase, kind string }
	users := map[slot][]ontology.Fact{}
	team := map[slot]ontology.Fact{}
	var order []slot
	for _, f := range ws.facts {
		if f.Kind == ontology.KindQuery {
			continue
		}
		k := slot{f.Warehouse, f.Phrase, string(f.Kind)}
		switch f.Scope {
		case ontology.ScopeUser:
			if _, ok := users[k]; !ok {
				order = append(order, k)
			}
			users[k] = append(users[k], f)
		case ontology.ScopeWorkspace:
			team[k] = f
		}
	}
	var out []*proposal
	for _, k := range order {
		byMeaning := map[string][]ontology.Fact{}
		var meanings []string
		for _, f := range users[k] {
			if !f.Active() {
				continue
			}
			mk := meaningKey(f)
			if _, ok := byMeaning[mk]; !ok {
				meanings = append(meanings, mk)
			}
			byMeaning[mk] = append(byMeaning[mk], f)
		}
		for _, mk := range meanings {
			holders := byMeaning[mk]
			if len(holders) < s.cfg.ProposalPeople {
				continue
			}
			t, hasTeam := team[k]
			if hasTeam && meaningKey(t) == mk {
				continue
			}
			recentOther := false
			var others []string
			for _, other := range meanings {
				if other == mk {
					continue
				}
				for _, f := range byMeaning[other] {
					others = append(others, ws.id.Local(f.Owner))
					if !f.LastUsed.Before(since) || !f.Created.Before(since) {
						recentOther = true
					}
				}
			}
			if recentOther {
				continue
			}
			p := &proposal{Warehouse: k.wh, Phrase: k.phrase, Kind: k.kind, Others: others}
			for _, f := range holders {
				p.People = append(p.People, ws.id.Local(f.Owner))
				p.FactIDs = append(p.FactIDs, f.ID)
				st := factStats(f)
				p.Uses += st.Uses
				p.Overruled += st.Overruled
				p.Confirmed += st.Confirmed
				if f.LastUsed.After(p.Latest) || p.fact.ID == "" {
					p.Latest, p.fact = f.LastUsed, f
				}
			}
			p.Meaning, p.Target = cmp.Or(p.fact.Meaning, p.fact.Target.Summary()), p.fact.Target.Summary()
			p.Key = proposalKey(ws.id, p.fact)
			if hasTeam {
				p.Team = cmp.Or(t.Meaning, t.Target.Summary())
			}
			if d, ok := dismissed[p.Key]; ok && d.People >= len(p.People) {
				continue
			}
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *proposal) int {
		return cmp.Or(cmp.Compare(len(b.People), len(a.People)), strings.Compare(a.Phrase, b.Phrase))
	})
	return out, nil
}

func (s *Server) proposalsPage(w http.ResponseWriter, rq *request) {
	ws, err := s.load(rq.ctx, rq.id, false)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	props, err := s.proposals(rq.ctx, ws)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	s.renderAs(w, rq.r, rq, http.StatusOK, "proposals", page{Title: "Agreement proposals", Nav: "proposals", Data: map[string]any{
		"Proposals": props, "People": s.cfg.ProposalPeople, "Window": human(s.cfg.ProposalWindow),
	}})
}

// findProposal looks a proposal up by its key, among the workspace's.
func (s *Server) findProposal(w http.ResponseWriter, rq *request) (*workspace, *proposal, bool) {
	ws, err := s.load(rq.ctx, rq.id, false)
	if err != nil {
		s.storeFailed(w, rq, err)
		return nil, nil, false
	}
	props, err := s.proposals(rq.ctx, ws)
	if err != nil {
		s.storeFailed(w, rq, err)
		return nil, nil, false
	}
	key := rq.r.PathValue("key")
	for _, p := range props {
		if p.Key == key {
			return ws, p, true
		}
	}
	s.fail(w, rq.r, rq, http.StatusNotFound, "There is no such proposal in this workspace any more: it may have been accepted or dismissed, or people's choices changed.")
	return nil, nil, false
}

// impactRow is one recent question re-run with the proposed meaning.
type impactRow struct {
	Question, Who, Channel string
	When                   time.Time
	// Before and After word the answer then and with the proposal.
	Before, After string
	BeforeSQL     string
	AfterSQL      string
	// Verdict: "same answer", "answer changes", "no longer asks",
	// "would ask", "not re-run".
	Verdict string
	Changes bool
	// Asks: the bot would ask something else first.
	Asks bool
	// Keeps says the asker has a meaning of their own, which stays theirs.
	Keeps string
}

// impact re-runs the recent questions that used the phrase, as their
// askers with the proposal as the team's meaning and nobody's own meaning
// of the phrase (what anyone without a choice of their own would get),
// and compares the answers.
func (s *Server) impact(ctx context.Context, ws *workspace, p *proposal) []impactRow {
	wh, ok := s.cfg.Warehouses[p.Warehouse]
	records, err := s.questionRecords(ctx, ws.id, 0, s.cfg.ImpactQuestions, func(q *ontology.QuestionRecord) bool {
		return q.Warehouse == p.Warehouse && (q.Outcome == "answered" || q.Outcome == "failed") && usesPhrase(q, p.Phrase)
	})
	if err != nil {
		s.log.Warn("impact: cannot read question records", "err", err)
		return nil
	}
	proposed := p.fact
	proposed.ID, proposed.Scope, proposed.Owner, proposed.Source, proposed.PromotedFrom = "proposed", ontology.ScopeWorkspace, ws.id.WorkspaceKey(), "", p.fact.ID
	proposed.Confirmations, proposed.Rejections = 1, 0
	var out []impactRow
	for _, c := range records {
		q := c.Question
		row := impactRow{Question: q.Question, Who: ws.id.Local(q.User), Channel: q.Channel, When: c.At}
		row.Before, row.BeforeSQL = beforeOf(q), lastSQL(q)
		if !ok {
			row.Verdict, row.After = "not re-run", fmt.Sprintf("the warehouse %q is not served by this bot now", p.Warehouse)
			out = append(out, row)
			continue
		}
		owners := ontology.Owners{User: q.User, Channel: ws.id.InWorkspace(q.Channel), Workspace: ws.id.WorkspaceKey()}
		current, err := s.cfg.Store.Applicable(ctx, owners, p.Warehouse)
		if err != nil {
			row.Verdict, row.After = "not re-run", "the asker's meanings could not be read"
			out = append(out, row)
			continue
		}
		var facts []ontology.Fact
		for _, f := range current {
			if f.Phrase == p.Phrase && string(f.Kind) == p.Kind {
				if f.Scope == ontology.ScopeUser && f.Active() && meaningKey(f) != meaningKey(p.fact) {
					row.Keeps = cmp.Or(f.Meaning, f.Target.Summary())
				}
				continue
			}
			facts = append(facts, f)
		}
		facts = append(facts, proposed)
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		pv, err := wh.Preview(pctx, q.Question, facts)
		cancel()
		switch {
		case err != nil:
			row.Verdict, row.After = "not re-run", "the bot could not re-run it: "+err.Error()
		case pv.Asks != "":
			// Another question comes first (a phrase the proposal does
			// not decide): the answer depends on the reply.
			row.Verdict, row.After, row.Asks = "would ask first", pv.Asks, true
		case pv.SQL == "":
			row.Verdict, row.After = "no answer", pv.Detail
			row.Changes = row.BeforeSQL != ""
		default:
			row.AfterSQL = pv.SQL
			row.Verdict, row.After, row.Changes = s.compare(ctx, wh, row.BeforeSQL, pv.SQL)
			if row.BeforeSQL != "" && !row.Changes && askedAbout(q) {
				row.Verdict = "same answer, no longer asks"
			}
		}
		out = append(out, row)
	}
	return out
}

// usesPhrase says whether a question record involved the phrase: a fact
// of it decided the answer, the question names it, or a clarification
// asked about it.
func usesPhrase(q *ontology.QuestionRecord, phrase string) bool {
	if slices.ContainsFunc(q.FactsUsed, func(u ontology.FactUse) bool { return u.Phrase == phrase }) {
		return true
	}
	if strings.Contains(" "+ontology.NormalizePhrase(stripPunct(q.Question))+" ", " "+phrase+" ") {
		return true
	}
	return slices.ContainsFunc(q.Steps, func(st ontology.QuestionStep) bool {
		return st.Kind == "clarification" && strings.Contains(strings.ToLower(st.Asked), "'"+phrase+"'")
	})
}

func stripPunct(s string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("?!.,;:\"'()", r) {
			return ' '
		}
		return r
	}, s)
}

func askedAbout(q *ontology.QuestionRecord) bool {
	return slices.ContainsFunc(q.Steps, func(st ontology.QuestionStep) bool { return st.Kind == "clarification" })
}

func lastSQL(q *ontology.QuestionRecord) string {
	if len(q.SQL) == 0 {
		return ""
	}
	return q.SQL[len(q.SQL)-1]
}

// beforeOf words what the asker got then.
func beforeOf(q *ontology.QuestionRecord) string {
	var parts []string
	for _, st := range q.Steps {
		if st.Kind == "clarification" && st.Answer != "" {
			parts = append(parts, "chose “"+st.Answer+"”")
		}
	}
	for _, u := range q.FactsUsed {
		parts = append(parts, "used “"+cmp.Or(u.Meaning, u.Phrase)+"”")
	}
	if q.Outcome == "failed" {
		parts = append(parts, "no answer")
	}
	return strings.Join(parts, "; ")
}

// compareLimits bound the statements an impact preview runs.
var compareLimits = warehouse.Limits{MaxRows: 1000, Timeout: 20 * time.Second}

// compare runs the answer then and the answer now and words the
// difference; equal SQL is the same answer without running anything.
func (s *Server) compare(ctx context.Context, wh Warehouse, before, after string) (verdict, words string, changes bool) {
	if before == "" {
		return "now answered", "", true
	}
	if strings.TrimSpace(before) == strings.TrimSpace(after) {
		return "same answer", "", false
	}
	a, errA := wh.Query(ctx, before, compareLimits)
	b, errB := wh.Query(ctx, after, compareLimits)
	if errA != nil || errB != nil {
		return "answer changes", "the statements could not both be run to compare them", true
	}
	if sameResult(a, b) {
		return "same answer", "different SQL, same result", false
	}
	return "answer changes", describeChange(a, b), true
}

func sameResult(a, b *warehouse.Result) bool {
	if len(a.Rows) != len(b.Rows) || len(a.Columns) != len(b.Columns) {
		return false
	}
	for i := range a.Rows {
		if len(a.Rows[i]) != len(b.Rows[i]) {
			return false
		}
		for j := range a.Rows[i] {
			if fmt.Sprint(a.Rows[i][j]) != fmt.Sprint(b.Rows[i][j]) {
				return false
			}
		}
	}
	return true
}

// describeChange words two results' difference briefly: one value each
// ("7055650.75 → 10135477.81"), else the row counts.
func describeChange(a, b *warehouse.Result) string {
	one := func(r *warehouse.Result) (string, bool) {
		if len(r.Rows) == 1 && len(r.Rows[0]) == 1 {
			return cellText(r.Rows[0][0]), true
		}
		return "", false
	}
	if x, ok := one(a); ok {
		if y, ok := one(b); ok {
			return x + " → " + y
		}
	}
	return fmt.Sprintf("%s → %s", plural(len(a.Rows), "row"), plural(len(b.Rows), "row"))
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	}
	return fmt.Sprint(v)
}

func (s *Server) impactPage(w http.ResponseWriter, rq *request) {
	ws, p, ok := s.findProposal(w, rq)
	if !ok {
		return
	}
	rows := s.impact(rq.ctx, ws, p)
	changed := 0
	for _, r := range rows {
		if r.Changes {
			changed++
		}
	}
	s.renderAs(w, rq.r, rq, http.StatusOK, "impact", page{Title: "Impact of “" + p.Phrase + "”", Nav: "proposals", Data: map[string]any{
		"P": p, "Rows": rows, "Changed": changed,
	}})
}

// acceptProposal makes the meaning the team's: the supporters' latest
// fact is promoted to the workspace (its wording edited first, if the
// admin changed it).
func (s *Server) acceptProposal(w http.ResponseWriter, rq *request) {
	_, p, ok := s.findProposal(w, rq)
	if !ok {
		return
	}
	meaning := strings.TrimSpace(rq.r.PostFormValue("meaning"))
	nf, err := s.cfg.Store.Promote(rq.ctx, p.fact.ID, ontology.ScopeWorkspace, rq.id.WorkspaceKey(), rq.actor)
	if err == nil && meaning != "" && meaning != nf.Meaning {
		nf, err = s.cfg.Store.Edit(rq.ctx, nf.ID, nil, meaning, rq.actor)
	}
	if err != nil {
		if errors.Is(err, ontology.ErrInvalid) || errors.Is(err, ontology.ErrNotFound) {
			s.fail(w, rq.r, rq, http.StatusConflict, "The proposal could not be accepted: "+err.Error())
			return
		}
		s.storeFailed(w, rq, err)
		return
	}
	s.log.Info("proposal accepted", "phrase", p.Phrase, "warehouse", p.Warehouse, "fact", nf.ID, "user", rq.id.UserKey(), "from", rq.from)
	http.Redirect(w, rq.r, s.cfg.Prefix+"/phrase?"+phraseQuery(p.Warehouse, p.Phrase)+"&notice=accepted", http.StatusSeeOther)
}

func (s *Server) dismissProposal(w http.ResponseWriter, rq *request) {
	_, p, ok := s.findProposal(w, rq)
	if !ok {
		return
	}
	if err := s.state.dismiss(rq.ctx, p.Key, dismissal{By: rq.id.UserKey(), At: s.cfg.Now().UTC(), People: len(p.People)}); err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	s.log.Info("proposal dismissed", "phrase", p.Phrase, "warehouse", p.Warehouse, "user", rq.id.UserKey(), "from", rq.from)
	http.Redirect(w, rq.r, s.cfg.Prefix+"/proposals?notice=dismissed", http.StatusSeeOther)
}
