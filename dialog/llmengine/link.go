package llmengine

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/ontology"
)

// linked is the part of the schema a question links to: the tables and
// columns the catalog finds for its words, the stored values it names, the
// joins between them and the asker's definitions. It renders as the schema
// part of every prompt (DAIL-SQL's code representation: CREATE TABLE with
// comments), so the full schema never goes in.
type linked struct {
	tables []*warehouse.Table
	// columns per table (lower-case name) chosen for the prompt, in schema order.
	columns map[string][]warehouse.Column
	joins   []warehouse.Join
	values  []valueLink
	defs    []definition
	// examples are verified queries, as few-shot examples (verified.go).
	examples []example
	// phrase maps "table.column" (lower-case) to the words of the question
	// that linked it, for Candidate.Phrases.
	phrase map[string]string
	// wordCols maps each word of the question (lower-case) to the columns
	// ("table.column", lower-case) it names: the catalog's best matches
	// for the word alone. named holds every column some word or stored
	// value of the question names, for word accounting (account.go).
	wordCols map[string][]string
	named    map[string]bool
	// noted are the "table.column" names (lower-case) whose comments and
	// profiles the prompt shows; the others are named only. bare drops
	// the profiles of noted columns too.
	noted map[string]bool
	bare  bool

	// schema is the rendered text.
	schema string
}

type valueLink struct {
	phrase string // the words of the question, as typed
	hit    catalog.ValueHit
}

// definition is one of the asker's facts, as the prompt states it.
type definition struct {
	phrase, target, meaning string
	// team marks a fact of the team glossary.
	team bool
}

// linkLimits bound the linked schema.
type linkLimits struct {
	maxTables       int
	wideTable       int // tables with more columns show only the linked ones
	promptTokens    int
	count           func(string) int
	columnsPerWord  int
	columnsQuestion int
}

// candidate is a table some words of the question link to.
type candidate struct {
	name  string // lower-case
	score float64
	words map[string]bool
	cols  map[string]bool
}

