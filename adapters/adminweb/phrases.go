package adminweb

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/ontology"
)

// stats is what the console counts for a fact. It reads the fact's
// counters in this one place, so that a new counter (a separate "not what
// I meant" count) is picked up here.
type stats struct {
	Uses, Overruled, Confirmed int
}

func factStats(f ontology.Fact) stats {
	return stats{Uses: f.Uses, Overruled: f.Rejections, Confirmed: f.Confirmations}
}

// meaningKey identifies a meaning across people: the kind of decision and
// what was chosen (not what it was chosen over, which depends on the
// question that taught it).
func meaningKey(f ontology.Fact) string {
	return string(f.Kind) + "\x00" + f.Target.Slot + "\x00" + f.Target.Arg + "\x00" + f.Target.Choice.SQL() + "\x00" + f.Target.Choice.Subject
}

// workspace is one workspace's knowledge: its facts (every scope, active
// or not) and its recent question records.
type workspace struct {
	id      Identity
	facts   []ontology.Fact
	records []ontology.Change
	byID    map[string]ontology.Fact
}

// load reads the workspace's facts and, with questions, its question
// records of the last QuestionDays days.
func (s *Server) load(ctx context.Context, id Identity, questions bool) (*workspace, error) {
	all, err := s.cfg.Store.List(ctx, ontology.Filter{IncludeInactive: true})
	if err != nil {
		return nil, err
	}
	ws := &workspace{id: id, byID: map[string]ontology.Fact{}}
	for _, f := range all {
		if id.Has(f.Owner) {
			ws.facts = append(ws.facts, f)
			ws.byID[f.ID] = f
		}
	}
	if questions {
		ws.records, err = s.questionRecords(ctx, id, 0, 5000, nil)
		if err != nil {
			return nil, err
		}
	}
	return ws, nil
}

// questionRecords reads the workspace's question records, newest first.
func (s *Server) questionRecords(ctx context.Context, id Identity, before uint64, limit int, keep func(*ontology.QuestionRecord) bool) ([]ontology.Change, error) {
	since := s.cfg.Now().Add(-time.Duration(s.cfg.QuestionDays) * 24 * time.Hour)
	return s.cfg.Store.History(ctx, ontology.HistoryFilter{Questions: true, Before: before, Limit: limit, Keep: func(c ontology.Change) bool {
		q := c.Question
		return q != nil && q.Platform == id.Platform && q.Workspace == id.Workspace && !c.At.Before(since) && (keep == nil || keep(q))
	}})
}

// meaningView is one meaning of a phrase held by one or more owners.
type meaningView struct {
	Key     string
	Kind    string
	Meaning string
	Target  string
	// Source: "glossary NAME", "promoted" or "".
	Source string
	Owners []string
	// Holders are the owners whose fact of it is active; the others said
	// "not what I meant" as often as they confirmed it.
	Holders []string
	FactIDs []string
	stats
	Inactive bool
	Latest   time.Time
}

type channelView struct {
	Channel  string
	Meanings []meaningView
}

type conflictView struct {
	Channel string
	// Meanings are "net revenue (ana, ben)".
	Meanings []string
}

// phraseView is everything known about one phrase in one warehouse.
type phraseView struct {
	Warehouse, Phrase string
	Team              []meaningView
	Channels          []channelView
	People            []meaningView
	Conflicts         []conflictView
	// Questions counts recent questions it decided without asking.
	Questions int
	stats
	Proposal string
}

func sourceOf(f ontology.Fact) string {
	switch {
	case f.FromGlossary():
		return "glossary " + f.Source.Glossary()
	case f.VerifiedBy != "":
		return "verified by " + f.VerifiedBy
	case f.PromotedFrom != "":
		return "promoted"
	}
	return ""
}

// addMeaning adds f to the meanings list, grouping by meaning.
func addMeaning(list []meaningView, f ontology.Fact, owner string) []meaningView {
	k := meaningKey(f)
	i := slices.IndexFunc(list, func(m meaningView) bool { return m.Key == k })
	if i < 0 {
		list = append(list, meaningView{Key: k, Kind: string(f.Kind), Meaning: f.Meaning, Target: f.Target.Summary(), Source: sourceOf(f), Inactive: true})
		i = len(list) - 1
	}
	m := &list[i]
	if !slices.Contains(m.Owners, owner) {
		m.Owners = append(m.Owners, owner)
	}
	m.FactIDs = append(m.FactIDs, f.ID)
	st := factStats(f)
	m.Uses += st.Uses
	m.Overruled += st.Overruled
	m.Confirmed += st.Confirmed
	if f.Active() {
		m.Inactive = false
		if !slices.Contains(m.Holders, owner) {
			m.Holders = append(m.Holders, owner)
		}
	}
	if f.LastUsed.After(m.Latest) {
		m.Latest = f.LastUsed
	}
	if m.Meaning == "" {
		m.Meaning = f.Meaning
	}
	return list
}

