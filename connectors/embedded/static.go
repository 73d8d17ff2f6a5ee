package embedded

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/memory"
	gsql "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// staticTable is a read-only table of typed rows with indexes that look
// rows up by binary search. go-mysql-server's own in-memory tables insert
// keyed rows in quadratic time and answer an index lookup by scanning the
// whole index, so a lookup join over them reads the inner table once per
// outer row; these indexes are sorted row positions, built on first use.
// Writes are refused: the engine finds no editor on the table.
type staticTable struct {
	name      string
	comment   string
	collation gsql.CollationID
	schema    gsql.PrimaryKeySchema
	rows      []gsql.Row
	indexes   []*staticIndex
	// Foreign keys as declared when the database was loaded.
	declared, referenced []gsql.ForeignKeyConstraint
}

var (
	_ memory.MemTable      = (*staticTable)(nil)
	_ gsql.IndexedTable    = (*staticTable)(nil)
	_ gsql.ForeignKeyTable = (*staticTable)(nil)
	_ gsql.StatisticsTable = (*staticTable)(nil)
	_ gsql.CommentedTable  = (*staticTable)(nil)
	_ gsql.PrimaryKeyTable = (*staticTable)(nil)
	_ gsql.Index           = (*staticIndex)(nil)
	_ gsql.PartitionIter   = (*partitionIter)(nil)
	_ gsql.RowIter         = (*rowIter)(nil)
)

// newStaticTable takes the schema, comment, indexes and foreign keys of mt,
// an empty table created from DDL, and holds rows, already converted to the
// column types.
func newStaticTable(ctx *gsql.Context, mt *memory.Table, rows []gsql.Row) (*staticTable, error) {
	t := &staticTable{name: mt.Name(), comment: mt.Comment(), collation: mt.Collation(), schema: mt.PrimaryKeySchema(), rows: rows}
	idxs, err := mt.GetIndexes(ctx)
	if err != nil {
		return nil, fmt.Errorf("indexes of %s: %w", t.name, err)
	}
	for _, idx := range idxs {
		mi, ok := idx.(*memory.Index)
		if !ok || mi.IsSpatial() || mi.IsFullText() || mi.IsVector() {
			continue
		}
		si := &staticIndex{tbl: t, name: mi.ID(), db: mi.Database(), unique: mi.IsUnique(), comment: mi.Comment(), exprs: mi.ColumnExpressions()}
		for _, e := range si.exprs {
			gf, ok := e.(*expression.GetField)
			if !ok {
				return nil, fmt.Errorf("index %s of %s is on an expression, not a column", mi.ID(), t.name)
			}
			si.cols = append(si.cols, gf.Index())
		}
		t.indexes = append(t.indexes, si)
	}
	return t, nil
}

func (t *staticTable) Name() string                            { return t.name }
func (t *staticTable) String() string                          { return t.name }
func (t *staticTable) Schema() gsql.Schema                     { return t.schema.Schema }
func (t *staticTable) Collation() gsql.CollationID             { return t.collation }
func (t *staticTable) Comment() string                         { return t.comment }
func (t *staticTable) PrimaryKeySchema() gsql.PrimaryKeySchema { return t.schema }

// IgnoreSessionData makes the memory database hand out this table itself
// rather than a session copy of a memory.Table.
func (t *staticTable) IgnoreSessionData() bool { return true }

// UnderlyingTable is only consulted for tables that keep session data.
func (t *staticTable) UnderlyingTable() *memory.Table { return nil }

func (t *staticTable) RowCount(*gsql.Context) (uint64, bool, error) {
	return uint64(len(t.rows)), true, nil
}

func (t *staticTable) DataLength(*gsql.Context) (uint64, error) {
	return uint64(len(t.rows)) * uint64(len(t.schema.Schema)) * 16, nil
}

// staticPartition is all rows (pos nil) or the rows at pos.
type staticPartition struct {
	all bool
	pos []int32
}

func (staticPartition) Key() []byte { return []byte("static") }

