package glossary

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/qnorm"
	"github.com/clarify-bot/clarify/internal/sqlscan"
	"github.com/clarify-bot/clarify/ontology"
)

// Target says where a glossary's facts go.
type Target struct {
	// Warehouse is the configured warehouse name the facts are for.
	Warehouse string
	// Workspaces are the owner keys of the workspaces ("slack:T1",
	// "console:local"); each gets its own copy of every fact.
	Workspaces []string
}

// Source is the ontology Source of g's facts.
func (g *Glossary) Source() ontology.Source { return ontology.GlossarySource(g.Name) }

// Slots of the dialog (dialog/sqlshape) the facts decide. They are the
// strings the dialog stores in Target.Slot when a person answers.
const (
	slotMeasure = "measure"
	slotGroup   = "group"
	slotTables  = "tables"
	slotQuery   = "query"
)

// Facts turns g into workspace-scope facts for each workspace of t:
//
//   - a measure ("net revenue" = SUM(orders.net_amount)) decides the
//     measure slot for its name and synonyms, as a person's answer does:
//     a column fact (the column under the aggregate) and a definition
//     fact (the aggregate itself), so it applies whether the readings
//     differ by column or by function;
//   - a dimension decides grouping (KindAggregate on the group slot);
//   - a filter is a definition of the words of its name that qualify its
//     table ("active customer" on customers defines "active"), in the
//     typed forms the engines rebuild: col = 'v', col IN (…), col >=
//     CURRENT_DATE - INTERVAL n DAY, [NOT] EXISTS (SELECT 1 FROM r WHERE
//     r.fk = t.key [AND r.date >= CURRENT_DATE - INTERVAL n DAY]);
//   - a term adds its name and synonyms as phrases of what it means;
//   - a relationship is a join fact;
//   - a verified query is a query fact keyed by the normalised question.
//
// Problems are items the engines cannot use (a filter in another form, a
// measure that is not an aggregate), at their lines.
func Facts(g *Glossary, t Target) ([]ontology.Fact, Problems) {
	b := &builder{g: g, t: t}
	phrases := b.phrases()
	for _, m := range g.Measures {
		b.measure(m, phrases[strings.ToLower(m.Name)])
	}
	for _, d := range g.Dimensions {
		b.dimension(d, phrases[strings.ToLower(d.Name)])
	}
	for _, f := range g.Filters {
		b.filter(f, phrases[strings.ToLower(f.Name)])
	}
	for _, r := range g.Relationships {
		b.relationship(r)
	}
	for _, v := range g.Verified {
		b.verified(v)
	}
	for _, s := range g.Synonyms {
		b.synonym(s)
	}
	return b.facts, b.problems
}

// Joins are g's relationships as joins for the catalog's join graph:
// declared, as a foreign key would be.
func (g *Glossary) Joins() []warehouse.Join {
	var out []warehouse.Join
	for _, r := range g.Relationships {
		ft, fc, ok1 := strings.Cut(r.From, ".")
		tt, tc, ok2 := strings.Cut(r.To, ".")
		if !ok1 || !ok2 || ft == tt {
			continue
		}
		out = append(out, warehouse.Join{FromTable: ft, FromColumn: fc, ToTable: tt, ToColumn: tc, Declared: true, Confidence: 1, Reason: "glossary " + g.Name})
	}
	return out
}

type builder struct {
	g        *Glossary
	t        Target
	facts    []ontology.Fact
	problems Problems
	// seen holds phrase+kind already given a fact, to report clashes.
	seen map[string]int
}

