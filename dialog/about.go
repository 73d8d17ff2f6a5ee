package dialog

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// Questions about the data itself — "what tables are there?", "what can
// I ask?", "what does revenue mean?" — are answered from the catalog and
// the glossary, not turned into SQL: the subjects (tables) in plain words
// with their sizes, what each can be counted, added up and broken down
// by, the team's definitions, and example questions built from the
// schema. Everything here is generic: it reads whatever schema the
// warehouse has (hidden tables and columns are not in the catalog).

// aboutKind is what a question about the data asks.
type aboutKind int

const (
	aboutNone     aboutKind = iota
	aboutOverview           // what is here and what can be asked
	aboutTerm               // what a word means
)

// overviewAsks are the ways people ask what the data holds.
var overviewAsks = []string{
	"what can i ask", "what can i ask about", "what can i ask you", "what questions can i ask", "what could i ask",
	"what should i ask", "what can you answer", "what can you tell me", "what do you know", "what do you know about",
	"what tables are there", "what tables do you have", "what tables are available", "which tables are there",
	"which tables", "what tables", "list tables", "list the tables", "list all tables", "show tables", "show the tables",
	"show me the tables", "show all tables", "tables", "what data is there", "what data is here", "what data do you have",
	"what data is available", "what data", "what kind of data", "what kind of data is there", "what kind of data do you have",
	"what is in the data", "what's in the data", "what is in the database", "what's in the database", "what is in the warehouse",
	"what's in the warehouse", "describe the data", "what data can i ask about", "example questions", "examples",
	"give me examples", "give me an example", "show me examples", "some examples", "what subjects are there",
}

// termPrefixes and termSuffixes frame a word someone asks the meaning of.
var (
	termPrefixes = []string{"what does ", "what do you mean by ", "what is meant by ", "what's meant by ", "define ", "definition of ",
		"meaning of ", "what is the meaning of ", "what's the meaning of ", "what is the definition of ", "what's the definition of ",
		"how do you define ", "how is ", "explain "}
	termSuffixes = []string{" mean", " means", " stand for", " refer to", " defined", " calculated", " computed", " measured"}
)

// aboutQuestion reads a question about the data; term is the word asked
// about for aboutTerm.
func aboutQuestion(text string) (aboutKind, string) {
	t := strings.ToLower(strings.Join(strings.Fields(strings.Trim(text, " ?!.")), " "))
	t = strings.TrimPrefix(strings.TrimPrefix(t, "so "), "ok ")
	t = strings.TrimPrefix(t, "please ")
	for _, a := range overviewAsks {
		if t == a || t == a+" here" || t == a+" in here" {
			return aboutOverview, ""
		}
	}
	for _, p := range termPrefixes {
		rest, ok := strings.CutPrefix(t, p)
		if !ok {
			continue
		}
		hadSuffix := false
		for _, s := range termSuffixes {
			if r, ok := strings.CutSuffix(rest, s); ok {
				rest, hadSuffix = r, true
				break
			}
		}
		// "what does revenue mean", "how is revenue calculated", "define
		// revenue": the frame must close where it opened.
		if (p == "what does " || p == "how is ") && !hadSuffix {
			return aboutNone, ""
		}
		rest = strings.Trim(strings.TrimSpace(rest), `'"‘’“”`)
		for _, art := range []string{"the ", "a ", "an ", "our "} {
			rest = strings.TrimPrefix(rest, art)
		}
		switch rest {
		case "", "that", "this", "it", "these", "those", "they":
			// "how is that calculated?" is about the answer, not a word.
			return aboutNone, ""
		}
		if len(strings.Fields(rest)) > 4 {
			return aboutNone, ""
		}
		return aboutTerm, rest
	}
	return aboutNone, ""
}

// aboutReply answers a question about the data.
func (m *Manager) aboutReply(ctx context.Context, ev Event, kind aboutKind, term string) Reply {
	loc := colfmt.LocaleFor(ev.Locale)
	if kind == aboutTerm {
		return notice(ev.Conversation, m.meaningOf(ctx, ev.Who, term, loc))
	}
	return notice(ev.Conversation, m.overview(ctx, ev.Who, loc))
}

// subject is one table as people see it.
type subject struct {
	table    *warehouse.Table
	rows     int64
	measures []string // what can be added up
	dims     []string // what it can be broken down by
	label    bool     // its rows have a name
}