// phrases groups the workspace's knowledge by warehouse and phrase.
func (ws *workspace) phrases() []*phraseView {
	idx := map[[2]string]*phraseView{}
	var out []*phraseView
	get := func(wh, phrase string) *phraseView {
		k := [2]string{wh, phrase}
		if p, ok := idx[k]; ok {
			return p
		}
		p := &phraseView{Warehouse: wh, Phrase: phrase}
		idx[k] = p
		out = append(out, p)
		return p
	}
	for _, f := range ws.facts {
		if f.Kind == ontology.KindQuery {
			continue // verified and kept answers: see verifiedQueries
		}
		p := get(f.Warehouse, f.Phrase)
		st := factStats(f)
		p.Uses += st.Uses
		p.Overruled += st.Overruled
		local := ws.id.Local(f.Owner)
		switch f.Scope {
		case ontology.ScopeWorkspace:
			p.Team = addMeaning(p.Team, f, "team")
		case ontology.ScopeChannel:
			i := slices.IndexFunc(p.Channels, func(c channelView) bool { return c.Channel == local })
			if i < 0 {
				p.Channels = append(p.Channels, channelView{Channel: local})
				i = len(p.Channels) - 1
			}
			p.Channels[i].Meanings = addMeaning(p.Channels[i].Meanings, f, local)
		case ontology.ScopeUser:
			p.People = addMeaning(p.People, f, local)
		}
	}
	for _, r := range ws.records {
		for _, u := range r.Question.FactsUsed {
			if p, ok := idx[[2]string{r.Question.Warehouse, u.Phrase}]; ok {
				p.Questions++
			}
		}
	}
	ws.conflicts(idx)
	for _, p := range out {
		slices.SortStableFunc(p.People, func(a, b meaningView) int { return cmp.Compare(len(b.Holders), len(a.Holders)) })
	}
	slices.SortFunc(out, func(a, b *phraseView) int {
		return cmp.Or(strings.Compare(a.Phrase, b.Phrase), strings.Compare(a.Warehouse, b.Warehouse))
	})
	return out
}

// conflicts flags phrases that mean different things in one channel: the
// channel's own meaning and the meanings of the people who asked there
// (each of one kind of decision) are not all the same.
func (ws *workspace) conflicts(idx map[[2]string]*phraseView) {
	askers := map[string][]string{} // channel → user keys, in order of first question
	for _, r := range ws.records {
		q := r.Question
		if q.Channel == "" {
			continue
		}
		if !slices.Contains(askers[q.Channel], q.User) {
			askers[q.Channel] = append(askers[q.Channel], q.User)
		}
	}
	userFacts := map[string][]ontology.Fact{}
	for _, f := range ws.facts {
		if f.Scope == ontology.ScopeUser && f.Active() {
			userFacts[f.Owner] = append(userFacts[f.Owner], f)
		}
	}
	channels := make([]string, 0, len(askers))
	for c := range askers {
		channels = append(channels, c)
	}
	slices.Sort(channels)
	for _, ch := range channels {
		type holder struct {
			label string
			who   []string
		}
		// warehouse, phrase, kind → meaning key → holders
		seen := map[[3]string]map[string]*holder{}
		var order [][3]string
		add := func(f ontology.Fact, who string) {
			k := [3]string{f.Warehouse, f.Phrase, string(f.Kind)}
			if seen[k] == nil {
				seen[k] = map[string]*holder{}
				order = append(order, k)
			}
			mk := meaningKey(f)
			h := seen[k][mk]
			if h == nil {
				h = &holder{label: cmp.Or(f.Meaning, f.Target.Summary())}
				seen[k][mk] = h
			}
			if !slices.Contains(h.who, who) {
				h.who = append(h.who, who)
			}
		}
		chKey := ws.id.InWorkspace(ch)
		for _, f := range ws.facts {
			if f.Scope == ontology.ScopeChannel && f.Owner == chKey && f.Active() {
				add(f, "the channel")
			}
		}
		for _, u := range askers[ch] {
			for _, f := range userFacts[u] {
				add(f, ws.id.Local(u))
			}
		}
		for _, k := range order {
			if len(seen[k]) < 2 {
				continue
			}
			p := idx[[2]string{k[0], k[1]}]
			if p == nil {
				continue
			}
			c := conflictView{Channel: ch}
			for _, h := range seen[k] {
				c.Meanings = append(c.Meanings, fmt.Sprintf("%s (%s)", h.label, strings.Join(h.who, ", ")))
			}
			slices.Sort(c.Meanings)
			p.Conflicts = append(p.Conflicts, c)
		}
	}
}

// verifiedView is a verified query of the workspace.
type verifiedView struct {
	Warehouse, Question, SQL, By, Source string
	stats
}