// link finds the schema a question (and its feedback) refers to: the
// catalog's column matches for the whole text and for each word, the
// stored values named by one to three words, and the columns of the
// asker's definitions. Tables are then chosen greedily — first those that
// cover words no chosen table covers yet, then those that join a chosen
// table, then the best scored — so that a wide warehouse with many
// similar tables still yields the few tables a query needs.
func (e *Engine) link(text string, facts []ontology.Fact) *linked {
	snap := e.cat.Snapshot()
	l := &linked{columns: map[string][]warehouse.Column{}, phrase: map[string]string{}, wordCols: map[string][]string{}, named: map[string]bool{}}
	cands := map[string]*candidate{}
	touch := func(table, column string, s float64, ws ...string) {
		t := strings.ToLower(table)
		if e.columns[t] == nil {
			return
		}
		c := cands[t]
		if c == nil {
			c = &candidate{name: t, words: map[string]bool{}, cols: map[string]bool{}}
			cands[t] = c
		}
		c.score = max(c.score, s)
		if column != "" {
			c.cols[strings.ToLower(column)] = true
		}
		for _, w := range ws {
			if w = strings.ToLower(w); len(e.cat.Terms(w)) > 0 {
				c.words[w] = true
			}
		}
	}
	// Phrases are noted most specific first: stored values, single words,
	// then the words a whole-text match used.
	var valuePhrases, wordPhrases, wholePhrases [][3]string

	hits := e.cat.SearchColumns(text, e.lim.columnsQuestion)
	for _, h := range hits {
		s := h.Score / hits[0].Score
		if s < 0.35 {
			continue
		}
		touch(h.Table, h.Column, s, h.Matched...)
		wholePhrases = append(wholePhrases, [3]string{h.Table, h.Column, strings.Join(h.Matched, " ")})
	}
	for _, w := range words(text) {
		if len(e.cat.Terms(w)) == 0 {
			continue
		}
		hs := e.cat.SearchColumns(w, e.lim.columnsPerWord)
		lw := strings.ToLower(w)
		for _, h := range hs {
			if h.Score < 0.6*hs[0].Score {
				break
			}
			touch(h.Table, h.Column, 0.9*h.Score/hs[0].Score, w)
			wordPhrases = append(wordPhrases, [3]string{h.Table, h.Column, w})
			tc := strings.ToLower(h.Table + "." + h.Column)
			if !slices.Contains(l.wordCols[lw], tc) {
				l.wordCols[lw] = append(l.wordCols[lw], tc)
			}
			l.named[tc] = true
		}
	}
	// A number compared in the question ("after 1980", "lighter than
	// 3500") is about a column whose stored range holds it.
	for _, w := range words(text) {
		for _, tc := range e.numberColumns(w) {
			t, c, _ := strings.Cut(tc, ".")
			touch(t, c, 0.4)
		}
	}
	var values []valueLink
	seen := map[string]bool{}
	for _, g := range ngrams(words(text), 3) {
		if len(e.cat.Terms(g)) == 0 {
			continue // only stop words
		}
		for _, h := range e.cat.SearchValues(g, 40) {
			if !usefulValue(g, h) {
				continue
			}
			k := strings.ToLower(h.Table + "." + h.Column + "=" + h.Value)
			if seen[k] {
				continue
			}
			seen[k] = true
			values = append(values, valueLink{phrase: g, hit: h})
			l.named[strings.ToLower(h.Table+"."+h.Column)] = true
			s := 0.5 + 0.5*h.Score
			if e.unique(h.Table, h.Column) {
				// A value of a table's own key names one of its rows: the
				// entity itself, not a reference to it.
				s += 0.5
			}
			touch(h.Table, h.Column, s, words(g)...)
			valuePhrases = append(valuePhrases, [3]string{h.Table, h.Column, g})
		}
	}
	l.examples = verifiedExamples(text, facts, maxExamples)
	for _, f := range facts {
		if f.Kind == ontology.KindQuery {
			continue // an example, not a definition
		}
		tok := f.Target.Choice
		l.defs = append(l.defs, definition{phrase: f.Phrase, target: tok.SQL(), meaning: f.Meaning, team: f.FromGlossary()})
		for _, ref := range tok.ColumnRefs() {
			t, c, _ := strings.Cut(ref, ".")
			touch(t, c, 2, words(f.Phrase)...)
			l.named[strings.ToLower(ref)] = true
		}
	}
	for _, p := range append(append(valuePhrases, wordPhrases...), wholePhrases...) {
		e.notePhrase(l, p[0], p[1], p[2])
	}

	names := e.choose(cands)
	extra := e.extraTables(text, cands, names)
	// The most detail that fits the token budget: as many further tables
	// as fit at full detail; else the chosen ones, their notes and then
	// their columns trimmed; else fewer of them (the joins between those
	// left are found again, so a bridge table stays while both ends do).
	fits := func() bool { return e.lim.count == nil || e.lim.count(l.schema) <= e.lim.promptTokens }
	for k := len(extra); k >= 0; k-- {
		e.assemble(l, snap, cands, values, names, extra[:k], detailFull)
		if fits() {
			return l
		}
	}
	for detail := detailNotes; detail <= detailLean; detail++ {
		e.assemble(l, snap, cands, values, names, nil, detail)
		if fits() {
			return l
		}
	}
	for n := len(names) - 1; n >= 1; n-- {
		e.assemble(l, snap, cands, values, names[:n], nil, detailLean)
		if fits() {
			return l
		}
	}
	return l
}

// Detail levels of a linked schema, from full to lean.
const (
	// detailFull shows every column of a narrow table and, of a wide one,
	// its key, the linked and join columns, and its date and category
	// columns (periods and statuses are asked about in other words).
	detailFull = iota
	// detailNotes keeps profiles and comments only for linked columns.
	detailNotes
	// detailComments drops the profiles, keeping linked columns' comments.
	detailComments
	// detailLinked shows only the key, linked and join columns of wide tables.
	detailLinked
	// detailLean shows only those of every table.
	detailLean
)

