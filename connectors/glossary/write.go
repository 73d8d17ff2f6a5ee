package glossary

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/clarify-bot/clarify/internal/qnorm"
	"github.com/clarify-bot/clarify/ontology"
)

// Written is a glossary rebuilt from facts, with what could not be said
// exactly.
type Written struct {
	Glossary *Glossary
	// Approximated are facts written in a form that loads back as a
	// slightly different fact (a learned measure column written as SUM of
	// it), each with a sentence saying how.
	Approximated []string
	// Left are facts a glossary cannot say (an ordering, a value
	// comparison other than = and IN), each with a sentence.
	Left []string
}

// FromFacts rebuilds a glossary from workspace facts of one warehouse: the
// inverse of Facts for everything a glossary can say, so that loading the
// result gives the same facts (phrase, kind, target, meaning). Facts with
// the same meaning become one entry with synonyms; verified queries keep
// their question, SQL and verifier. Facts of other scopes are ignored.
func FromFacts(name, warehouse string, workspaces []string, facts []ontology.Fact) Written {
	w := &writer{g: &Glossary{Name: name, Warehouse: warehouse, Workspaces: workspaces}, used: map[string]bool{}}
	var mine []ontology.Fact
	for _, f := range facts {
		if f.Scope == ontology.ScopeWorkspace {
			mine = append(mine, f)
		}
	}
	// One owner's facts: the same phrase may hold for several workspaces.
	seen := map[string]bool{}
	var uniq []ontology.Fact
	for _, f := range mine {
		k := f.Phrase + "\x00" + string(f.Kind)
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, f)
		}
	}
	slices.SortFunc(uniq, func(a, b ontology.Fact) int {
		if c := strings.Compare(a.Phrase, b.Phrase); c != 0 {
			return c
		}
		return strings.Compare(string(a.Kind), string(b.Kind))
	})
	w.measures(uniq)
	w.dimensions(uniq)
	w.filters(uniq)
	w.relationships(uniq)
	w.verified(uniq)
	return Written{Glossary: w.g, Approximated: w.approx, Left: w.left}
}

type writer struct {
	g            *Glossary
	approx, left []string
	// used are the entry names taken (names must be unique in a glossary).
	used map[string]bool
}

// group gathers phrases that mean the same: key → phrases, in order.
type group struct {
	key     string
	phrases []string
	first   ontology.Fact
}

func groupBy(facts []ontology.Fact, keep func(ontology.Fact) bool) []*group {
	var out []*group
	idx := map[string]*group{}
	for _, f := range facts {
		if !keep(f) {
			continue
		}
		k := f.Target.Choice.SQL() + "\x00" + f.Target.Choice.Subject + "\x00" + f.Meaning
		g, ok := idx[k]
		if !ok {
			g = &group{key: k, first: f}
			idx[k] = g
			out = append(out, g)
		}
		g.phrases = append(g.phrases, f.Phrase)
	}
	return out
}

// name picks an unused entry name from the phrases and returns it with
// the rest as synonyms.
func (w *writer) name(phrases []string) (string, []string, bool) {
	for i, p := range phrases {
		if !w.used[p] {
			w.used[p] = true
			rest := append(slices.Clone(phrases[:i]), phrases[i+1:]...)
			return p, rest, true
		}
	}
	return "", nil, false
}

func isMeasureDef(f ontology.Fact) bool {
	return f.Kind == ontology.KindDefinition && f.Target.Slot == slotMeasure && f.Target.Choice.Kind == ontology.TermMeasure
}