type partitionIter struct {
	part *staticPartition
}

func (p *partitionIter) Next(*gsql.Context) (gsql.Partition, error) {
	if p.part == nil {
		return nil, io.EOF
	}
	part := p.part
	p.part = nil
	return part, nil
}

func (p *partitionIter) Close(*gsql.Context) error { return nil }

func (t *staticTable) Partitions(*gsql.Context) (gsql.PartitionIter, error) {
	return &partitionIter{part: &staticPartition{all: true}}, nil
}

func (t *staticTable) PartitionRows(_ *gsql.Context, p gsql.Partition) (gsql.RowIter, error) {
	sp, ok := p.(*staticPartition)
	if !ok {
		return nil, fmt.Errorf("table %s: partition of type %T", t.name, p)
	}
	return &rowIter{rows: t.rows, part: sp}, nil
}

// rowIter hands out the stored rows themselves: the engine does not modify
// the rows a table returns (its own in-memory tables do the same).
type rowIter struct {
	rows []gsql.Row
	part *staticPartition
	i    int
}

func (it *rowIter) Next(*gsql.Context) (gsql.Row, error) {
	if it.part.all {
		if it.i >= len(it.rows) {
			return nil, io.EOF
		}
		it.i++
		return it.rows[it.i-1], nil
	}
	if it.i >= len(it.part.pos) {
		return nil, io.EOF
	}
	it.i++
	return it.rows[it.part.pos[it.i-1]], nil
}

func (it *rowIter) Close(*gsql.Context) error { return nil }

func (t *staticTable) GetIndexes(*gsql.Context) ([]gsql.Index, error) {
	out := make([]gsql.Index, len(t.indexes))
	for i, idx := range t.indexes {
		out[i] = idx
	}
	return out, nil
}

// PreciseMatch is false so that the engine keeps its own filter above an
// index lookup; the lookups below are exact, the filter is a safeguard.
func (t *staticTable) PreciseMatch() bool { return false }

func (t *staticTable) IndexedAccess(*gsql.Context, gsql.IndexLookup) gsql.IndexedTable { return t }

func (t *staticTable) LookupPartitions(ctx *gsql.Context, lookup gsql.IndexLookup) (gsql.PartitionIter, error) {
	idx, ok := lookup.Index.(*staticIndex)
	if !ok || idx.tbl != t {
		return nil, fmt.Errorf("table %s: lookup on a foreign index %v", t.name, lookup.Index)
	}
	if lookup.IsEmptyRange {
		return &partitionIter{part: &staticPartition{}}, nil
	}
	ranges, ok := lookup.Ranges.(gsql.MySQLRangeCollection)
	if !ok {
		return nil, fmt.Errorf("table %s: lookup ranges of type %T", t.name, lookup.Ranges)
	}
	pos, err := idx.lookup(ctx, ranges)
	if err != nil {
		return nil, err
	}
	return &partitionIter{part: &staticPartition{pos: pos}}, nil
}

func (t *staticTable) GetDeclaredForeignKeys(*gsql.Context) ([]gsql.ForeignKeyConstraint, error) {
	return t.declared, nil
}

func (t *staticTable) GetReferencedForeignKeys(*gsql.Context) ([]gsql.ForeignKeyConstraint, error) {
	return t.referenced, nil
}

func (t *staticTable) readOnly() error {
	return fmt.Errorf("table %s of the embedded warehouse is read-only", t.name)
}

func (t *staticTable) CreateIndexForForeignKey(*gsql.Context, gsql.IndexDef) error {
	return t.readOnly()
}
func (t *staticTable) AddForeignKey(*gsql.Context, gsql.ForeignKeyConstraint) error {
	return t.readOnly()
}
func (t *staticTable) DropForeignKey(*gsql.Context, string) error { return t.readOnly() }
func (t *staticTable) UpdateForeignKey(*gsql.Context, string, gsql.ForeignKeyConstraint) error {
	return t.readOnly()
}

