// Package offline is Clarify's engine without a language model: an
// interpreter in the tradition of ATHENA and NaLIR that maps the words of a
// question to tables, columns and stored values through the schema
// catalog, recognises the common analytic shapes (projections, filters on
// values, comparisons and dates, counts and aggregates, grouping,
// superlatives and top-k), and — wherever a word can be read more than one
// way — enumerates the readings as candidate queries with priors, for the
// dialog manager to run, compare and ask about.
package offline

import (
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// tableInfo is what the interpreter knows about one table.
type tableInfo struct {
	name     string
	t        *warehouse.Table
	label    *warehouse.Column   // the column that names a row: name, title…
	key      *warehouse.Column   // primary key or id
	details  []*warehouse.Column // key, label and contact columns: "list customers" in full
	measures []*warehouse.Column // numeric columns worth adding up
	dates    []*warehouse.Column
	texts    []*warehouse.Column
	rows     int64
	// refs counts the joins that leave this table: fact tables reference
	// the tables that describe their rows.
	refs int
}

// model is the schema as the interpreter sees it.
type model struct {
	cat    *catalog.Catalog
	snap   *warehouse.Snapshot
	tables []*tableInfo
	byName map[string]*tableInfo
	byTerm map[string][]*tableInfo // a table's name terms and their singulars
	// byColumn lists the tables' columns by lower-case name, for phrases
	// that spell one ("units in stock").
	byColumn map[string][]colAlt
	// named are the tables with a one-word name (storage qualifiers left
	// out) and that word, for words the lexicon relates to them.
	named    []namedTable
	joinCols map[string]bool // table.column used by a join
	// refs maps a lower-case table to the lower-case tables its rows
	// refer to.
	refs     map[string]map[string]bool
	reserved map[string]bool
	alias    map[string]string // lower-case code → lower-case name
	// aliasTables hold code/name pairs (states: 'TX', 'Texas'): a value
	// found there is usually the name of a code stored elsewhere.
	aliasTables map[string]bool
	profiles    map[string]*warehouse.Profile
}

func newModel(cat *catalog.Catalog) *model {
	snap := cat.Snapshot()
	m := &model{cat: cat, snap: snap, byName: map[string]*tableInfo{}, byTerm: map[string][]*tableInfo{}, byColumn: map[string][]colAlt{},
		joinCols: map[string]bool{}, reserved: map[string]bool{}, alias: map[string]string{}, aliasTables: map[string]bool{}, profiles: map[string]*warehouse.Profile{}}
	for _, k := range parser.Keywords {
		if k.Reserved {
			m.reserved[strings.ToLower(k.Word)] = true
		}
	}
	for _, a := range snap.Aliases {
		m.alias[strings.ToLower(a.Code)] = strings.ToLower(a.Name)
		m.aliasTables[strings.ToLower(a.Table)] = true
	}
	for i := range snap.Profiles {
		p := &snap.Profiles[i]
		m.profiles[strings.ToLower(p.Table+"."+p.Column)] = p
	}
	m.refs = map[string]map[string]bool{}
	for _, j := range snap.Schema.Joins {
		m.joinCols[strings.ToLower(j.FromTable+"."+j.FromColumn)] = true
		m.joinCols[strings.ToLower(j.ToTable+"."+j.ToColumn)] = true
		from := strings.ToLower(j.FromTable)
		if m.refs[from] == nil {
			m.refs[from] = map[string]bool{}
		}
		m.refs[from][strings.ToLower(j.ToTable)] = true
	}
	for ti := range snap.Schema.Tables {
		t := &snap.Schema.Tables[ti]
		info := &tableInfo{name: t.Name, t: t, rows: t.RowCount}
		m.classify(info)
		m.tables = append(m.tables, info)
		m.byName[strings.ToLower(t.Name)] = info
		for ci := range t.Columns {
			n := strings.ToLower(t.Columns[ci].Name)
			m.byColumn[n] = append(m.byColumn[n], colAlt{table: t.Name, column: t.Columns[ci].Name, weight: 1})
		}
		for _, term := range tableTerms(cat, t.Name) {
			m.byTerm[term] = append(m.byTerm[term], info)
		}
	}
	for _, j := range snap.Schema.Joins {
		if t := m.byName[strings.ToLower(j.FromTable)]; t != nil {
			t.refs++
		}
	}
	for _, t := range m.tables {
		if w := nameWord(t.name); w != "" {
			m.named = append(m.named, namedTable{t: t, word: w})
		}
	}
	// "items" is the item table before order_item:
	// a table named by the term alone comes first.
	for term, ts := range m.byTerm {
		sort.SliceStable(ts, func(i, j int) bool {
			return strings.Join(cat.NameTerms(ts[i].name), " ") == term && strings.Join(cat.NameTerms(ts[j].name), " ") != term
		})
	}
	return m
}

// tableTerms are the stemmed words that name a table: "sales_reps" →
// "sale rep" and "rep"; "order_lines" → "order line" and "line".
func tableTerms(cat *catalog.Catalog, name string) []string {
	words := cat.NameTerms(name)
	var out []string
	if len(words) > 0 {
		out = append(out, strings.Join(words, " "))
		if len(words) > 1 {
			out = append(out, words[len(words)-1])
		}
	}
	// dim_customer, fact_orders, tbl_city.
	if len(words) > 1 && (words[0] == "dim" || words[0] == "fact" || words[0] == "tbl") {
		out = append(out, strings.Join(words[1:], " "))
	}
	// payments_daily, account_snapshot, orders_history:
	// a qualifier of how the rows are kept is not what people call them.
	if n := len(words); n > 1 && tableQualifiers[words[n-1]] {
		short := []string{strings.Join(words[:n-1], " ")}
		if n > 2 {
			short = append(short, words[n-2])
		}
		// neighbour_info.neighbour: the word names the column, not the table.
		t := cat.Snapshot().Schema.Table(name)
		for _, term := range short {
			own := t == nil
			for _, c := range tableColumns(t) {
				own = own || strings.Join(cat.NameTerms(c.Name), " ") == term
			}
			if !own {
				out = append(out, term)
			}
		}
	}
	return out
}

// tableQualifiers end table names without naming what the rows are.
var tableQualifiers = map[string]bool{"daily": true, "weekly": true, "monthly": true, "hourly": true, "snapshot": true, "history": true,
	"hist": true, "log": true, "logs": true, "agg": true, "summary": true, "stat": true, "stats": true, "current": true, "latest": true,
	"raw": true, "stage": true, "staging": true, "stg": true, "detail": true, "details": true, "archive": true, "v1": true, "v2": true,
	"info": true, "data": true, "record": true, "records": true, "table": true, "list": true, "map": true, "mapping": true, "xref": true}

func (m *model) profile(table, column string) *warehouse.Profile {
	return m.profiles[strings.ToLower(table+"."+column)]
}

// idWords end in "id" and name no identifier: "amount_paid" is money.
var idWords = setOf(`paid unpaid prepaid repaid overpaid valid invalid void rapid liquid solid fluid hybrid humid`)

func (m *model) isKeyish(t *warehouse.Table, c *warehouse.Column) bool {
	n := strings.ToLower(c.Name)
	if len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) {
		return true
	}
	return n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(n, "id") && len(n) > 2 && c.Kind() == warehouse.KindNumber && !idWords[n[strings.LastIndexByte(n, '_')+1:]] ||
		m.joinCols[strings.ToLower(t.Name+"."+c.Name)] && c.Kind() == warehouse.KindNumber
}