func (w *writer) measures(facts []ontology.Fact) {
	defs := map[string]ontology.Term{}
	for _, f := range facts {
		if isMeasureDef(f) {
			defs[f.Phrase] = f.Target.Choice
		}
	}
	for _, g := range groupBy(facts, isMeasureDef) {
		name, syn, ok := w.name(g.phrases)
		if !ok {
			w.left = append(w.left, fmt.Sprintf("%s: the name is taken by another entry", strings.Join(g.phrases, ", ")))
			continue
		}
		w.g.Measures = append(w.g.Measures, Measure{Named: Named{Name: name, Description: g.first.Meaning, Synonyms: syn}, Expr: g.first.Target.Choice.SQL()})
	}
	// A measure's column fact is written by its definition; a column
	// learned alone (a person's choice among amounts) is written as SUM of
	// it, which also decides the aggregate.
	var alone []ontology.Fact
	for _, f := range facts {
		if f.Kind != ontology.KindColumn || f.Target.Slot != slotMeasure {
			continue
		}
		if d, ok := defs[f.Phrase]; ok {
			if d.Expr != f.Target.Choice.SQL() {
				w.left = append(w.left, fmt.Sprintf("%q: the column %s differs from its measure %s", f.Phrase, f.Target.Choice.SQL(), d.SQL()))
			}
			continue
		}
		alone = append(alone, f)
	}
	for _, g := range groupBy(alone, func(ontology.Fact) bool { return true }) {
		name, syn, ok := w.name(g.phrases)
		if !ok {
			w.left = append(w.left, fmt.Sprintf("%s: the name is taken by another entry", strings.Join(g.phrases, ", ")))
			continue
		}
		col := g.first.Target.Choice.SQL()
		expr := "SUM(" + col + ")"
		w.g.Measures = append(w.g.Measures, Measure{Named: Named{Name: name, Description: g.first.Meaning, Synonyms: syn}, Expr: expr})
		w.approx = append(w.approx, fmt.Sprintf("%q was learned as the column %s and is written as %s: change the aggregate if the team means another", name, col, expr))
	}
}

func (w *writer) dimensions(facts []ontology.Fact) {
	isDim := func(f ontology.Fact) bool { return f.Kind == ontology.KindAggregate && f.Target.Slot == slotGroup }
	for _, g := range groupBy(facts, isDim) {
		name, syn, ok := w.name(g.phrases)
		if !ok {
			w.left = append(w.left, fmt.Sprintf("%s: the name is taken by another entry", strings.Join(g.phrases, ", ")))
			continue
		}
		w.g.Dimensions = append(w.g.Dimensions, Dimension{Named: Named{Name: name, Description: g.first.Meaning, Synonyms: syn}, Expr: g.first.Target.Choice.SQL()})
	}
}

// readableFilter says whether the engines read a definition's term back
// from its SQL (see predicate).
func readableFilter(t ontology.Term) bool {
	switch t.Kind {
	case ontology.TermValues:
		return t.Op == "=" || t.Op == "in"
	case ontology.TermPredicate:
		switch t.Op {
		case "within":
			return t.Column != ""
		case "exists", "not exists":
			return t.Related != "" && len(t.Joins) == 1
		case "=", "in":
			return true
		}
	}
	return false
}

func (w *writer) filters(facts []ontology.Fact) {
	isFilter := func(f ontology.Fact) bool {
		return f.Kind == ontology.KindDefinition && f.Target.Slot == ontology.SlotDefinition
	}
	var ok []ontology.Fact
	for _, f := range facts {
		if !isFilter(f) {
			continue
		}
		if !readableFilter(f.Target.Choice) {
			w.left = append(w.left, fmt.Sprintf("%q (%s): a glossary filter cannot say this condition", f.Phrase, f.Target.Choice.SQL()))
			continue
		}
		ok = append(ok, f)
	}
	for _, g := range groupBy(ok, func(ontology.Fact) bool { return true }) {
		name, syn, ok := w.name(g.phrases)
		if !ok {
			w.left = append(w.left, fmt.Sprintf("%s: the name is taken by another entry", strings.Join(g.phrases, ", ")))
			continue
		}
		t := g.first.Target.Choice
		table := t.Subject
		if table == "" {
			if ts := TablesOf(t.SQL()); len(ts) == 1 {
				table = ts[0]
			}
		}
		w.g.Filters = append(w.g.Filters, Filter{Named: Named{Name: name, Description: g.first.Meaning, Synonyms: syn}, Table: table, Where: t.SQL()})
	}
}

func (w *writer) relationships(facts []ontology.Fact) {
	for _, f := range facts {
		if f.Kind != ontology.KindJoin {
			continue
		}
		t := f.Target.Choice
		if t.Kind != ontology.TermJoinPath || len(t.Joins) != 1 {
			w.left = append(w.left, fmt.Sprintf("%q: a join path of %d joins (a glossary relationship is one)", f.Phrase, len(t.Joins)))
			continue
		}
		w.g.Relationships = append(w.g.Relationships, Relationship{Name: f.Phrase, Description: f.Meaning, From: t.Joins[0].Left, To: t.Joins[0].Right})
	}
}