// GetForeignKeyEditor is only asked for when rows are written, which the
// table refuses before any editor is needed.
func (t *staticTable) GetForeignKeyEditor(*gsql.Context) gsql.ForeignKeyEditor { return nil }

// keyKind says how an index compares its first column.
type keyKind int

const (
	kindOther keyKind = iota // the column type's own Compare
	kindInt                  // signed and small unsigned integers, as int64
	kindTime                 // dates and times, as microseconds since 1970
)

// staticIndex is a table's index: the row positions sorted by the index's
// first column (NULLs first, then by position). Further columns, and keys
// the fast comparison cannot take, are checked with the engine's own range
// filter.
type staticIndex struct {
	tbl     *staticTable
	name    string
	db      string
	unique  bool
	comment string
	exprs   []gsql.Expression
	cols    []int

	once    sync.Once
	kind    keyKind
	order   []int32
	nullEnd int     // order[:nullEnd] are the rows whose key is NULL
	ints    []int64 // keys by row position, for kindInt and kindTime
}

func (idx *staticIndex) ID() string       { return idx.name }
func (idx *staticIndex) Database() string { return idx.db }
func (idx *staticIndex) Table() string    { return idx.tbl.name }
func (idx *staticIndex) Expressions() []string {
	out := make([]string, len(idx.exprs))
	for i, e := range idx.exprs {
		out[i] = e.String()
	}
	return out
}
func (idx *staticIndex) IsUnique() bool                               { return idx.unique }
func (idx *staticIndex) IsSpatial() bool                              { return false }
func (idx *staticIndex) IsFullText() bool                             { return false }
func (idx *staticIndex) IsVector() bool                               { return false }
func (idx *staticIndex) Comment() string                              { return idx.comment }
func (idx *staticIndex) IndexType() string                            { return "BTREE" }
func (idx *staticIndex) IsGenerated() bool                            { return false }
func (idx *staticIndex) CanSupport(*gsql.Context, ...gsql.Range) bool { return true }
func (idx *staticIndex) CanSupportOrderBy(gsql.Expression) bool       { return false }
func (idx *staticIndex) PrefixLengths() []uint16                      { return nil }
func (idx *staticIndex) ColumnExpressionTypes() []gsql.ColumnExpressionType {
	out := make([]gsql.ColumnExpressionType, len(idx.exprs))
	for i, e := range idx.exprs {
		out[i] = gsql.ColumnExpressionType{Expression: e.String(), Type: e.Type()}
	}
	return out
}

func (idx *staticIndex) colType() gsql.Type { return idx.exprs[0].Type() }

// build sorts the row positions by the first column.
func (idx *staticIndex) build(ctx *gsql.Context) {
	rows, col, typ := idx.tbl.rows, idx.cols[0], idx.colType()
	switch {
	case types.IsTime(typ):
		idx.kind = kindTime
	case types.IsSigned(typ) || types.IsUnsigned(typ) && typ != types.Uint64:
		idx.kind = kindInt
	}
	idx.order = make([]int32, len(rows))
	for i := range idx.order {
		idx.order[i] = int32(i)
	}
	nulls := func(a, b int32) (int, bool) {
		an, bn := rows[a][col] == nil, rows[b][col] == nil
		switch {
		case an && bn:
			return 0, true
		case an:
			return -1, true
		case bn:
			return 1, true
		}
		return 0, false
	}
	var cmp func(a, b int32) int
	switch idx.kind {
	case kindInt, kindTime:
		idx.ints = make([]int64, len(rows))
		for i, r := range rows {
			if r[col] == nil {
				continue
			}
			k, ok := idx.intKey(ctx, r[col])
			if !ok {
				// A value the fast path cannot hold: compare with the type.
				idx.kind, idx.ints = kindOther, nil
				break
			}
			idx.ints[i] = k
		}
	}
	switch idx.kind {
	case kindInt, kindTime:
		cmp = func(a, b int32) int {
			if c, ok := nulls(a, b); ok {
				return c
			}
			return compareInt64(idx.ints[a], idx.ints[b])
		}
	default:
		cmp = idx.otherOrder(ctx, nulls)
	}
	if !slices.IsSortedFunc(idx.order, cmp) {
		slices.SortStableFunc(idx.order, cmp)
	}
	for idx.nullEnd < len(idx.order) && rows[idx.order[idx.nullEnd]][col] == nil {
		idx.nullEnd++
	}
}