// verifiedQueries lists the workspace's verified queries.
func (ws *workspace) verifiedQueries(q string) []verifiedView {
	q = strings.ToLower(strings.TrimSpace(q))
	var out []verifiedView
	for _, f := range ws.facts {
		if f.Kind != ontology.KindQuery || f.Scope != ontology.ScopeWorkspace {
			continue
		}
		v := verifiedView{Warehouse: f.Warehouse, Question: cmp.Or(f.Question, f.Meaning), SQL: f.Target.Choice.Expr, By: f.VerifiedBy, Source: sourceOf(f), stats: factStats(f)}
		if q != "" && !strings.Contains(strings.ToLower(v.Question), q) && !strings.Contains(strings.ToLower(v.SQL), q) {
			continue
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b verifiedView) int { return strings.Compare(a.Question, b.Question) })
	return out
}

// matches says whether a phrase is found by a search: its words, or any
// meaning's wording or target.
func (p *phraseView) matches(q string) bool {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" || strings.Contains(p.Phrase, q) {
		return true
	}
	for _, list := range [][]meaningView{p.Team, p.People} {
		for _, m := range list {
			if strings.Contains(strings.ToLower(m.Meaning), q) || strings.Contains(strings.ToLower(m.Target), q) {
				return true
			}
		}
	}
	for _, c := range p.Channels {
		for _, m := range c.Meanings {
			if strings.Contains(strings.ToLower(m.Meaning), q) {
				return true
			}
		}
	}
	return false
}

func (s *Server) warehouseNames() []string {
	names := make([]string, 0, len(s.cfg.Warehouses))
	for n := range s.cfg.Warehouses {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (s *Server) phrasesPage(w http.ResponseWriter, rq *request) {
	ws, err := s.load(rq.ctx, rq.id, true)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	qv := rq.r.URL.Query()
	q, wh, onlyConflicts := qv.Get("q"), qv.Get("warehouse"), qv.Get("conflicts") != ""
	props, err := s.proposals(rq.ctx, ws)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	var rows []*phraseView
	conflicted := 0
	for _, p := range ws.phrases() {
		if len(p.Conflicts) > 0 {
			conflicted++
		}
		if (wh != "" && p.Warehouse != wh) || !p.matches(q) || (onlyConflicts && len(p.Conflicts) == 0) {
			continue
		}
		for _, pr := range props {
			if pr.Warehouse == p.Warehouse && pr.Phrase == p.Phrase {
				p.Proposal = pr.Key
			}
		}
		rows = append(rows, p)
	}
	s.renderAs(w, rq.r, rq, http.StatusOK, "phrases", page{Title: "Phrases", Nav: "phrases", Data: map[string]any{
		"Rows": rows, "Q": q, "Warehouse": wh, "Conflicts": onlyConflicts, "Conflicted": conflicted, "Verified": ws.verifiedQueries(q),
		"Warehouses": s.warehouseNames(), "Proposals": len(props), "Facts": len(ws.facts),
	}})
}

func (s *Server) phrasePage(w http.ResponseWriter, rq *request) {
	qv := rq.r.URL.Query()
	wh, phrase := qv.Get("warehouse"), ontology.NormalizePhrase(qv.Get("phrase"))
	ws, err := s.load(rq.ctx, rq.id, true)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	var view *phraseView
	for _, p := range ws.phrases() {
		if p.Warehouse == wh && p.Phrase == phrase {
			view = p
		}
	}
	if view == nil {
		s.fail(w, rq.r, rq, http.StatusNotFound, fmt.Sprintf("This workspace has no meaning of %q in %q.", phrase, wh))
		return
	}
	props, err := s.proposals(rq.ctx, ws)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	var mine []*proposal
	for _, p := range props {
		if p.Warehouse == wh && p.Phrase == phrase {
			mine = append(mine, p)
		}
	}
	var applied []questionView
	for _, r := range ws.records {
		if r.Question.Warehouse != wh || !slices.ContainsFunc(r.Question.FactsUsed, func(u ontology.FactUse) bool { return u.Phrase == phrase }) {
			continue
		}
		applied = append(applied, s.questionView(rq.id, r, ws))
		if len(applied) == 20 {
			break
		}
	}
	s.renderAs(w, rq.r, rq, http.StatusOK, "phrase", page{Title: "“" + phrase + "”", Nav: "phrases", Data: map[string]any{
		"P": view, "Proposals": mine, "Applied": applied,
	}})
}

// storeFailed is the page of a store that could not be read or written.
func (s *Server) storeFailed(w http.ResponseWriter, rq *request, err error) {
	s.log.Error("admin console store error", "user", rq.id.UserKey(), "path", rq.r.URL.Path, "err", err)
	s.fail(w, rq.r, rq, http.StatusInternalServerError, "The bot's store could not be read or changed just now; the details are in the bot's log. Nothing was changed.")
}