// subjects reads the catalog's tables, largest first.
func (m *Manager) subjects() []subject {
	snap := m.deps.Catalog.Snapshot()
	if snap == nil {
		return nil
	}
	fk := map[string]bool{}
	for _, j := range snap.Schema.Joins {
		fk[strings.ToLower(j.FromTable+"."+j.FromColumn)] = true
	}
	var out []subject
	for i := range snap.Schema.Tables {
		t := &snap.Schema.Tables[i]
		s := subject{table: t, rows: t.RowCount}
		for _, c := range t.Columns {
			tc := t.Name + "." + c.Name
			key := strings.ToLower(tc)
			p := m.labels.prof[key]
			if p != nil && s.rows == 0 && !p.Sampled {
				s.rows = p.Rows
			}
			if m.labels.isLabel(t.Name, c.Name) {
				s.label = true
				continue
			}
			if m.labels.IsKey(tc) || fk[key] {
				continue
			}
			f := m.labels.Format(tc)
			// A column nearly every row has its own value of names rows
			// (an email), it does not group them.
			few := p != nil && p.Distinct > 1 && p.Distinct <= 50 && (p.Rows == 0 || float64(p.Distinct) < 0.9*float64(p.Rows))
			switch c.Kind() {
			case warehouse.KindNumber:
				if f.IsMeasure() {
					s.measures = append(s.measures, lowerFirst(m.labels.short(tc)))
				} else if few && f.Kind != colfmt.ID {
					s.dims = append(s.dims, lowerFirst(m.labels.short(tc)))
				}
			case warehouse.KindTime:
				s.dims = append(s.dims, lowerFirst(m.labels.short(tc)))
			case warehouse.KindText, warehouse.KindBool:
				if few {
					s.dims = append(s.dims, lowerFirst(m.labels.short(tc)))
				}
			}
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rows > out[j].rows })
	return out
}

// overview says what the warehouse holds and what to ask.
func (m *Manager) overview(ctx context.Context, who Who, loc colfmt.Locale) string {
	subs := m.subjects()
	if len(subs) == 0 {
		return "I can't see any tables in this warehouse, so there is nothing to ask about yet. An admin may need to grant the bot's account read access."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "This warehouse holds %d subject%s:\n", len(subs), pick(len(subs) == 1, "", "s"))
	for i, s := range subs {
		if i == 12 {
			fmt.Fprintf(&b, "…and %d more.\n", len(subs)-i)
			break
		}
		b.WriteString("• " + m.describeSubject(s, loc) + "\n")
	}
	if defs := m.teamDefinitions(ctx, who); len(defs) > 0 {
		b.WriteString("The team's definitions: " + strings.Join(defs, "; ") + ".\n")
	}
	if ex := m.exampleQuestions(subs); len(ex) > 0 {
		b.WriteString("Try: " + strings.Join(ex, " · ") + "\n")
	}
	b.WriteString(`Ask "what does <word> mean?" to see how I read a word.`)
	return b.String()
}

// describeSubject: "Orders — about 100,000 (customer orders, one row per
// order): count them, add up net revenue or shipping fee, by status or
// date the order was placed."
func (m *Manager) describeSubject(s subject, loc colfmt.Locale) string {
	name := upperFirst(m.labels.Table(s.table.Name))
	line := name
	if s.rows > 0 {
		line += " — " + aboutCount(s.rows, loc)
	}
	if c := strings.TrimSpace(s.table.Comment); c != "" {
		if i := strings.IndexByte(c, ';'); i > 0 {
			c = c[:i]
		}
		line += " (" + lowerFirst(tables.Clip(c, 90)) + ")"
	}
	var can []string
	can = append(can, "count them")
	if len(s.measures) > 0 {
		can = append(can, "add up "+orList(s.measures, 4))
	}
	line += ": " + strings.Join(can, ", ")
	if len(s.dims) > 0 {
		line += ", by " + orList(s.dims, 4)
	}
	return line + "."
}

// aboutCount formats a table size: exact when small, rounded to two
// significant digits with "about" when large (servers estimate them).
func aboutCount(n int64, loc colfmt.Locale) string {
	if n < 1000 {
		return loc.Int(int(n)) + " rows"
	}
	mag := math.Pow(10, math.Floor(math.Log10(float64(n)))-1)
	r := int(math.Round(float64(n)/mag) * mag)
	return "about " + loc.Int(r) + " rows"
}

