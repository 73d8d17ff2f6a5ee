package dialog

import (
	"strings"
	"unicode"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/internal/tables"
)

// Labels words schema elements for people, from column comments where the
// schema has them and from humanised names where it does not.
type Labels struct {
	snap    *warehouse.Snapshot
	columns map[string]*warehouse.Column
	tables  map[string]*warehouse.Table
	prof    map[string]*warehouse.Profile
	// currency is the warehouse's currency where its columns say
	// (colfmt.SchemaCurrency), for money columns that do not.
	currency string
}

// NewLabels indexes a snapshot for wording.
func NewLabels(snap *warehouse.Snapshot) *Labels {
	l := &Labels{snap: snap, columns: map[string]*warehouse.Column{}, tables: map[string]*warehouse.Table{}, prof: map[string]*warehouse.Profile{}}
	if snap == nil {
		return l
	}
	for ti := range snap.Schema.Tables {
		t := &snap.Schema.Tables[ti]
		l.tables[strings.ToLower(t.Name)] = t
		for ci := range t.Columns {
			c := &t.Columns[ci]
			l.columns[strings.ToLower(t.Name+"."+c.Name)] = c
		}
	}
	for i := range snap.Profiles {
		p := &snap.Profiles[i]
		l.prof[strings.ToLower(p.Table+"."+p.Column)] = p
	}
	var cols []colfmt.Column
	for _, c := range l.columns {
		cols = append(cols, sourceColumn(c))
	}
	l.currency = colfmt.SchemaCurrency(cols)
	return l
}

// Currency is the warehouse's currency symbol where its columns say
// ("$"), applied to money columns that do not; "" when unknown.
func (l *Labels) Currency() string { return l.currency }

// sourceColumn describes a stored column to the formatter.
func sourceColumn(c *warehouse.Column) colfmt.Column {
	return colfmt.Column{Name: c.Name, Type: strings.ToUpper(c.DataType), Source: c.Name, Comment: c.Comment, SourceType: c.DataType}
}

// Format is how values of table.column read for people (money in the
// warehouse's currency, dates, ids…), for examples and descriptions.
func (l *Labels) Format(tc string) colfmt.Format {
	c, ok := l.columns[strings.ToLower(tc)]
	if !ok {
		_, col := splitTC(tc)
		return colfmt.Detect(colfmt.Column{Name: col})
	}
	fs := []colfmt.Format{colfmt.Detect(sourceColumn(c))}
	colfmt.Consistent(fs, l.currency)
	return fs[0]
}

// IsKey says whether table.column identifies the table's rows: its
// single-column primary key, or a column called id (warehouses often
// declare no keys).
func (l *Labels) IsKey(tc string) bool {
	table, col := splitTC(tc)
	if strings.EqualFold(col, "id") {
		return true
	}
	t, ok := l.tables[strings.ToLower(table)]
	return ok && len(t.PrimaryKey) == 1 && strings.EqualFold(t.PrimaryKey[0], col)
}

// humanize turns an identifier into words.
func humanize(id string) string { return tables.Humanize(id) }

func splitTC(tc string) (table, column string) {
	if i := strings.LastIndexByte(tc, '.'); i >= 0 {
		return tc[:i], tc[i+1:]
	}
	return "", tc
}

// Table is a plural noun for a table.
func (l *Labels) Table(table string) string {
	if table == "" {
		return "rows"
	}
	return humanize(table)
}

// Column is a short name for table.column, for explanations: the comment
// up to its first clause ("Gross revenue: order lines plus…" → "gross
// revenue"), else the humanised column name.
func (l *Labels) Column(tc string) string {
	if strings.ContainsAny(tc, "( '") {
		// An expression, not a column: say what it computes.
		return sqlshape.DescribeExpression(tc, l)
	}
	_, col := splitTC(tc)
	if c, ok := l.columns[strings.ToLower(tc)]; ok && c.Comment != "" && namesColumn(c.Comment) {
		short := c.Comment
		if i := strings.IndexAny(short, ":;(,"); i > 0 {
			short = short[:i]
		}
		short = strings.TrimSpace(short)
		if n := len(strings.Fields(short)); n > 0 && n <= 6 {
			short = lowerFirst(short)
			// "The unique ID of the loan" reads as a name without its article.
			for _, a := range []string{"the ", "a ", "an "} {
				if rest, ok := strings.CutPrefix(short, a); ok && rest != "" {
					return rest
				}
			}
			return short
		}
	}
	return humanize(col)
}

