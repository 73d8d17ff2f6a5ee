package warehouse

import (
	"strings"
	"time"
)

// Schema is what introspection learns about one database of a warehouse.
type Schema struct {
	Database string  `json:"database"`
	Flavor   Flavor  `json:"flavor"`
	Tables   []Table `json:"tables"`
	// Joins holds declared foreign keys and inferred joins; Declared tells them apart.
	Joins []Join `json:"joins"`
}

// Table describes one base table.
type Table struct {
	Name       string   `json:"name"`
	Comment    string   `json:"comment,omitempty"`
	View       bool     `json:"view,omitempty"`
	Columns    []Column `json:"columns"`
	PrimaryKey []string `json:"primary_key,omitempty"`
	// RowCount is the server's estimate (information_schema.TABLES.TABLE_ROWS).
	RowCount int64 `json:"row_count"`
}

// Column describes one column of a table.
type Column struct {
	Table    string `json:"table"`
	Name     string `json:"name"`
	DataType string `json:"data_type"`   // lower-case information_schema DATA_TYPE: int, varchar, decimal, date…
	FullType string `json:"column_type"` // COLUMN_TYPE: varchar(40), decimal(12,2)…
	Nullable bool   `json:"nullable"`
	Comment  string `json:"comment,omitempty"`
	Position int    `json:"position"`
}

// Join is an edge of the join graph: FromTable.FromColumn = ToTable.ToColumn,
// where To is the referenced (key) side.
type Join struct {
	FromTable  string `json:"from_table"`
	FromColumn string `json:"from_column"`
	ToTable    string `json:"to_table"`
	ToColumn   string `json:"to_column"`
	// Declared is true for a FOREIGN KEY constraint, false for an inferred join.
	Declared bool `json:"declared"`
	// Confidence is 1 for declared keys and below 1 for inferred ones.
	Confidence float64 `json:"confidence"`
	// Reason says why an inferred join was proposed, or names the constraint.
	Reason string `json:"reason,omitempty"`
	// When is set for a polymorphic reference, whose rows point at one
	// table or another by a type column: the join holds only where that
	// column has this value.
	When *JoinCondition `json:"when,omitempty"`
}

// JoinCondition restricts a join to the referencing rows whose Column
// (of the join's FromTable) holds Value.
type JoinCondition struct {
	Column string `json:"column"`
	Value  string `json:"value"`
}

// Kind is the column's type family.
func (c Column) Kind() ColumnKind { return KindOf(c.DataType) }

// Table returns the table with the given name (case-insensitive) or nil.
func (s *Schema) Table(name string) *Table {
	for i := range s.Tables {
		if strings.EqualFold(s.Tables[i].Name, name) {
			return &s.Tables[i]
		}
	}
	return nil
}

// Column returns the named column of the table (case-insensitive) or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

// Profile summarises the contents of one column.
type Profile struct {
	Table  string `json:"table"`
	Column string `json:"column"`
	// Rows is how many rows were examined; Sampled is true when that was
	// fewer than the table holds.
	Rows    int64 `json:"rows"`
	Sampled bool  `json:"sampled,omitempty"`
	// Partial is true when the time budget ran out before every statistic was taken.
	Partial   bool    `json:"partial,omitempty"`
	Distinct  int64   `json:"distinct"`
	NullShare float64 `json:"null_share"`
	// Min and Max are set for numbers and dates, as the server prints them.
	Min string `json:"min,omitempty"`
	Max string `json:"max,omitempty"`
	// Top holds the most frequent values of a low-cardinality text column.
	Top []ValueCount `json:"top,omitempty"`
	// Samples holds a few example values of any other column.
	Samples []string `json:"samples,omitempty"`
	// Values holds the distinct text values of the whole column (up to a
	// cap) for the value index; ValuesComplete says the cap was not reached.
	Values         []string `json:"values,omitempty"`
	ValuesComplete bool     `json:"values_complete,omitempty"`
}

// ValueCount is one frequent value and how often it occurs.
type ValueCount struct {
	Value string `json:"value"`
	Count int64  `json:"count"`
}

// Snapshot is a schema with its column profiles, cached so that profiling
// runs on demand rather than per question.
type Snapshot struct {
	Schema   Schema    `json:"schema"`
	Profiles []Profile `json:"profiles"`
	// Aliases pair short codes with the names they stand for, learned from
	// tables that hold both side by side (states: code 'TX', name 'Texas').
	Aliases []ValueAlias `json:"aliases,omitempty"`
	TakenAt time.Time    `json:"taken_at"`
	Version int          `json:"version"`
}

// Profile returns the profile of table.column or nil.
func (s *Snapshot) Profile(table, column string) *Profile {
	for i := range s.Profiles {
		if strings.EqualFold(s.Profiles[i].Table, table) && strings.EqualFold(s.Profiles[i].Column, column) {
			return &s.Profiles[i]
		}
	}
	return nil
}

// ValueAlias says that, in Table, CodeColumn = Code appears on the same rows
// as NameColumn = Name, one to one: the data shows that Code abbreviates Name.
type ValueAlias struct {
	Table      string `json:"table"`
	CodeColumn string `json:"code_column"`
	NameColumn string `json:"name_column"`
	Code       string `json:"code"`
	Name       string `json:"name"`
}
