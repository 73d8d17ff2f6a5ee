package adminweb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/ontology"
)

// pastedName is the file name of a pasted glossary (its name: key, if
// any, names the load).
const pastedName = "pasted.yml"

// glossaryForm is a glossary sent to be checked or loaded.
type glossaryForm struct {
	Text, File, Warehouse string
}

// glossaryLine is one line of the sent file, with its problems.
type glossaryLine struct {
	N        int
	Text     string
	Problems []string
}

// glossaryResult is what checking (or loading) a glossary found.
type glossaryResult struct {
	Form     glossaryForm
	Problems []glossary.Problem
	Lines    []glossaryLine
	// Summary counts the entries of a glossary without problems; Notes
	// say how it will be loaded here.
	Summary string
	Notes   []string
	Loaded  *ontology.ImportStats
	Source  string
}

func (s *Server) glossaryPage(w http.ResponseWriter, rq *request) {
	s.renderAs(w, rq.r, rq, http.StatusOK, "glossary", page{Title: "Glossary", Nav: "glossary", Data: map[string]any{
		"Warehouses": s.warehouseNames(), "R": glossaryResult{},
	}})
}

// readGlossaryForm takes the uploaded file, else the pasted text.
func readGlossaryForm(r *http.Request) (glossaryForm, error) {
	f := glossaryForm{Text: r.PostFormValue("text"), File: r.PostFormValue("file_name"), Warehouse: r.PostFormValue("warehouse")}
	if r.MultipartForm != nil {
		if fh := r.MultipartForm.File["file"]; len(fh) > 0 && fh[0].Size > 0 {
			file, err := fh[0].Open()
			if err != nil {
				return f, err
			}
			defer file.Close()
			b, err := io.ReadAll(io.LimitReader(file, maxUpload))
			if err != nil {
				return f, err
			}
			f.Text, f.File = string(b), filepath.Base(fh[0].Filename)
		}
	}
	if f.File == "" {
		f.File = pastedName
	}
	f.Text = strings.ReplaceAll(f.Text, "\r\n", "\n")
	return f, nil
}

// check parses and checks a sent glossary against its warehouse; g is nil
// when it cannot be loaded.
func (s *Server) check(ctx context.Context, rq *request, f glossaryForm) (*glossary.Glossary, glossaryResult) {
	g, res := s.checkText(ctx, rq, f)
	res.Lines = numbered(f.Text, res.Problems)
	return g, res
}

func (s *Server) checkText(ctx context.Context, rq *request, f glossaryForm) (*glossary.Glossary, glossaryResult) {
	res := glossaryResult{Form: f}
	if strings.TrimSpace(f.Text) == "" {
		res.Problems = []glossary.Problem{{Line: 1, Msg: "the glossary is empty: upload a file or paste its YAML"}}
		return nil, res
	}
	g, err := glossary.Parse(f.File, []byte(f.Text))
	var ps glossary.Problems
	if errors.As(err, &ps) {
		res.Problems = ps
		return nil, res
	}
	if err != nil {
		res.Problems = []glossary.Problem{{Line: 1, Msg: err.Error()}}
		return nil, res
	}
	wh := cmp.Or(f.Warehouse, g.Warehouse)
	db, ok := s.cfg.Warehouses[wh]
	if !ok {
		msg := fmt.Sprintf("the warehouse %q is not served by this bot (warehouses: %s); pick one above", wh, strings.Join(s.warehouseNames(), ", "))
		if wh == "" {
			msg = "pick the warehouse the glossary describes"
		}
		res.Problems = []glossary.Problem{{Line: 1, Msg: msg}}
		return nil, res
	}
	res.Form.Warehouse = wh
	ps, err = checkGlossary(ctx, db, g)
	if err != nil {
		res.Problems = []glossary.Problem{{Line: 1, Msg: "the check could not finish: " + err.Error()}}
		return nil, res
	}
	// What the engines cannot use is a problem too (Check reports it; the
	// facts are built for this workspace only).
	if _, fps := glossary.Facts(g, glossary.Target{Warehouse: wh, Workspaces: []string{rq.id.WorkspaceKey()}}); len(fps) > 0 {
		for _, p := range fps {
			if !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
	}
	if len(ps) > 0 {
		slices.SortStableFunc(ps, func(a, b glossary.Problem) int { return a.Line - b.Line })
		res.Problems = ps
		return nil, res
	}
	res.Source = string(g.Source())
	res.Summary = fmt.Sprintf("%s: %d measures, %d dimensions, %d filters, %d terms, %d relationships, %d verified queries",
		g.Source(), len(g.Measures), len(g.Dimensions), len(g.Filters), len(g.Terms), len(g.Relationships), len(g.Verified))
	if g.Warehouse != "" && g.Warehouse != wh {
		res.Notes = append(res.Notes, fmt.Sprintf("The file says warehouse %q; it is loaded for %q as chosen.", g.Warehouse, wh))
	}
	if others := slices.DeleteFunc(slices.Clone(g.Workspaces), func(x string) bool { return x == rq.id.WorkspaceKey() }); len(others) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("The file also names %s: this console loads it for this workspace (%s) only.", strings.Join(others, ", "), rq.id.WorkspaceKey()))
	}
	if len(g.Relationships) > 0 {
		res.Notes = append(res.Notes, "Relationships take effect in the join graph at the bot's next start.")
	}
	return g, res
}