// classify finds the label, key, measures and dates of a table.
func (m *model) classify(info *tableInfo) {
	t := info.t
	singular := singularOf(strings.ToLower(t.Name))
	var labelScore float64
	for ci := range t.Columns {
		c := &t.Columns[ci]
		n := strings.ToLower(c.Name)
		switch c.Kind() {
		case warehouse.KindNumber:
			if len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) || n == "id" {
				info.key = c
				continue
			}
			// "invoice_number" names an invoice: a label when nothing
			// better does, never a measure.
			if n == singular+"_number" || n == singular+"_no" || n == singular+"_code" || n == singular+"number" {
				if labelScore < 5 {
					labelScore, info.label = 5, c
				}
				continue
			}
			if !m.isKeyish(t, c) && n != "year" && !strings.HasSuffix(n, "_year") {
				info.measures = append(info.measures, c)
			}
		case warehouse.KindTime:
			info.dates = append(info.dates, c)
		case warehouse.KindText:
			info.texts = append(info.texts, c)
			if len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) && info.key == nil {
				info.key = c
			}
			score := 0.0
			switch {
			case n == "name" || n == "title" || n == "label":
				score = 10
			case n == singular+"_name" || n == singular+"name" || n == strings.ToLower(t.Name)+"_name":
				score = 9
			case strings.HasSuffix(n, "_name") || strings.HasSuffix(n, "name"):
				score = 6
			case n == singular+"_number" || n == singular+"_no" || n == singular+"number":
				score = 5
			case n == "code" || strings.HasSuffix(n, "_code"):
				score = 2
			default:
				if p := m.profile(t.Name, c.Name); p != nil && p.Rows > 0 && float64(p.Distinct) >= 0.8*float64(p.Rows) && !strings.Contains(n, "email") {
					score = 3
				}
			}
			if score > labelScore {
				labelScore, info.label = score, c
			}
		}
	}
	if info.key == nil {
		info.key = m.namedKey(info)
	}
	if info.label == nil && info.key != nil {
		info.label = info.key
	}
	if info.key != nil {
		info.details = append(info.details, info.key)
	}
	if info.label != nil && info.label != info.key {
		info.details = append(info.details, info.label)
	}
	for ci := range t.Columns {
		c := &t.Columns[ci]
		n := strings.ToLower(c.Name)
		if c != info.label && c != info.key && (strings.Contains(n, "email") || strings.Contains(n, "phone")) {
			info.details = append(info.details, c)
		}
	}
	sort.SliceStable(info.details, func(i, j int) bool { return info.details[i].Position < info.details[j].Position })
}