// assemble fills l with the chosen tables (and the ones joining them),
// the further ones, at a detail level, and renders it.
func (e *Engine) assemble(l *linked, snap *warehouse.Snapshot, cands map[string]*candidate, values []valueLink, chosen, extra []string, detail int) {
	l.tables, l.columns, l.values = nil, map[string][]warehouse.Column{}, nil
	// The chosen tables are joined along the catalog's paths (bridge
	// tables included); further tables only show how they join those.
	l.joins = e.joinsFor(chosen)
	names := append(slices.Clone(chosen), extra...)
	all := append([]string(nil), names...)
	for _, j := range snap.Schema.Joins {
		a, b := strings.ToLower(j.FromTable), strings.ToLower(j.ToTable)
		if len(extra) > 0 && slices.Contains(names, a) && slices.Contains(names, b) && (slices.Contains(extra, a) || slices.Contains(extra, b)) &&
			!slices.ContainsFunc(l.joins, func(x warehouse.Join) bool { return x.Condition() == j.Condition() }) {
			l.joins = append(l.joins, j)
		}
	}
	wanted := map[string]map[string]bool{}
	for _, n := range names {
		wanted[n] = map[string]bool{}
		if c := cands[n]; c != nil { // a link table may be no candidate
			for col := range c.cols {
				wanted[n][col] = true
			}
		}
	}
	for _, j := range l.joins {
		for _, side := range [][2]string{{j.FromTable, j.FromColumn}, {j.ToTable, j.ToColumn}} {
			t := strings.ToLower(side[0])
			if !slices.Contains(all, t) {
				all = append(all, t)
			}
			if wanted[t] == nil {
				wanted[t] = map[string]bool{}
			}
			wanted[t][strings.ToLower(side[1])] = true
		}
	}
	l.noted, l.bare = map[string]bool{}, detail >= detailComments
	for _, name := range all {
		t := snap.Schema.Table(name)
		if t == nil {
			continue
		}
		l.tables = append(l.tables, t)
		narrow := len(t.Columns) <= e.lim.wideTable
		var cols []warehouse.Column
		switch {
		case detail == detailLean || detail == detailLinked && !narrow:
			cols = e.columnsOf(t, wanted[name], false)
		case narrow:
			cols = t.Columns
		default:
			cols = e.wideColumns(t, wanted[name])
		}
		l.columns[name] = cols
		for _, c := range cols {
			if detail == detailFull || wanted[name][strings.ToLower(c.Name)] {
				l.noted[name+"."+strings.ToLower(c.Name)] = true
			}
		}
	}
	// Only the stored values of the tables shown, a few per phrase.
	perPhrase := map[string]int{}
	for _, v := range values {
		if slices.Contains(all, strings.ToLower(v.hit.Table)) && perPhrase[v.phrase] < 4 && len(l.values) < 12 {
			perPhrase[v.phrase]++
			l.values = append(l.values, v)
		}
	}
	l.schema = e.render(l)
}

// maxNumberColumns bounds the columns a number links to: a number that
// fits more ranges than that says nothing about which one.
const maxNumberColumns = 6

// numberColumns lists the numeric and date columns whose stored range
// holds the number w (a year for dates), as "table.column"; none when w
// is no number or fits too many.
func (e *Engine) numberColumns(w string) []string {
	if !reNumber.MatchString(w) {
		return nil
	}
	x, err := strconv.ParseFloat(w, 64)
	if err != nil || x < 2 {
		return nil // 0 and 1 fit nearly every range
	}
	var out []string
	for k, p := range e.profiles {
		var lo, hi float64
		var ok1, ok2 bool
		switch {
		case len(p.Min) >= 4 && len(p.Max) >= 4 && strings.Count(p.Min, "-") >= 2 && x >= 1000 && x <= 2999 && x == math.Trunc(x):
			lo, ok1 = yearOf(p.Min)
			hi, ok2 = yearOf(p.Max)
		default:
			lo, ok1 = sqlresult.AsFloat(p.Min)
			hi, ok2 = sqlresult.AsFloat(p.Max)
		}
		if ok1 && ok2 && lo <= x && x <= hi && hi > lo {
			out = append(out, k)
		}
	}
	if len(out) > maxNumberColumns {
		return nil
	}
	sort.Strings(out)
	return out
}

// yearOf reads the year of a stored date ("2024-03-01 …").
func yearOf(d string) (float64, bool) {
	y, err := strconv.Atoi(d[:4])
	return float64(y), err == nil
}