// Detail is the fuller wording used for options: the whole comment (up to
// a semicolon), else "ship state of orders".
func (l *Labels) Detail(tc string) string {
	if strings.ContainsAny(tc, "( '") {
		return upperFirst(sqlshape.DescribeExpression(tc, l))
	}
	table, col := splitTC(tc)
	if c, ok := l.columns[strings.ToLower(tc)]; ok && c.Comment != "" && namesColumn(c.Comment) {
		d := c.Comment
		if i := strings.IndexByte(d, ';'); i > 0 {
			d = d[:i]
		}
		return upperFirst(strings.TrimSpace(d))
	}
	if table == "" {
		return upperFirst(humanize(col))
	}
	return upperFirst(humanize(col) + " of " + l.Table(table))
}

// namesColumn reports whether a column comment starts by saying what the
// column is, rather than what its values are ("Possible values: …", "0 for
// user, 1 for merchant", "NULL if still open", "e.g. …"): only then is its
// first clause a name for the column.
func namesColumn(comment string) bool {
	first := strings.ToLower(strings.TrimSpace(comment))
	if i := strings.IndexAny(first, ":;,("); i >= 0 {
		first = first[:i]
	}
	if first == "" || first[0] >= '0' && first[0] <= '9' {
		return false
	}
	for _, w := range []string{"null", "e.g.", "eg", "either", "one of"} {
		if first == w || strings.HasPrefix(first, w+" ") {
			return false
		}
	}
	return !strings.Contains(" "+first+" ", " values ") && !strings.Contains(" "+first+" ", " value ")
}

// Example is a typical value of table.column from its profile, formatted
// for people, or "".
func (l *Labels) Example(tc string) string {
	p, ok := l.prof[strings.ToLower(tc)]
	if !ok {
		return ""
	}
	var v string
	switch {
	case len(p.Top) > 0:
		v = p.Top[0].Value
	case len(p.Samples) > 0:
		v = p.Samples[0]
	case p.Max != "":
		v = p.Max
	default:
		return ""
	}
	if _, ok := sqlresult.AsFloat(v); ok {
		return l.Format(tc).Value(v)
	}
	return tables.Clip(v, 30)
}

// Kind is the type family of table.column.
func (l *Labels) Kind(tc string) warehouse.ColumnKind {
	if c, ok := l.columns[strings.ToLower(tc)]; ok {
		return c.Kind()
	}
	return warehouse.KindOther
}

// TableOf resolves an unqualified column among tables, for sqlshape.
func (l *Labels) TableOf(column string, tables []string) string {
	found := ""
	for _, t := range tables {
		if _, ok := l.columns[strings.ToLower(t+"."+column)]; ok {
			if found != "" {
				return "" // ambiguous
			}
			found = t
		}
	}
	return found
}

// canonValue maps a literal to the name it abbreviates when the data shows
// it ('tx' → 'texas'), so that 'TX' in one column and 'Texas' in another
// are the same thing asked about.
func (l *Labels) canonValue() func(string) string {
	alias := map[string]string{}
	if l.snap != nil {
		for _, a := range l.snap.Aliases {
			alias[strings.ToLower(a.Code)] = strings.ToLower(a.Name)
		}
	}
	return func(v string) string {
		if n, ok := alias[v]; ok {
			return n
		}
		return v
	}
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	// Keep acronyms ("US dollars", "SKU").
	if len(r) > 1 && unicode.IsUpper(r[1]) {
		return s
	}
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