func (b *builder) addf(line int, format string, args ...any) {
	b.problems = append(b.problems, Problem{File: b.g.File, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// phrases maps each measure, dimension and filter name to the words
// people use for it: its name, its synonyms, and the names and synonyms
// of the terms that mean it.
func (b *builder) phrases() map[string][]string {
	out := map[string][]string{}
	add := func(name string, ps ...string) {
		k := strings.ToLower(name)
		for _, p := range ps {
			if p = ontology.NormalizePhrase(p); p != "" && !slices.Contains(out[k], p) {
				out[k] = append(out[k], p)
			}
		}
	}
	for _, m := range b.g.Measures {
		add(m.Name, append([]string{m.Name}, m.Synonyms...)...)
	}
	for _, d := range b.g.Dimensions {
		add(d.Name, append([]string{d.Name}, d.Synonyms...)...)
	}
	for _, f := range b.g.Filters {
		add(f.Name, append([]string{f.Name}, f.Synonyms...)...)
	}
	for _, t := range b.g.Terms {
		add(t.Means, append([]string{t.Name}, t.Synonyms...)...)
	}
	return out
}

// emit adds one fact per workspace.
func (b *builder) emit(line int, phrase string, kind ontology.Kind, target ontology.Target, meaning, question, verifiedBy string) {
	if b.seen == nil {
		b.seen = map[string]int{}
	}
	k := phrase + "\x00" + string(kind)
	if first, dup := b.seen[k]; dup {
		b.addf(line, "%q already has a meaning of this kind on line %d", phrase, first)
		return
	}
	b.seen[k] = line
	for _, ws := range b.t.Workspaces {
		b.facts = append(b.facts, ontology.Fact{
			Scope: ontology.ScopeWorkspace, Owner: ws, Warehouse: b.t.Warehouse,
			Phrase: phrase, Kind: kind, Target: target, Meaning: meaning, Question: question,
			Source: b.g.Source(), VerifiedBy: verifiedBy,
		})
	}
}

var reAggregate = regexp.MustCompile(`(?is)^\s*(SUM|COUNT|AVG|MIN|MAX)\s*\(\s*(DISTINCT\s+)?(.+?)\s*\)\s*$`)

func (b *builder) measure(m Measure, phrases []string) {
	mm := reAggregate.FindStringSubmatch(m.Expr)
	if mm == nil {
		b.addf(m.ExprLine, "measure %q: %q is not one aggregate (SUM, COUNT, AVG, MIN or MAX of an expression)", m.Name, m.Expr)
		return
	}
	fn, distinct, arg := strings.ToUpper(mm[1]), mm[2] != "", canonical(mm[3])
	meaning := describe(m.Description, m.Expr)
	measure := ontology.Term{Kind: ontology.TermMeasure, Fn: fn, Expr: arg, Distinct: distinct}
	for _, p := range phrases {
		if arg != "*" {
			b.emit(m.Line, p, ontology.KindColumn, ontology.Target{Slot: slotMeasure, Choice: exprTerm(arg)}, meaning, "", "")
		}
		b.emit(m.Line, p, ontology.KindDefinition, ontology.Target{Slot: slotMeasure, Choice: measure}, meaning, "", "")
	}
}

func (b *builder) dimension(d Dimension, phrases []string) {
	meaning := describe(d.Description, d.Expr)
	if len(d.Samples) > 0 {
		meaning += " (e.g. " + strings.Join(d.Samples[:min(3, len(d.Samples))], ", ") + ")"
	}
	for _, p := range phrases {
		b.emit(d.Line, p, ontology.KindAggregate, ontology.Target{Slot: slotGroup, Choice: exprTerm(canonical(d.Expr))}, meaning, "", "")
	}
}

var (
	reValueEq   = regexp.MustCompile(`(?is)^\s*([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\s*=\s*'((?:[^']|'')*)'\s*$`)
	reValueIn   = regexp.MustCompile(`(?is)^\s*([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\s+IN\s*\((.*)\)\s*$`)
	reLiteral   = regexp.MustCompile(`^\s*'((?:[^']|'')*)'\s*$`)
	reWithin    = regexp.MustCompile(`(?is)^\s*([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*)\s*>=\s*CURRENT_DATE\s*(?:\(\s*\))?\s*-\s*INTERVAL\s+(\d+)\s+DAY\s*$`)
	reExistence = regexp.MustCompile(`(?is)^\s*(NOT\s+)?EXISTS\s*\(\s*SELECT\s+1\s+FROM\s+([a-z_][a-z0-9_]*)\s+WHERE\s+([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\s*=\s*([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)(?:\s+AND\s+([a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*)\s*>=\s*CURRENT_DATE\s*(?:\(\s*\))?\s*-\s*INTERVAL\s+(\d+)\s+DAY)?\s*\)\s*$`)
)

// predicate reads a filter's WHERE text as the typed term the engines
// rebuild (see Facts for the forms).
func predicate(f Filter, table string) (ontology.Term, error) {
	w := f.Where
	if m := reValueEq.FindStringSubmatch(w); m != nil {
		if err := sameTable(m[1], table); err != nil {
			return ontology.Term{}, err
		}
		return ontology.Term{Kind: ontology.TermValues, Subject: table, Column: strings.ToLower(m[1] + "." + m[2]), Op: "=", Values: []string{unquote(m[3])}}, nil
	}
	if m := reValueIn.FindStringSubmatch(w); m != nil {
		if err := sameTable(m[1], table); err != nil {
			return ontology.Term{}, err
		}
		var vals []string
		for _, part := range splitLiterals(m[3]) {
			lm := reLiteral.FindStringSubmatch(part)
			if lm == nil {
				return ontology.Term{}, fmt.Errorf("IN lists only quoted values, not %s", strings.TrimSpace(part))
			}
			vals = append(vals, unquote(lm[1]))
		}
		op := "in"
		if len(vals) == 1 {
			op = "="
		}
		return ontology.Term{Kind: ontology.TermValues, Subject: table, Column: strings.ToLower(m[1] + "." + m[2]), Op: op, Values: vals}, nil
	}
	if m := reWithin.FindStringSubmatch(w); m != nil {
		if err := sameTable(m[1], table); err != nil {
			return ontology.Term{}, err
		}
		days, _ := strconv.Atoi(m[3])
		return ontology.Term{Kind: ontology.TermPredicate, Subject: table, Column: strings.ToLower(m[1] + "." + m[2]), Op: "within", Days: days}, nil
	}
	if m := reExistence.FindStringSubmatch(w); m != nil {
		related := strings.ToLower(m[2])
		l, r := strings.ToLower(m[3]), strings.ToLower(m[4])
		// The join's left side is the related table's column.
		if lt, _, _ := strings.Cut(l, "."); lt != related {
			l, r = r, l
		}
		lt, _, _ := strings.Cut(l, ".")
		rt, _, _ := strings.Cut(r, ".")
		if lt != related || rt != table {
			return ontology.Term{}, fmt.Errorf("the EXISTS subquery must join %s to %s", related, table)
		}
		op := "exists"
		if m[1] != "" {
			op = "not exists"
		}
		t := ontology.Term{Kind: ontology.TermPredicate, Subject: table, Related: related, Op: op, Joins: []ontology.Join{{Left: l, Right: r}}}
		if m[5] != "" {
			t.Column = strings.ToLower(m[5])
			t.Days, _ = strconv.Atoi(m[6])
		}
		return t, nil
	}
	return ontology.Term{}, fmt.Errorf("the engines read a filter only as table.column = 'value', table.column IN ('a', 'b'), table.column >= CURRENT_DATE - INTERVAL n DAY or [NOT] EXISTS (SELECT 1 FROM related WHERE related.fk = table.key [AND related.date >= CURRENT_DATE - INTERVAL n DAY])")
}

func sameTable(t, table string) error {
	if !strings.EqualFold(t, table) {
		return fmt.Errorf("the condition is on %s, not on the filter's table %s", strings.ToLower(t), table)
	}
	return nil
}

func (b *builder) filter(f Filter, phrases []string) {
	table := strings.ToLower(f.Table)
	if table == "" {
		ts := TablesOf(f.Where)
		if len(ts) != 1 {
			if len(ts) > 1 {
				b.addf(f.WhereLine, "filter %q: ambiguous table: the expression names %s; say which table it is about with table:", f.Name, strings.Join(ts, " and "))
			}
			return
		}
		table = ts[0]
	}
	term, err := predicate(f, table)
	if err != nil {
		b.addf(f.WhereLine, "filter %q: %v", f.Name, err)
		return
	}
	meaning := describe(f.Description, term.SQL())
	for _, p := range phrases {
		word := qualifier(p, table)
		if word == "" {
			b.addf(f.Line, "filter %q: %q names only its table; name the quality (\"active customer\")", f.Name, p)
			continue
		}
		b.emit(f.Line, word, ontology.KindDefinition, ontology.Target{Slot: ontology.SlotDefinition, Arg: word, Choice: term}, meaning, "", "")
	}
}

// qualifier is the part of a filter's phrase that qualifies its table:
// "active customer" on customers → "active"; "big spender" → "big
// spender". The engines ask about (and look up) the words before the
// table's name, so that is the phrase they will find.
func qualifier(phrase, table string) string {
	words := strings.Fields(phrase)
	if n := len(words); n > 0 {
		last := words[n-1]
		singular := strings.TrimSuffix(table, "s")
		if last == table || last == singular || last+"s" == table || strings.TrimSuffix(last, "s") == singular {
			words = words[:n-1]
		}
	}
	return strings.Join(words, " ")
}

func (b *builder) relationship(r Relationship) {
	ft, _, _ := strings.Cut(r.From, ".")
	tt, _, _ := strings.Cut(r.To, ".")
	if ft == "" || tt == "" || ft == tt {
		return
	}
	phrase := r.Name
	if phrase == "" {
		phrase = ft + " " + tt
	}
	term := ontology.Term{Kind: ontology.TermJoinPath, Tables: []string{ft, tt}, Joins: []ontology.Join{{Left: r.From, Right: r.To}}}
	b.emit(r.Line, ontology.NormalizePhrase(phrase), ontology.KindJoin, ontology.Target{Slot: slotTables, Choice: term}, describe(r.Description, r.From+" = "+r.To), "", "")
}

// synonym makes each of the team's words a word fact: the word stands
// for the table or column wherever a question uses it.
func (b *builder) synonym(s Synonym) {
	term := ontology.TableTerm(s.Means)
	if strings.Contains(s.Means, ".") {
		term = ontology.ColumnTerm(s.Means)
	}
	for _, w := range s.Words {
		b.emit(s.Line, ontology.NormalizePhrase(w), ontology.KindWord, ontology.Target{Slot: ontology.SlotWord, Choice: term}, strings.ReplaceAll(s.Means, "_", " "), "", "")
	}
}

func (b *builder) verified(v VerifiedQuery) {
	phrase := qnorm.Question(v.Question)
	if phrase == "" || v.SQL == "" {
		return
	}
	b.emit(v.Line, phrase, ontology.KindQuery, ontology.Target{Slot: slotQuery, Choice: ontology.Term{Kind: ontology.TermSQL, Expr: v.SQL}}, v.Question, v.Question, v.VerifiedBy)
}

// canonical is the form the dialog compares expressions in: lower-case
// table.column names (sqlshape's canonical form), the rest as written.
func canonical(expr string) string {
	expr = strings.TrimSpace(expr)
	if expr == "*" {
		return expr
	}
	return reColumnRef.ReplaceAllStringFunc(expr, strings.ToLower)
}

func exprTerm(expr string) ontology.Term {
	if t, c, ok := strings.Cut(expr, "."); ok && isIdent(t) && isIdent(c) {
		return ontology.ColumnTerm(expr)
	}
	return ontology.Term{Kind: ontology.TermExpr, Expr: expr}
}

func describe(desc, fallback string) string {
	if desc != "" {
		return desc
	}
	return fallback
}

func unquote(s string) string { return strings.ReplaceAll(s, "''", "'") }

// splitLiterals splits an IN list at the commas the server reads as
// separators: not inside quotes (backslash escapes included), comments or
// parentheses. The pieces are as written.
func splitLiterals(s string) []string { return sqlscan.Split(s, ',', sqlscan.MySQL) }