// unique reports whether every row of table has its own value of column
// (its key, declared or not), from the profile.
func (e *Engine) unique(table, column string) bool {
	if e.labels.IsKey(table + "." + column) {
		return true
	}
	p := e.profile(table, column)
	return p != nil && !p.Partial && p.Rows > 1 && p.Distinct == p.Rows && p.NullShare == 0
}

// wideColumns are the columns of a wide table worth showing: its key, the
// wanted ones, and its dates and categories (few distinct values), which
// questions name in words of their own ("in the past month", "successful").
func (e *Engine) wideColumns(t *warehouse.Table, wanted map[string]bool) []warehouse.Column {
	var out []warehouse.Column
	for _, c := range t.Columns {
		keep := wanted[strings.ToLower(c.Name)] || containsFold(t.PrimaryKey, c.Name) || c.Kind() == warehouse.KindTime
		if p := e.profile(t.Name, c.Name); !keep && p != nil && c.Kind() == warehouse.KindText && len(p.Top) > 0 && p.Distinct <= 20 {
			keep = true
		}
		if keep {
			out = append(out, c)
		}
	}
	return out
}

// maxExtraTables bounds the tables shown beyond the chosen ones.
const maxExtraTables = 4

// extraTables are further tables to show while the budget allows, most
// useful first: link tables that join two chosen tables directly (the
// question may mean that connection rather than the catalog's shortest
// one), then tables a word of the question names by their own name, then
// the rest some words link to, strongest first. A question's words often
// fit several tables, and the one the answer needs must be there.
func (e *Engine) extraTables(text string, cands map[string]*candidate, chosen []string) []string {
	var names []string
	add := func(n string) {
		if len(names) < maxExtraTables && !slices.Contains(chosen, n) && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var links []string
	for t, adj := range e.adj {
		if slices.Contains(chosen, t) {
			continue
		}
		n := 0
		for _, c := range chosen {
			if adj[c] {
				n++
			}
		}
		if n >= 2 {
			links = append(links, t)
		}
	}
	sort.Strings(links)
	for _, t := range links {
		add(t)
	}
	var out []*candidate
	for _, c := range cands {
		if !slices.Contains(chosen, c.name) && (c.score >= 0.35 || len(c.words) > 0) {
			out = append(out, c)
		}
	}
	named := func(c *candidate) bool {
		for _, w := range words(text) {
			if e.namesTable(strings.ToLower(w), c.name) {
				return true
			}
		}
		return false
	}
	sort.Slice(out, func(i, j int) bool {
		if ni, nj := named(out[i]), named(out[j]); ni != nj {
			return ni
		}
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].name < out[j].name
	})
	for _, c := range out {
		add(c.name)
	}
	return names
}

// shown lists the "table.column" names (lower-case) the prompt shows.
func (l *linked) shown() []string {
	var out []string
	for _, t := range l.tables {
		name := strings.ToLower(t.Name)
		for _, c := range l.columns[name] {
			out = append(out, name+"."+strings.ToLower(c.Name))
		}
	}
	return out
}

// choose picks up to maxTables candidates greedily: a table that covers
// words of the question no chosen table covers yet counts most, then one
// that joins a chosen table directly, then its link score. Tables that add
// no word and score low are left out.
func (e *Engine) choose(cands map[string]*candidate) []string {
	covered, coveredByName := map[string]bool{}, map[string]bool{}
	var chosen []string
	taken := map[string]bool{}
	for len(chosen) < e.lim.maxTables {
		var best *candidate
		bestGain := 0.0
		for _, c := range cands {
			if taken[c.name] {
				continue
			}
			fresh := 0.0
			for w := range c.words {
				switch {
				case !covered[w]:
					fresh++
				case !coveredByName[w] && e.namesTable(w, c.name):
					// "carriers" names the carrier table more than a
					// shipment's carrier code does.
					fresh += 0.6
				}
			}
			if fresh == 0 && c.score < 0.35 {
				continue
			}
			gain := fresh + 0.3*c.score
			for _, t := range chosen {
				if e.adj[c.name][t] {
					gain += 0.5
					break
				}
			}
			if best == nil || gain > bestGain || gain == bestGain && c.name < best.name {
				best, bestGain = c, gain
			}
		}
		if best == nil {
			break
		}
		taken[best.name] = true
		chosen = append(chosen, best.name)
		for w := range best.words {
			covered[w] = true
			if e.namesTable(w, best.name) {
				coveredByName[w] = true
			}
		}
	}
	return chosen
}

