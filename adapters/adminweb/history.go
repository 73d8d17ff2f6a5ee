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
	Note      string
	Diff      []diffRow
	// Load: the summary of a glossary load (rolled back as a whole);
	// LoadFacts counts its changes in this workspace.
	Load      bool
	LoadFacts int
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
	var rows []changeView
	for _, c := range changes {
		v := changeView{Seq: c.Seq, At: c.At, Actor: c.Actor, Via: c.Via, Action: c.Action, Note: c.Note, Undoes: c.Undoes}
		if c.Undoes != 0 {
			undone[c.Undoes] = c.Seq
		}
		if c.FactID == "" && c.Action == ontology.ActionGlossary {
			mine, err := s.loadInWorkspace(rq, c)
			if err != nil {
				s.storeFailed(w, rq, err)
				return
			}
			if len(mine) == 0 && c.Actor != rq.id.Key() {
				continue // another workspace's load
			}
			v.Load, v.LoadFacts, v.Phrase = true, len(mine), c.Source
		} else {
			f := factOf(c.AuditEntry)
			v.Phrase, v.Warehouse, v.Scope, v.Owner = f.Phrase, f.Warehouse, string(f.Scope), rq.id.Local(f.Owner)
			if v.Owner == "" {
				v.Owner = "the workspace"
			}
			v.Diff = diff(c.AuditEntry, rq.id)
			v.CanRollBack = true
		}
		rows = append(rows, v)
	}
	for i := range rows {
		rows[i].RolledBackBy = undone[rows[i].Seq]
	}
	s.renderAs(w, rq.r, rq, http.StatusOK, "history", page{Title: "History", Nav: "history", Data: map[string]any{
		"Rows": rows, "More": more, "Phrase": phrase,
	}})
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
	s.revert(w, rq, []uint64{c.Seq}, factOf(c.AuditEntry).Phrase)
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
	s.revert(w, rq, seqs, "")
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

func (s *Server) revert(w http.ResponseWriter, rq *request, seqs []uint64, phrase string) {
	_, err := s.cfg.Store.Revert(rq.ctx, seqs, rq.actor, func(f ontology.Fact) bool { return rq.id.Has(f.Owner) })
	switch {
	case errors.Is(err, ontology.ErrConflict), errors.Is(err, ontology.ErrInvalid):
		msg := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "roll back: "), ": "+ontology.ErrConflict.Error())
		s.fail(w, rq.r, rq, http.StatusConflict, "Nothing was rolled back: "+msg+".")
		return
	case errors.Is(err, ontology.ErrForbidden):
		s.fail(w, rq.r, rq, http.StatusNotFound, "There is no such change in this workspace.")
		return
	case err != nil:
		s.storeFailed(w, rq, err)
		return
	}
	s.log.Info("rolled back from the admin console", "changes", seqs, "user", rq.id.Key(), "from", rq.from)
	target := s.cfg.Prefix + "/history?notice=rolledback"
	if phrase != "" {
		target += "&phrase=" + url.QueryEscape(phrase)
	}
	http.Redirect(w, rq.r, target, http.StatusSeeOther)
}
