package adminweb

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/ontology"
)

// diffRow is one field of a change: what it was and what it became.
type diffRow struct {
	Field, Before, After string
}

// changeView is one entry of the history.
type changeView struct {
	Seq       uint64
	At        time.Time
	Actor     string
	Via       string
	Action    string
	Phrase    string
	Warehouse string
	Scope     string
	Owner     string
	Kind      string
	// Whose words the owner: "the team's", "#C1's", "U2's".
	Whose string
	Note  string
	Diff  []diffRow
	// Load: the summary of a glossary load (rolled back as a whole);
	// LoadFacts counts its changes in this workspace.
	Load      bool
	LoadFacts int
	// Items are a load's changes here, folded under it.
	Items []changeView
	// CanRollBack: a fact change of this workspace.
	CanRollBack bool
	// RolledBackBy is the number of the roll back that undid it, when on
	// this page.
	RolledBackBy uint64
	Undoes       uint64
}

// factFields are the fields a diff shows, in order.
func factFields(f *ontology.Fact, id Identity) []string {
	if f == nil {
		return make([]string, 8)
	}
	st := factStats(*f)
	return []string{f.Phrase, string(f.Kind), string(f.Scope), id.Local(f.Owner), f.Meaning, f.Target.Summary(), sourceOf(*f), fmt.Sprintf("%d confirmed, %d overruled, %d uses", st.Confirmed, st.Overruled, st.Uses)}
}

var fieldNames = []string{"phrase", "kind", "scope", "owner", "meaning", "target", "source", "counts"}

// diff lists the fields a change touched (every field of a created or
// deleted fact).
func diff(e ontology.AuditEntry, id Identity) []diffRow {
	b, a := factFields(e.Before, id), factFields(e.After, id)
	var out []diffRow
	for i, name := range fieldNames {
		if name == "counts" && (e.Before == nil || e.After == nil) {
			continue // a new or deleted fact: its counts say nothing
		}
		if b[i] != a[i] {
			if name == "owner" && (b[i] == "" || a[i] == "") && (e.Before == nil || e.After == nil) {
				// The workspace itself is the owner "": say so.
				if b[i] == "" && e.Before != nil {
					b[i] = "the workspace"
				}
				if a[i] == "" && e.After != nil {
					a[i] = "the workspace"
				}
			}
			out = append(out, diffRow{Field: name, Before: b[i], After: a[i]})
		}
	}
	return out
}

// inWorkspace says whether a change is about the workspace's facts.
func inWorkspace(id Identity, c ontology.Change) bool {
	for _, f := range []*ontology.Fact{c.Before, c.After} {
		if f != nil && id.Has(f.Owner) {
			return true
		}
	}
	return false
}

// loadInWorkspace counts a glossary load's changes to the workspace.
func (s *Server) loadInWorkspace(rq *request, c ontology.Change) ([]ontology.Change, error) {
	changes, err := s.cfg.Store.LoadChanges(rq.ctx, c.Seq)
	if err != nil {
		return nil, err
	}
	var mine []ontology.Change
	for _, ch := range changes {
		if inWorkspace(rq.id, ch) {
			mine = append(mine, ch)
		}
	}
	return mine, nil
}

const historyPerPage = 50

func (s *Server) historyPage(w http.ResponseWriter, rq *request) {
	qv := rq.r.URL.Query()
	before, _ := strconv.ParseUint(qv.Get("before"), 10, 64)
	phrase := ontology.NormalizePhrase(qv.Get("phrase"))
	changes, err := s.cfg.Store.History(rq.ctx, ontology.HistoryFilter{Before: before, Limit: historyPerPage + 1, Keep: func(c ontology.Change) bool {
		if c.FactID == "" && c.Action == ontology.ActionGlossary {
			return phrase == ""
		}
		return inWorkspace(rq.id, c) && (phrase == "" || phraseOf(c) == phrase)
	}})
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	more := ""
	if len(changes) > historyPerPage {
		changes = changes[:historyPerPage]
		more = fmt.Sprintf("?before=%d", changes[len(changes)-1].Seq)
		if phrase != "" {
			more += "&phrase=" + url.QueryEscape(phrase)
		}
	}
	undone := map[uint64]uint64{}
	folded := map[uint64]bool{}
	var rows []changeView
	for _, c := range changes {
		if folded[c.Seq] {
			continue // shown under its glossary load
		}
		if c.Undoes != 0 {
			undone[c.Undoes] = c.Seq
		}
		if c.FactID == "" && c.Action == ontology.ActionGlossary {
			mine, err := s.loadInWorkspace(rq, c)
			if err != nil {
				s.storeFailed(w, rq, err)
				return
			}
			if len(mine) == 0 && c.Actor != rq.id.UserKey() {
				continue // another workspace's load
			}
			v := changeView{Seq: c.Seq, At: c.At, Actor: c.Actor, Via: c.Via, Action: c.Action, Note: c.Note, Load: true, LoadFacts: len(mine), Phrase: string(c.Source)}
			for _, ch := range mine {
				folded[ch.Seq] = true
				v.Items = append(v.Items, s.factChange(rq, ch))
			}
			rows = append(rows, v)
			continue
		}
		rows = append(rows, s.factChange(rq, c))
	}
	for i := range rows {
		rows[i].RolledBackBy = undone[rows[i].Seq]
	}
	s.renderAs(w, rq.r, rq, http.StatusOK, "history", page{Title: "History", Nav: "history", Data: map[string]any{
		"Rows": rows, "More": more, "Phrase": phrase,
	}})
}