func (w *writer) verified(facts []ontology.Fact) {
	for _, f := range facts {
		if f.Kind != ontology.KindQuery || f.Target.Choice.Kind != ontology.TermSQL {
			continue
		}
		q := f.Question
		if q == "" {
			q = f.Meaning
		}
		switch {
		case f.VerifiedBy == "":
			w.left = append(w.left, fmt.Sprintf("the query for %q: nobody verified it (verify it first)", q))
		case qnorm.Question(q) != f.Phrase:
			w.left = append(w.left, fmt.Sprintf("the query for %q: its question no longer reads as %q", q, f.Phrase))
		default:
			w.g.Verified = append(w.g.Verified, VerifiedQuery{Question: q, SQL: f.Target.Choice.Expr, VerifiedBy: f.VerifiedBy})
		}
	}
}

// The YAML form of a glossary, keys in the order people read them.
type (
	yamlGlossary struct {
		Name          string             `yaml:"name,omitempty"`
		Warehouse     string             `yaml:"warehouse,omitempty"`
		Workspaces    []string           `yaml:"workspaces,flow,omitempty"`
		Measures      []yamlEntry        `yaml:"measures,omitempty"`
		Dimensions    []yamlEntry        `yaml:"dimensions,omitempty"`
		Filters       []yamlFilter       `yaml:"filters,omitempty"`
		Relationships []yamlRelationship `yaml:"relationships,omitempty"`
		Verified      []yamlVerified     `yaml:"verified_queries,omitempty"`
	}
	yamlEntry struct {
		Name        string   `yaml:"name"`
		Description string   `yaml:"description,omitempty"`
		Expr        string   `yaml:"expr"`
		Samples     []string `yaml:"samples,flow,omitempty"`
		Synonyms    []string `yaml:"synonyms,flow,omitempty"`
	}
	yamlFilter struct {
		Name        string   `yaml:"name"`
		Description string   `yaml:"description,omitempty"`
		Table       string   `yaml:"table,omitempty"`
		Where       string   `yaml:"where"`
		Synonyms    []string `yaml:"synonyms,flow,omitempty"`
	}
	yamlRelationship struct {
		Name        string `yaml:"name,omitempty"`
		Description string `yaml:"description,omitempty"`
		From        string `yaml:"from"`
		To          string `yaml:"to"`
	}
	yamlVerified struct {
		Question   string `yaml:"question"`
		SQL        string `yaml:"sql"`
		VerifiedBy string `yaml:"verified_by"`
		VerifiedAt string `yaml:"verified_at,omitempty"`
	}
)

// YAML renders the glossary in the format Parse reads, after a comment
// header (header lines, then what was approximated or left out).
func (w Written) YAML(header ...string) ([]byte, error) {
	g := w.Glossary
	y := yamlGlossary{Name: g.Name, Warehouse: g.Warehouse, Workspaces: g.Workspaces}
	for _, m := range g.Measures {
		y.Measures = append(y.Measures, yamlEntry{Name: m.Name, Description: m.Description, Expr: m.Expr, Synonyms: m.Synonyms})
	}
	for _, d := range g.Dimensions {
		y.Dimensions = append(y.Dimensions, yamlEntry{Name: d.Name, Description: d.Description, Expr: d.Expr, Samples: d.Samples, Synonyms: d.Synonyms})
	}
	for _, f := range g.Filters {
		y.Filters = append(y.Filters, yamlFilter{Name: f.Name, Description: f.Description, Table: f.Table, Where: f.Where, Synonyms: f.Synonyms})
	}
	for _, r := range g.Relationships {
		y.Relationships = append(y.Relationships, yamlRelationship{Name: r.Name, Description: r.Description, From: r.From, To: r.To})
	}
	for _, v := range g.Verified {
		y.Verified = append(y.Verified, yamlVerified{Question: v.Question, SQL: v.SQL, VerifiedBy: v.VerifiedBy, VerifiedAt: v.VerifiedAt})
	}
	var b bytes.Buffer
	comment := func(lines ...string) {
		for _, l := range lines {
			for _, part := range strings.Split(l, "\n") {
				b.WriteString(strings.TrimRight("# "+part, " ") + "\n")
			}
		}
	}
	comment(header...)
	if len(w.Approximated) > 0 {
		comment("", "Written approximately:")
		for _, a := range w.Approximated {
			comment("  - " + a)
		}
	}
	if len(w.Left) > 0 {
		comment("", "Not written (a glossary cannot say it; it stays in the bot's store):")
		for _, l := range w.Left {
			comment("  - " + l)
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(y); err != nil {
		return nil, fmt.Errorf("write glossary %s: %w", g.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write glossary %s: %w", g.Name, err)
	}
	return b.Bytes(), nil
}