// usefulValue keeps value matches worth showing: exact, case-insensitive
// and abbreviations; prefixes of four letters or more; close typos of
// longer words.
func usefulValue(phrase string, h catalog.ValueHit) bool {
	n := len([]rune(phrase))
	switch h.Match {
	case catalog.Exact, catalog.CaseInsensitive, catalog.Abbreviation:
		return true
	case catalog.Prefix:
		// "tex" for "Texas", not "orders" for "orders@example.com".
		return n >= 4 && 2*n >= len([]rune(h.Value))
	case catalog.Typo:
		return n >= 5 && h.Distance <= 1+n/8
	}
	return false
}

func (e *Engine) notePhrase(l *linked, table, column, phrase string) {
	phrase = strings.TrimSpace(phrase)
	if phrase == "" {
		return
	}
	k := strings.ToLower(table + "." + column)
	if _, ok := l.phrase[k]; !ok {
		l.phrase[k] = phrase
	}
}

// joinsFor connects the tables with the catalog's join path; tables it
// cannot connect stay without joins.
func (e *Engine) joinsFor(tables []string) []warehouse.Join {
	if len(tables) < 2 {
		return nil
	}
	tree, err := e.cat.JoinPath(tables...)
	if err == nil {
		return tree.Edges
	}
	// Connect what can be connected to the first table, one at a time.
	var out []warehouse.Join
	connected := []string{tables[0]}
	for _, t := range tables[1:] {
		tr, err := e.cat.JoinPath(append(append([]string(nil), connected...), t)...)
		if err != nil {
			continue
		}
		connected = append(connected, t)
		out = tr.Edges
	}
	return out
}