// factChange is a change of one fact as the history shows it.
func (s *Server) factChange(rq *request, c ontology.Change) changeView {
	f := factOf(c.AuditEntry)
	v := changeView{Seq: c.Seq, At: c.At, Actor: c.Actor, Via: c.Via, Action: c.Action, Note: c.Note, Undoes: c.Undoes,
		Phrase: f.Phrase, Warehouse: f.Warehouse, Scope: string(f.Scope), Owner: rq.id.Local(f.Owner), Kind: string(f.Kind),
		Diff: diff(c.AuditEntry, rq.id), CanRollBack: true}
	switch f.Scope {
	case ontology.ScopeWorkspace:
		v.Whose = "the team's"
	case ontology.ScopeChannel:
		v.Whose = "#" + v.Owner + "'s"
	default:
		v.Whose = v.Owner + "'s"
	}
	return v
}

func factOf(e ontology.AuditEntry) ontology.Fact {
	if e.After != nil {
		return *e.After
	}
	if e.Before != nil {
		return *e.Before
	}
	return ontology.Fact{}
}

func phraseOf(c ontology.Change) string { return factOf(c.AuditEntry).Phrase }

// rollback undoes one change of this workspace's facts.
func (s *Server) rollback(w http.ResponseWriter, rq *request) {
	c, ok := s.changeOf(w, rq)
	if !ok {
		return
	}
	if !inWorkspace(rq.id, c) {
		s.fail(w, rq.r, rq, http.StatusNotFound, "There is no such change in this workspace.")
		return
	}
	seqs := []uint64{c.Seq}
	if rq.r.PostFormValue("with_later") != "" {
		later, err := s.laterChanges(rq, c)
		if err != nil {
			s.storeFailed(w, rq, err)
			return
		}
		seqs = append(seqs, later...)
	}
	s.revert(w, rq, seqs, factOf(c.AuditEntry).Phrase, c)
}

// laterChanges are the changes made to the same fact after c.
func (s *Server) laterChanges(rq *request, c ontology.Change) ([]uint64, error) {
	later, err := s.cfg.Store.History(rq.ctx, ontology.HistoryFilter{Limit: 100, Keep: func(x ontology.Change) bool {
		return x.Seq > c.Seq && x.FactID == c.FactID && inWorkspace(rq.id, x)
	}})
	if err != nil {
		return nil, err
	}
	seqs := make([]uint64, len(later))
	for i, x := range later {
		seqs[i] = x.Seq
	}
	return seqs, nil
}

// rollbackLoad undoes a glossary load's changes to this workspace (other
// workspaces' copies of the same load are theirs to roll back).
func (s *Server) rollbackLoad(w http.ResponseWriter, rq *request) {
	c, ok := s.changeOf(w, rq)
	if !ok {
		return
	}
	if c.Action != ontology.ActionGlossary || c.FactID != "" {
		s.fail(w, rq.r, rq, http.StatusBadRequest, "That change is not a glossary load.")
		return
	}
	mine, err := s.loadInWorkspace(rq, c)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	if len(mine) == 0 {
		s.fail(w, rq.r, rq, http.StatusNotFound, "That glossary load changed nothing in this workspace.")
		return
	}
	seqs := make([]uint64, len(mine))
	for i, ch := range mine {
		seqs[i] = ch.Seq
	}
	s.revert(w, rq, seqs, "", ontology.Change{})
}

func (s *Server) changeOf(w http.ResponseWriter, rq *request) (ontology.Change, bool) {
	seq, err := strconv.ParseUint(rq.r.PathValue("seq"), 10, 64)
	if err != nil {
		s.fail(w, rq.r, rq, http.StatusNotFound, "There is no such change in this workspace.")
		return ontology.Change{}, false
	}
	c, err := s.cfg.Store.ChangeAt(rq.ctx, seq)
	if errors.Is(err, ontology.ErrNotFound) || err == nil && c.Action == ontology.ActionQuestion {
		s.fail(w, rq.r, rq, http.StatusNotFound, "There is no such change in this workspace.")
		return ontology.Change{}, false
	}
	if err != nil {
		s.storeFailed(w, rq, err)
		return ontology.Change{}, false
	}
	return c, true
}

// revert rolls seqs back; one is the change asked for when it is a single
// fact's change (a conflict then offers to roll back its later changes too).
func (s *Server) revert(w http.ResponseWriter, rq *request, seqs []uint64, phrase string, one ontology.Change) {
	_, err := s.cfg.Store.Revert(rq.ctx, seqs, rq.actor, func(f ontology.Fact) bool { return rq.id.Has(f.Owner) })
	switch {
	case errors.Is(err, ontology.ErrConflict), errors.Is(err, ontology.ErrInvalid):
		msg := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "roll back: "), ": "+ontology.ErrConflict.Error())
		data := map[string]any{}
		if one.FactID != "" && errors.Is(err, ontology.ErrConflict) {
			if later, lerr := s.laterChanges(rq, one); lerr == nil && len(later) > 0 {
				data = map[string]any{"Seq": one.Seq, "Later": len(later), "Phrase": phrase}
			}
		}
		s.renderAs(w, rq.r, rq, http.StatusConflict, "conflict", page{Title: "Not rolled back", Nav: "history", Error: "Nothing was rolled back: " + msg + ".", Data: data})
		return
	case errors.Is(err, ontology.ErrForbidden):
		s.fail(w, rq.r, rq, http.StatusNotFound, "There is no such change in this workspace.")
		return
	case err != nil:
		s.storeFailed(w, rq, err)
		return
	}
	s.log.Info("rolled back from the admin console", "changes", seqs, "user", rq.id.UserKey(), "from", rq.from)
	target := s.cfg.Prefix + "/history?notice=rolledback"
	if phrase != "" {
		target += "&phrase=" + url.QueryEscape(phrase)
	}
	http.Redirect(w, rq.r, target, http.StatusSeeOther)
}