// checkGlossary is the warehouse check of a glossary (every expression
// compiled into a SELECT through the read-only guard), with the values of
// the columns the warehouse's access rules protect refused, as bot
// glossary check refuses them.
func checkGlossary(ctx context.Context, db Warehouse, g *glossary.Glossary) (glossary.Problems, error) {
	var o glossary.CheckOptions
	if p, ok := db.(protector); ok {
		o.Withholds = p.Withholds
	}
	return glossary.CheckWith(ctx, db, g, o)
}

// protector is a Warehouse whose access rules protect some columns.
type protector interface {
	Withholds(table, column string) bool
}

// numbered splits the text into lines with their problems.
func numbered(text string, ps []glossary.Problem) []glossaryLine {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	out := make([]glossaryLine, len(lines))
	for i, l := range lines {
		out[i] = glossaryLine{N: i + 1, Text: l}
	}
	for _, p := range ps {
		if p.Line >= 1 && p.Line <= len(out) {
			out[p.Line-1].Problems = append(out[p.Line-1].Problems, p.Msg)
		}
	}
	return out
}

func (s *Server) glossaryCheck(w http.ResponseWriter, rq *request) {
	f, err := readGlossaryForm(rq.r)
	if err != nil {
		s.fail(w, rq.r, rq, http.StatusBadRequest, "The file could not be read: "+err.Error())
		return
	}
	_, res := s.check(rq.ctx, rq, f)
	status := http.StatusOK
	if len(res.Problems) > 0 {
		status = http.StatusUnprocessableEntity
	}
	s.renderAs(w, rq.r, rq, status, "glossary", page{Title: "Glossary", Nav: "glossary", Data: map[string]any{"Warehouses": s.warehouseNames(), "R": res}})
}

// glossaryLoad checks the glossary again (never trusting the form) and
// loads it for this workspace, replacing its previous load here.
func (s *Server) glossaryLoad(w http.ResponseWriter, rq *request) {
	f, err := readGlossaryForm(rq.r)
	if err != nil {
		s.fail(w, rq.r, rq, http.StatusBadRequest, "The file could not be read: "+err.Error())
		return
	}
	g, res := s.check(rq.ctx, rq, f)
	if g == nil {
		s.renderAs(w, rq.r, rq, http.StatusUnprocessableEntity, "glossary", page{Title: "Glossary", Nav: "glossary", Error: "The glossary was not loaded: it has problems.", Data: map[string]any{"Warehouses": s.warehouseNames(), "R": res}})
		return
	}
	ws := rq.id.WorkspaceKey()
	facts, _ := glossary.Facts(g, glossary.Target{Warehouse: res.Form.Warehouse, Workspaces: []string{ws}})
	st, err := s.cfg.Store.ReplaceSourceFor(rq.ctx, g.Source(), []string{ws}, facts, rq.actor)
	if err != nil {
		if errors.Is(err, ontology.ErrInvalid) {
			s.fail(w, rq.r, rq, http.StatusUnprocessableEntity, "The glossary was not loaded: "+err.Error())
			return
		}
		s.storeFailed(w, rq, err)
		return
	}
	s.log.Info("glossary loaded from the admin console", "source", g.Source(), "warehouse", res.Form.Warehouse, "workspace", ws, "added", st.Added, "updated", st.Updated, "removed", st.Removed, "user", rq.id.UserKey(), "from", rq.from)
	res.Loaded = &st
	s.renderAs(w, rq.r, rq, http.StatusOK, "glossary", page{Title: "Glossary", Nav: "glossary",
		Notice: fmt.Sprintf("%s loaded for %s: %d added, %d updated, %d unchanged, %d removed.", g.Source(), ws, st.Added, st.Updated, st.Skipped, st.Removed),
		Data:   map[string]any{"Warehouses": s.warehouseNames(), "R": glossaryResult{}}})
}

// glossaryDownload writes the workspace's team knowledge of a warehouse
// as a glossary file that loads back as the same facts.
func (s *Server) glossaryDownload(w http.ResponseWriter, rq *request) {
	wh := rq.r.URL.Query().Get("warehouse")
	ws := rq.id.WorkspaceKey()
	facts, err := s.cfg.Store.List(rq.ctx, ontology.Filter{Scope: ontology.ScopeWorkspace, Owner: ws, Warehouse: wh, IncludeInactive: true})
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	// Named after the glossary the facts came from, if all came from one.
	name := ""
	for _, f := range facts {
		src := f.Source.Glossary()
		switch {
		case !f.FromGlossary() || name != "" && name != src:
			name = "-"
		case name == "":
			name = src
		}
	}
	if name == "" || name == "-" {
		name = "team"
	}
	written := glossary.FromFacts(name, wh, []string{ws}, facts)
	y, err := written.YAML(
		fmt.Sprintf("The team knowledge of %s for the warehouse %q, as a Clarify glossary.", ws, wh),
		fmt.Sprintf("Downloaded from the admin console by %s on %s.", rq.id.User, s.cfg.Now().UTC().Format("2006-01-02 15:04 UTC")),
		"Load it back with the console's Glossary page or `bot glossary load`.",
	)
	if err != nil {
		s.storeFailed(w, rq, err)
		return
	}
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s.yml"`, safeFileName(name+"-"+wh)))
	_, _ = w.Write(y)
}

func safeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}