// columnsOf picks the columns of t to show: all of them, or for wide
// tables its key, the linked columns and the join columns.
func (e *Engine) columnsOf(t *warehouse.Table, wanted map[string]bool, all bool) []warehouse.Column {
	if all {
		return t.Columns
	}
	var out []warehouse.Column
	for _, c := range t.Columns {
		if wanted[strings.ToLower(c.Name)] || containsFold(t.PrimaryKey, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// render writes the linked schema as CREATE TABLE statements whose
// comments carry the column comments and profiles, then the joins, the
// matched stored values and the definitions.
func (e *Engine) render(l *linked) string {
	var b strings.Builder
	for _, t := range l.tables {
		name := strings.ToLower(t.Name)
		profile := func(table, column string) *warehouse.Profile {
			if l.bare || l.noted != nil && !l.noted[name+"."+strings.ToLower(column)] {
				return nil
			}
			return e.profile(table, column)
		}
		commented := func(column string) bool {
			return l.noted == nil || l.noted[name+"."+strings.ToLower(column)]
		}
		writeTable(&b, profile, commented, t, l.columns[name], len(l.columns[name]) < len(t.Columns))
	}
	if len(l.joins) > 0 {
		b.WriteString("-- Joins:\n")
		for _, j := range l.joins {
			fmt.Fprintf(&b, "--   %s", j.Condition())
			if !j.Declared {
				b.WriteString(" (inferred)")
			}
			b.WriteByte('\n')
		}
	}
	if len(l.values) > 0 {
		b.WriteString("-- Stored values matching words of the question:\n")
		for _, v := range l.values {
			fmt.Fprintf(&b, "--   %q: %s.%s = %s", v.phrase, v.hit.Table, v.hit.Column, quoteSQL(v.hit.Value))
			if v.hit.Match != catalog.Exact && v.hit.Match != catalog.CaseInsensitive {
				fmt.Fprintf(&b, " (%s match)", v.hit.Match)
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// fullSchema renders every table with all its columns (the comparison
// point of the prompt-size benchmark; never sent).
func (e *Engine) fullSchema() string {
	snap := e.cat.Snapshot()
	var b strings.Builder
	for i := range snap.Schema.Tables {
		t := &snap.Schema.Tables[i]
		writeTable(&b, e.profile, nil, t, t.Columns, false)
	}
	if len(snap.Schema.Joins) > 0 {
		b.WriteString("-- Joins:\n")
		for _, j := range snap.Schema.Joins {
			fmt.Fprintf(&b, "--   %s\n", j.Condition())
		}
	}
	return b.String()
}

// writeTable renders one table; commented (nil: all) says which columns
// keep their comments.
func writeTable(b *strings.Builder, profile func(table, column string) *warehouse.Profile, commented func(column string) bool, t *warehouse.Table, cols []warehouse.Column, partial bool) {
	fmt.Fprintf(b, "CREATE TABLE %s (", t.Name)
	if t.Comment != "" || t.RowCount > 0 {
		b.WriteString(" --")
		if t.Comment != "" {
			b.WriteString(" " + oneLine(t.Comment, 160))
		}
		if t.RowCount > 0 {
			fmt.Fprintf(b, " (~%d rows)", t.RowCount)
		}
	}
	b.WriteByte('\n')
	for i, c := range cols {
		typ := strings.ToUpper(c.FullType)
		if typ == "" {
			typ = strings.ToUpper(c.DataType)
		}
		fmt.Fprintf(b, "  %s %s", c.Name, typ)
		if len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) {
			b.WriteString(" PRIMARY KEY")
		}
		if i < len(cols)-1 || partial {
			b.WriteByte(',')
		}
		var notes []string
		if c.Comment != "" && (commented == nil || commented(c.Name)) {
			notes = append(notes, oneLine(c.Comment, 140))
		}
		if p := profile(t.Name, c.Name); p != nil {
			if s := profileNote(c, p); s != "" {
				notes = append(notes, s)
			}
		}
		if len(notes) > 0 {
			b.WriteString(" -- " + strings.Join(notes, "; "))
		}
		b.WriteByte('\n')
	}
	if partial {
		b.WriteString("  -- … other columns not shown\n")
	}
	b.WriteString(");\n")
}

// profileNote summarises a profile: the frequent values of a text column,
// a few examples, or the range of numbers and dates; and how often it is empty.
func profileNote(c warehouse.Column, p *warehouse.Profile) string {
	var parts []string
	switch {
	case len(p.Top) > 0 && p.Rows > 0 && p.Distinct >= p.Rows && c.Kind() == warehouse.KindText:
		// Every row has its own value (names, codes, plate numbers): two
		// examples show its form; listing more says nothing more.
		var vs []string
		for i, v := range p.Top {
			if i == 2 {
				break
			}
			vs = append(vs, quoteSQL(clipRunes(v.Value, 30)))
		}
		parts = append(parts, "e.g. "+strings.Join(vs, ", "))
	case len(p.Top) > 0:
		var vs []string
		for i, v := range p.Top {
			if i == 6 {
				vs = append(vs, "…")
				break
			}
			vs = append(vs, quoteSQL(clipRunes(v.Value, 30)))
		}
		parts = append(parts, "values "+strings.Join(vs, ", "))
	case p.Min != "" || p.Max != "":
		parts = append(parts, fmt.Sprintf("range %s .. %s", clipRunes(p.Min, 25), clipRunes(p.Max, 25)))
	case len(p.Samples) > 0 && c.Kind() == warehouse.KindText:
		var vs []string
		for i, v := range p.Samples {
			if i == 3 {
				break
			}
			vs = append(vs, quoteSQL(clipRunes(v, 30)))
		}
		parts = append(parts, "e.g. "+strings.Join(vs, ", "))
	}
	if p.NullShare >= 0.01 {
		parts = append(parts, fmt.Sprintf("%.0f%% NULL", 100*p.NullShare))
	}
	return strings.Join(parts, "; ")
}

// words splits text into words as typed, keeping letters, digits and
// inner apostrophes, hyphens and dots ("O'Brien", "e-mail", "st.").
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		w := strings.Trim(string(cur), "'-.")
		if w != "" {
			out = append(out, w)
		}
		cur = cur[:0]
	}
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '-' || r == '.' || r == '&':
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// ngrams lists the runs of 1..n consecutive words, longest first.
func ngrams(ws []string, n int) []string {
	var out []string
	for k := n; k >= 1; k-- {
		for i := 0; i+k <= len(ws); i++ {
			out = append(out, strings.Join(ws[i:i+k], " "))
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func quoteSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func oneLine(s string, n int) string {
	return clipRunes(strings.Join(strings.Fields(s), " "), n)
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