// orList joins up to max items with "or", saying how many more there are.
func orList(items []string, most int) string {
	if len(items) > most {
		return strings.Join(items[:most], ", ") + fmt.Sprintf(" (and %d more)", len(items)-most)
	}
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// teamDefinitions are the glossary's meanings that apply to the asker,
// one per meaning with its other names ("'net revenue' (also 'net
// sales') = …"); relationships between tables are the bot's business.
func (m *Manager) teamDefinitions(ctx context.Context, who Who) []string {
	facts, err := m.deps.Facts.Applicable(ctx, ownerKeys(who), m.cfg.Warehouse)
	if err != nil {
		m.log.Warn("cannot read the glossary for an overview", "err", err)
		return nil
	}
	var order []string
	names := map[string][]string{}
	for _, f := range facts {
		if !f.FromGlossary() || f.Kind == ontology.KindQuery || f.Kind == ontology.KindJoin || f.Meaning == "" {
			continue
		}
		if _, ok := names[f.Meaning]; !ok {
			order = append(order, f.Meaning)
		}
		if !slices.Contains(names[f.Meaning], f.Phrase) {
			names[f.Meaning] = append(names[f.Meaning], f.Phrase)
		}
	}
	var out []string
	for _, meaning := range order {
		ns := names[meaning]
		sort.Slice(ns, func(i, j int) bool { return len(ns[i]) > len(ns[j]) || len(ns[i]) == len(ns[j]) && ns[i] < ns[j] })
		line := "'" + ns[0] + "'"
		if len(ns) > 1 {
			line += " (also '" + strings.Join(ns[1:], "', '") + "')"
		}
		out = append(out, line+" = "+lowerFirst(tables.Clip(meaning, 80)))
	}
	sort.Strings(out)
	if len(out) > 8 {
		out = append(out[:8], fmt.Sprintf("and %d more", len(out)-8))
	}
	return out
}

// exampleQuestions builds questions from the schema: a count in the
// latest year of the largest subject with dates, a measure over time, a
// top five, and the value that has the most rows.
func (m *Manager) exampleQuestions(subs []subject) []string {
	var out []string
	add := func(q string) {
		if q != "" && len(out) < 4 {
			out = append(out, `"`+q+`"`)
		}
	}
	// The subject of the examples: the largest one that has both figures
	// to add up and dates, else the largest with figures.
	var fact *subject
	for i := range subs {
		if len(subs[i].measures) > 0 && m.latestYear(subs[i].table) != "" {
			fact = &subs[i]
			break
		}
	}
	for i := range subs {
		if fact == nil && len(subs[i].measures) > 0 {
			fact = &subs[i]
		}
	}
	if fact == nil && len(subs) > 0 {
		fact = &subs[0]
	}
	if fact == nil {
		return nil
	}
	noun := m.labels.Table(fact.table.Name)
	year := m.latestYear(fact.table)
	if year != "" {
		add(fmt.Sprintf("how many %s were there in %s?", noun, year))
	} else {
		add(fmt.Sprintf("how many %s are there?", noun))
	}
	if len(fact.measures) > 0 {
		measure := m.exampleMeasure(fact.table, fact.measures)
		if year != "" {
			add(fmt.Sprintf("%s by month in %s", measure, year))
		}
		// The top five of a named subject the measured rows point at.
		if ref := m.namedParent(fact.table); ref != "" {
			add(fmt.Sprintf("top 5 %s by %s", m.labels.Table(ref), measure))
		}
	}
	for _, s := range subs {
		if len(s.dims) > 0 && s.table != fact.table && m.textDim(s.table) != "" {
			add(fmt.Sprintf("which %s has the most %s?", m.textDim(s.table), m.labels.Table(s.table.Name)))
			break
		}
	}
	if len(out) < 4 && len(fact.dims) > 0 && m.textDim(fact.table) != "" {
		add(fmt.Sprintf("%s by %s", noun, m.textDim(fact.table)))
	}
	return out
}

// exampleMeasure is the figure examples add up: a sum of money before
// other figures, in the table's order.
func (m *Manager) exampleMeasure(t *warehouse.Table, measures []string) string {
	for _, c := range t.Columns {
		tc := t.Name + "." + c.Name
		if m.labels.Format(tc).Kind == colfmt.Money && c.Kind() == warehouse.KindNumber && !m.labels.IsKey(tc) {
			short := lowerFirst(m.labels.short(tc))
			if slices.Contains(measures, short) {
				return short
			}
		}
	}
	return measures[0]
}

// latestYear is the last full year a table's first date column covers,
// or the latest one when none is full; "" without dates.
func (m *Manager) latestYear(t *warehouse.Table) string {
	for _, c := range t.Columns {
		if c.Kind() != warehouse.KindTime {
			continue
		}
		p := m.labels.prof[strings.ToLower(t.Name+"."+c.Name)]
		if p == nil || len(p.Max) < 4 || len(p.Min) < 4 {
			continue
		}
		year, err := strconv.Atoi(p.Max[:4])
		if err != nil || year <= 0 {
			continue
		}
		if len(p.Max) >= 10 && p.Max[5:10] != "12-31" && p.Min[:4] < p.Max[:4] {
			year-- // the latest year is not over: the one before it is
		}
		return strconv.Itoa(year)
	}
	return ""
}

// namedParent is a table with a name column that t's rows point at.
func (m *Manager) namedParent(t *warehouse.Table) string {
	snap := m.deps.Catalog.Snapshot()
	for _, j := range snap.Schema.Joins {
		if !strings.EqualFold(j.FromTable, t.Name) {
			continue
		}
		if p, ok := m.labels.tables[strings.ToLower(j.ToTable)]; ok {
			for _, c := range p.Columns {
				if m.labels.isLabel(p.Name, c.Name) {
					return p.Name
				}
			}
		}
	}
	return ""
}

// textDim is a few-valued text column of t, in words ("segment").
func (m *Manager) textDim(t *warehouse.Table) string {
	for _, c := range t.Columns {
		p := m.labels.prof[strings.ToLower(t.Name+"."+c.Name)]
		if c.Kind() == warehouse.KindText && p != nil && p.Distinct > 1 && p.Distinct <= 50 && !m.labels.isLabel(t.Name, c.Name) {
			return humanize(c.Name)
		}
	}
	return ""
}

// meaningOf says what a word means here: the team's definition, the
// asker's own earlier choice, and what the data offers for it — columns,
// a subject, or a stored value.
func (m *Manager) meaningOf(ctx context.Context, who Who, term string, loc colfmt.Locale) string {
	phrase := ontology.NormalizePhrase(term)
	var lines []string
	said := map[string]bool{} // meanings a definition already gave
	facts, err := m.deps.Facts.Applicable(ctx, ownerKeys(who), m.cfg.Warehouse)
	if err != nil {
		m.log.Warn("cannot read preferences for a meaning", "err", err)
	}
	for _, f := range ontology.Resolve(facts) {
		if f.Phrase != phrase || f.Kind == ontology.KindQuery || f.Meaning == "" {
			continue
		}
		whose := UsedFact{Scope: f.Scope, Team: f.FromGlossary(), Definition: f.Kind == ontology.KindDefinition}.Whose("workspace")
		line := fmt.Sprintf("%s: '%s' = %s.", upperFirst(whose), phrase, lowerFirst(strings.TrimSuffix(f.Meaning, ".")))
		if !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
		said[strings.ToLower(strings.TrimSuffix(f.Meaning, "."))] = true
	}
	defined := len(lines) > 0
	// A stored value ("Texas") is what the word names, before the
	// columns whose comments mention it as an example.
	for _, h := range m.deps.Catalog.SearchValues(term, 3) {
		if h.Score >= 0.9 {
			tc := h.Table + "." + h.Column
			line := fmt.Sprintf("'%s' is a %s of %s", h.Value, lowerFirst(m.labels.short(tc)), m.labels.Table(h.Table))
			if d := m.labels.Detail(tc); !strings.EqualFold(d, m.labels.short(tc)) {
				line += " (" + lowerFirst(d) + ")"
			}
			lines = append(lines, line+".")
			return strings.Join(lines, "\n")
		}
	}
	// Columns whose names or comments hold the word: all of its words when
	// some column has them all, and not far behind the best.
	hits := m.deps.Catalog.SearchColumns(term, 8)
	words := len(strings.Fields(term))
	whole := slices.ContainsFunc(hits, func(h catalog.ColumnHit) bool { return len(h.Matched) >= words })
	var cols []string
	seen := map[string]bool{}
	for _, h := range hits {
		if len(h.Matched) == 0 || whole && len(h.Matched) < words || h.Score < 0.5*hits[0].Score || len(cols) == 4 {
			continue
		}
		tc := h.Table + "." + h.Column
		d := m.labels.Detail(tc)
		if seen[d] || said[strings.ToLower(d)] {
			continue
		}
		seen[d] = true
		cols = append(cols, fmt.Sprintf("%s (%s)", d, m.labels.Table(h.Table)))
	}
	switch {
	case len(cols) == 1 && defined:
		lines = append(lines, "In the data that is "+lowerFirst(cols[0])+".")
	case len(cols) == 1:
		lines = append(lines, "In the data, '"+term+"' is "+lowerFirst(cols[0])+".")
	case len(cols) > 1 && defined:
		lines = append(lines, fmt.Sprintf("In the data, '%s' could also be: %s.", term, strings.Join(cols, "; ")))
	case len(cols) > 1:
		lines = append(lines, fmt.Sprintf("In the data, '%s' can mean %d things: %s. When a question could mean more than one, I ask which, and remember your answer.", term, len(cols), strings.Join(cols, "; ")))
	}
	for _, s := range m.subjects() {
		if singular(strings.ToLower(m.labels.Table(s.table.Name))) == singular(strings.ToLower(term)) {
			lines = append(lines, m.describeSubject(s, loc))
			break
		}
	}
	if len(lines) == 0 {
		return fmt.Sprintf("I don't know '%s' from the data or the team's definitions. Ask \"what can I ask?\" to see what is here, or tell me what it means in a question (\"… where %s means …\").", term, term)
	}
	return strings.Join(lines, "\n")
}