// otherOrder compares rows by the column type's own comparison (for text,
// the collation's). Text is ranked first: its distinct values are sorted
// once and the rows by their value's rank, far fewer comparisons.
func (idx *staticIndex) otherOrder(ctx *gsql.Context, nulls func(a, b int32) (int, bool)) func(a, b int32) int {
	rows, col, typ := idx.tbl.rows, idx.cols[0], idx.colType()
	rank := map[string]int{}
	var distinct []string
	for _, r := range rows {
		if r[col] == nil {
			continue
		}
		s, ok := r[col].(string)
		if !ok {
			rank = nil
			break
		}
		if _, seen := rank[s]; !seen {
			rank[s] = 0
			distinct = append(distinct, s)
		}
	}
	if rank == nil {
		return func(a, b int32) int {
			if c, ok := nulls(a, b); ok {
				return c
			}
			c, _ := typ.Compare(ctx, rows[a][col], rows[b][col])
			return c
		}
	}
	slices.SortStableFunc(distinct, func(a, b string) int {
		c, _ := typ.Compare(ctx, a, b)
		return c
	})
	for i, v := range distinct {
		rank[v] = i
	}
	return func(a, b int32) int {
		if c, ok := nulls(a, b); ok {
			return c
		}
		return rank[rows[a][col].(string)] - rank[rows[b][col].(string)]
	}
}

// intKey maps a stored or looked-up value to the int64 the index compares,
// as the engine's comparison would: integers as themselves, times as
// DATETIME(6).
func (idx *staticIndex) intKey(ctx *gsql.Context, v any) (int64, bool) {
	if idx.kind == kindTime {
		switch v.(type) {
		case time.Time, string:
		default:
			return 0, false
		}
		t, _, err := types.DatetimeMaxPrecision.Convert(ctx, v)
		if err != nil {
			return 0, false
		}
		return t.(time.Time).UnixMicro(), true
	}
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x <= 1<<63-1 {
			return int64(x), true
		}
	}
	return 0, false
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// lookup returns the positions of the rows in ranges.
func (idx *staticIndex) lookup(ctx *gsql.Context, ranges gsql.MySQLRangeCollection) ([]int32, error) {
	idx.once.Do(func() { idx.build(ctx) })
	var out []int32
	exact := len(idx.cols) == 1
	for _, rng := range ranges {
		if len(rng) == 0 {
			continue
		}
		lo, okLo := idx.cutPosition(ctx, rng[0].LowerBound)
		hi, okHi := idx.cutPosition(ctx, rng[0].UpperBound)
		if !okLo || !okHi {
			// A key the sorted order cannot place: filter every row.
			lo, hi, exact = 0, len(idx.order), false
		}
		if lo < hi {
			out = append(out, idx.order[lo:hi]...)
		}
	}
	if len(ranges) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	if exact {
		return out, nil
	}
	filter, err := expression.NewRangeFilterExpr(idx.exprs, ranges)
	if err != nil || filter == nil {
		return nil, fmt.Errorf("index %s of %s: range filter: %v", idx.name, idx.tbl.name, err)
	}
	kept := out[:0]
	for _, p := range out {
		ok, err := gsql.EvaluateCondition(ctx, filter, idx.tbl.rows[p])
		if err != nil {
			return nil, err
		}
		if gsql.IsTrue(ok) {
			kept = append(kept, p)
		}
	}
	return kept, nil
}