// namedKey finds the key of a table that declares none: a column named
// "id" or after the table ("loan_id" of loan, "member_id" of member,
// "branch_code" of branch) whose profile shows a value of its own in
// every row.
func (m *model) namedKey(info *tableInfo) *warehouse.Column {
	t := info.t
	singular := singularOf(strings.ToLower(t.Name))
	for ci := range t.Columns {
		c := &t.Columns[ci]
		n := strings.ToLower(c.Name)
		if n != "id" && n != singular+"_id" && n != strings.ToLower(t.Name)+"_id" && n != singular+"_code" {
			continue
		}
		p := m.profile(t.Name, c.Name)
		if p != nil && !p.Sampled && !p.Partial && p.NullShare == 0 && p.Rows > 1 && p.Distinct == p.Rows && p.Rows == info.rows {
			return c
		}
	}
	return nil
}

func singularOf(w string) string { return sqlshape.Singular(w) }

// column returns the schema column for table.column.
func (m *model) column(table, column string) *warehouse.Column {
	if t := m.byName[strings.ToLower(table)]; t != nil {
		return t.t.Column(column)
	}
	return nil
}

// ident quotes an identifier only when it needs it.
func (m *model) ident(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain && !m.reserved[strings.ToLower(s)] {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

func (m *model) col(table, column string) string {
	return m.ident(table) + "." + m.ident(column)
}

// canon is the form sqlshape gives a literal in slot keys.
func (m *model) canon(v string) string {
	v = strings.ToLower(v)
	if n, ok := m.alias[v]; ok {
		return n
	}
	return v
}

// quote makes a SQL string literal.
func quote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func tableColumns(t *warehouse.Table) []warehouse.Column {
	if t == nil {
		return nil
	}
	return t.Columns
}

// unique says whether every row of table has its own non-null value of
// column: its single-column primary key, or a fully profiled column with as
// many distinct values as rows.
func (m *model) unique(table, column string) bool {
	t := m.byName[strings.ToLower(table)]
	if t == nil {
		return false
	}
	if len(t.t.PrimaryKey) == 1 && strings.EqualFold(t.t.PrimaryKey[0], column) {
		return true
	}
	pr := m.profile(t.name, column)
	return pr != nil && !pr.Sampled && !pr.Partial && pr.NullShare == 0 && pr.Rows > 0 && pr.Distinct == pr.Rows && pr.Rows == t.rows
}

// namedTable is a table with a one-word name.
type namedTable struct {
	t    *tableInfo
	word string
}
