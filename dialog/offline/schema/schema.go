// Package schema is the offline engine's view of the warehouse, the stage
// every reading is linked against: each table with the column that names a
// row (its label), its key, the numbers worth adding up, its dates and
// texts; the words that name a table ("sales_reps" → "sale rep", "rep";
// storage qualifiers such as "_daily" or "_history" left out); which
// columns joins use, which tables refer to which, code/name pairs, and the
// value profiles. It reads the catalog once; later stages only look things
// up here.
package schema

import (
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// Table is what the interpreter knows about one table.
type Table struct {
	Name     string
	Def      *warehouse.Table
	Label    *warehouse.Column   // the column that names a row: name, title…
	Key      *warehouse.Column   // primary key or id
	Details  []*warehouse.Column // key, label and contact columns: "list customers" in full
	Measures []*warehouse.Column // numeric columns worth adding up
	Dates    []*warehouse.Column
	Texts    []*warehouse.Column
	Rows     int64
	// Refs counts the joins that leave this table: fact tables reference
	// the tables that describe their rows.
	Refs int
}

// Model is the schema as the interpreter sees it.
type Model struct {
	Cat    *catalog.Catalog
	Snap   *warehouse.Snapshot
	Tables []*Table
	ByName map[string]*Table
	ByTerm map[string][]*Table // a table's name terms and their singulars
	// ByColumn lists the tables' columns by lower-case name, for phrases
	// that spell one ("units in stock").
	ByColumn map[string][]ColumnRef
	// Named are the tables with a one-word name (storage qualifiers left
	// out) and that word, for words the lexicon relates to them.
	Named    []NamedTable
	JoinCols map[string]bool // table.column used by a join
	// Refs maps a lower-case table to the lower-case tables its rows
	// refer to.
	Refs     map[string]map[string]bool
	Reserved map[string]bool
	Alias    map[string]string // lower-case code → lower-case name
	// AliasTables hold code/name pairs (states: 'TX', 'Texas'): a value
	// found there is usually the name of a code stored elsewhere.
	AliasTables map[string]bool
	Profiles    map[string]*warehouse.Profile
}

func New(cat *catalog.Catalog) *Model {
	snap := cat.Snapshot()
	m := &Model{Cat: cat, Snap: snap, ByName: map[string]*Table{}, ByTerm: map[string][]*Table{}, ByColumn: map[string][]ColumnRef{},
		JoinCols: map[string]bool{}, Reserved: map[string]bool{}, Alias: map[string]string{}, AliasTables: map[string]bool{}, Profiles: map[string]*warehouse.Profile{}}
	for _, k := range parser.Keywords {
		if k.Reserved {
			m.Reserved[strings.ToLower(k.Word)] = true
		}
	}
	for _, a := range snap.Aliases {
		m.Alias[strings.ToLower(a.Code)] = strings.ToLower(a.Name)
		m.AliasTables[strings.ToLower(a.Table)] = true
	}
	for i := range snap.Profiles {
		p := &snap.Profiles[i]
		m.Profiles[strings.ToLower(p.Table+"."+p.Column)] = p
	}
	m.Refs = map[string]map[string]bool{}
	for _, j := range snap.Schema.Joins {
		m.JoinCols[strings.ToLower(j.FromTable+"."+j.FromColumn)] = true
		m.JoinCols[strings.ToLower(j.ToTable+"."+j.ToColumn)] = true
		from := strings.ToLower(j.FromTable)
		if m.Refs[from] == nil {
			m.Refs[from] = map[string]bool{}
		}
		m.Refs[from][strings.ToLower(j.ToTable)] = true
	}
	for ti := range snap.Schema.Tables {
		t := &snap.Schema.Tables[ti]
		info := &Table{Name: t.Name, Def: t, Rows: t.RowCount}
		m.classify(info)
		m.Tables = append(m.Tables, info)
		m.ByName[strings.ToLower(t.Name)] = info
		for ci := range t.Columns {
			n := strings.ToLower(t.Columns[ci].Name)
			m.ByColumn[n] = append(m.ByColumn[n], ColumnRef{Table: t.Name, Column: t.Columns[ci].Name})
		}
		for _, term := range tableTerms(cat, t.Name) {
			m.ByTerm[term] = append(m.ByTerm[term], info)
		}
	}
	for _, j := range snap.Schema.Joins {
		if t := m.ByName[strings.ToLower(j.FromTable)]; t != nil {
			t.Refs++
		}
	}
	for _, t := range m.Tables {
		if w := NameWord(t.Name); w != "" {
			m.Named = append(m.Named, NamedTable{Table: t, Word: w})
		}
	}
	// "items" is the item table before order_item:
	// a table named by the term alone comes first.
	for term, ts := range m.ByTerm {
		sort.SliceStable(ts, func(i, j int) bool {
			return strings.Join(cat.NameTerms(ts[i].Name), " ") == term && strings.Join(cat.NameTerms(ts[j].Name), " ") != term
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
	if n := len(words); n > 1 && TableQualifiers[words[n-1]] {
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

// TableQualifiers end table names without naming what the rows are.
var TableQualifiers = words.Set("tablequalifier")

func (m *Model) Profile(table, column string) *warehouse.Profile {
	return m.Profiles[strings.ToLower(table+"."+column)]
}

// idWords end in "id" and name no identifier: "amount_paid" is money.
var idWords = words.Set("notid")

func (m *Model) IsKeyish(t *warehouse.Table, c *warehouse.Column) bool {
	n := strings.ToLower(c.Name)
	if len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) {
		return true
	}
	return n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(n, "id") && len(n) > 2 && c.Kind() == warehouse.KindNumber && !idWords[n[strings.LastIndexByte(n, '_')+1:]] ||
		m.JoinCols[strings.ToLower(t.Name+"."+c.Name)] && c.Kind() == warehouse.KindNumber
}

// classify finds the label, key, measures and dates of a table.
func (m *Model) classify(info *Table) {
	t := info.Def
	singular := sqlshape.Singular(strings.ToLower(t.Name))
	var labelScore float64
	for ci := range t.Columns {
		c := &t.Columns[ci]
		switch c.Kind() {
		case warehouse.KindNumber:
			m.numberColumn(info, c, singular, &labelScore)
		case warehouse.KindTime:
			info.Dates = append(info.Dates, c)
		case warehouse.KindText:
			info.Texts = append(info.Texts, c)
			if len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) && info.Key == nil {
				info.Key = c
			}
			if score := m.labelScore(t, c, singular); score > labelScore {
				labelScore, info.Label = score, c
			}
		}
	}
	if info.Key == nil {
		info.Key = m.namedKey(info)
	}
	if info.Label == nil && info.Key != nil {
		info.Label = info.Key
	}
	info.Details = details(info)
}

// numberColumn files a numeric column: the key, a number that names a row
// ("invoice_number": a label when nothing better does, never a measure),
// or a measure unless it is key-like or a year.
func (m *Model) numberColumn(info *Table, c *warehouse.Column, singular string, labelScore *float64) {
	t := info.Def
	n := strings.ToLower(c.Name)
	if len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], c.Name) || n == "id" {
		info.Key = c
		return
	}
	if n == singular+"_number" || n == singular+"_no" || n == singular+"_code" || n == singular+"number" {
		if *labelScore < 5 {
			*labelScore, info.Label = 5, c
		}
		return
	}
	if !m.IsKeyish(t, c) && n != "year" && !strings.HasSuffix(n, "_year") {
		info.Measures = append(info.Measures, c)
	}
}

// labelScore says how well a text column names a row of its table: its
// name first, then a name after the table, any name, a number, a code, and
// (when profiled) a nearly unique value.
func (m *Model) labelScore(t *warehouse.Table, c *warehouse.Column, singular string) float64 {
	n := strings.ToLower(c.Name)
	switch {
	case n == "name" || n == "title" || n == "label":
		return 10
	case n == singular+"_name" || n == singular+"name" || n == strings.ToLower(t.Name)+"_name":
		return 9
	case strings.HasSuffix(n, "_name") || strings.HasSuffix(n, "name"):
		return 6
	case n == singular+"_number" || n == singular+"_no" || n == singular+"number":
		return 5
	case n == "code" || strings.HasSuffix(n, "_code"):
		return 2
	}
	if p := m.Profile(t.Name, c.Name); p != nil && p.Rows > 0 && float64(p.Distinct) >= 0.8*float64(p.Rows) && !strings.Contains(n, "email") {
		return 3
	}
	return 0
}

// details are the columns "list the members" shows in full: key, label
// and contact columns, in table order.
func details(info *Table) []*warehouse.Column {
	var out []*warehouse.Column
	if info.Key != nil {
		out = append(out, info.Key)
	}
	if info.Label != nil && info.Label != info.Key {
		out = append(out, info.Label)
	}
	for ci := range info.Def.Columns {
		c := &info.Def.Columns[ci]
		n := strings.ToLower(c.Name)
		if c != info.Label && c != info.Key && (strings.Contains(n, "email") || strings.Contains(n, "phone")) {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Position < out[j].Position })
	return out
}

// namedKey finds the key of a table that declares none: a column named
// "id" or after the table ("loan_id" of loan, "member_id" of member,
// "branch_code" of branch) whose profile shows a value of its own in
// every row.
func (m *Model) namedKey(info *Table) *warehouse.Column {
	t := info.Def
	singular := sqlshape.Singular(strings.ToLower(t.Name))
	for ci := range t.Columns {
		c := &t.Columns[ci]
		n := strings.ToLower(c.Name)
		if n != "id" && n != singular+"_id" && n != strings.ToLower(t.Name)+"_id" && n != singular+"_code" {
			continue
		}
		p := m.Profile(t.Name, c.Name)
		if p != nil && !p.Sampled && !p.Partial && p.NullShare == 0 && p.Rows > 1 && p.Distinct == p.Rows && p.Rows == info.Rows {
			return c
		}
	}
	return nil
}

// Column returns the schema Column for table.Column.
func (m *Model) Column(table, column string) *warehouse.Column {
	if t := m.ByName[strings.ToLower(table)]; t != nil {
		return t.Def.Column(column)
	}
	return nil
}

// Ident quotes an identifier only when it needs it.
func (m *Model) Ident(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain && !m.Reserved[strings.ToLower(s)] {
		return s
	}
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}

func (m *Model) Col(table, column string) string {
	return m.Ident(table) + "." + m.Ident(column)
}

// Canon is the form sqlshape gives a literal in slot keys.
func (m *Model) Canon(v string) string {
	v = strings.ToLower(v)
	if n, ok := m.Alias[v]; ok {
		return n
	}
	return v
}

func tableColumns(t *warehouse.Table) []warehouse.Column {
	if t == nil {
		return nil
	}
	return t.Columns
}

// Unique says whether every row of table has its own non-null value of
// column: its single-column primary key, or a fully profiled column with as
// many distinct values as rows.
func (m *Model) Unique(table, column string) bool {
	t := m.ByName[strings.ToLower(table)]
	if t == nil {
		return false
	}
	if len(t.Def.PrimaryKey) == 1 && strings.EqualFold(t.Def.PrimaryKey[0], column) {
		return true
	}
	pr := m.Profile(t.Name, column)
	return pr != nil && !pr.Sampled && !pr.Partial && pr.NullShare == 0 && pr.Rows > 0 && pr.Distinct == pr.Rows && pr.Rows == t.Rows
}

// NamedTable is a table with a one-word name.
type NamedTable struct {
	Table *Table
	Word  string
}

// NameWord is the one word a table or column name consists of, leaving
// out storage qualifiers (neighbour_info → neighbour), or "".
func NameWord(name string) string {
	var words []string
	for _, w := range strings.Split(strings.ToLower(name), "_") {
		if w != "" && !TableQualifiers[w] {
			words = append(words, w)
		}
	}
	if len(words) != 1 || len(words[0]) < 4 {
		return ""
	}
	return words[0]
}

// ColumnRef names one column of one table.
type ColumnRef struct{ Table, Column string }