// cutPosition is the number of index entries below cut, or false when the
// cut's key cannot be compared on the fast path.
func (idx *staticIndex) cutPosition(ctx *gsql.Context, cut gsql.MySQLRangeCut) (int, bool) {
	n := len(idx.order)
	switch c := cut.(type) {
	case gsql.BelowNull:
		return 0, true
	case gsql.AboveNull:
		return idx.nullEnd, true
	case gsql.AboveAll:
		return n, true
	case gsql.Below:
		return idx.firstPosition(ctx, c.Key, false)
	case gsql.Above:
		return idx.firstPosition(ctx, c.Key, true)
	}
	return 0, false
}

// firstPosition is the first entry after the NULLs whose value is at least
// key (above: greater than key).
func (idx *staticIndex) firstPosition(ctx *gsql.Context, key any, above bool) (int, bool) {
	if key == nil {
		return 0, false
	}
	rows, col := idx.tbl.rows, idx.cols[0]
	var cmp func(p int32) (int, error) // row at p against key
	switch idx.kind {
	case kindInt, kindTime:
		k, ok := idx.intKey(ctx, key)
		if !ok {
			return 0, false
		}
		cmp = func(p int32) (int, error) { return compareInt64(idx.ints[p], k), nil }
	default:
		if _, isString := key.(string); types.IsText(idx.colType()) != isString {
			return 0, false
		}
		typ := idx.colType()
		cmp = func(p int32) (int, error) { return typ.Compare(ctx, rows[p][col], key) }
	}
	var cmpErr error
	tail := idx.order[idx.nullEnd:]
	i, _ := slices.BinarySearchFunc(tail, 0, func(p int32, _ int) int {
		c, err := cmp(p)
		if err != nil && cmpErr == nil {
			cmpErr = err
		}
		// Entries below the cut sort before it.
		if c < 0 || above && c == 0 {
			return -1
		}
		return 1
	})
	if cmpErr != nil {
		return 0, false
	}
	return idx.nullEnd + i, true
}

// convertRow converts r's values to the table's column types.
func convertRow(ctx *gsql.Context, schema gsql.Schema, r []any) (gsql.Row, error) {
	row := make(gsql.Row, len(r))
	for ci, v := range r {
		if v == nil {
			if !schema[ci].Nullable {
				return nil, fmt.Errorf("column %s: NULL in a NOT NULL column", schema[ci].Name)
			}
			continue
		}
		if dt, ok := schema[ci].Type.(gsql.DecimalType); ok {
			if d, ok := plainDecimal(v, dt); ok {
				row[ci] = d
				continue
			}
		}
		cv, inRange, err := schema[ci].Type.Convert(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", schema[ci].Name, err)
		}
		if inRange != gsql.InRange {
			return nil, fmt.Errorf("column %s: %v is out of range for %s", schema[ci].Name, v, strings.ToLower(schema[ci].Type.String()))
		}
		row[ci] = cv
	}
	return row, nil
}

// plainDecimal reads a DECIMAL value given as text with at most the
// column's scale of decimals ("1204.50") as the engine would store it
// (same digits, same exponent), without the engine's conversion: parsing
// and bounds checks through big integers were most of the time of loading
// the demo. Anything else is left to the engine.
func plainDecimal(v any, dt gsql.DecimalType) (decimal.Decimal, bool) {
	s, ok := v.(string)
	if !ok {
		return decimal.Decimal{}, false
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var coef int64
	intDigits, decimals, digits, point := 0, 0, 0, false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '.' && !point:
			point = true
		case ch >= '0' && ch <= '9':
			digits++
			if point {
				decimals++
			} else if intDigits > 0 || ch != '0' {
				intDigits++
			}
			coef = coef*10 + int64(ch-'0')
		default:
			return decimal.Decimal{}, false
		}
	}
	if digits == 0 || digits > 18 || decimals > int(dt.Scale()) || intDigits > int(dt.Precision())-int(dt.Scale()) {
		return decimal.Decimal{}, false
	}
	if neg {
		coef = -coef
	}
	return decimal.New(coef, -int32(decimals)), true
}
