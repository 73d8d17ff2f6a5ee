// Package sqlresult holds what a read-only statement runs under and gives
// back: its limits, its typed rows and the type families of its columns.
// The warehouse that runs statements and the dialog that reads their
// results both speak it, so the dialog need not import the warehouse for
// it. It imports nothing of this module.
package sqlresult

import (
	"strconv"
	"strings"
	"time"
)

// Limits bound one statement; zero fields take the warehouse's configured
// values.
type Limits struct {
	MaxRows int
	Timeout time.Duration
	// MaxBytes caps the bytes of the result's values.
	MaxBytes int
}

// Result is a typed query result.
type Result struct {
	Columns []Column `json:"columns"`
	// Rows hold nil (SQL NULL), int64, uint64, float64 or string values.
	// DECIMAL values stay strings so that no digit is lost; dates and times are
	// strings as the server prints them.
	Rows [][]any `json:"rows"`
	// Truncated is true when the query had more rows than the cap.
	Truncated bool          `json:"truncated,omitempty"`
	Elapsed   time.Duration `json:"elapsed"`
	// Cached is true when the result came from the warehouse's result
	// cache; Elapsed is then the time the lookup took.
	Cached bool `json:"cached,omitempty"`
}

// Column names one output column and its server type.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type"` // DatabaseTypeName: INT, VARCHAR, DECIMAL…
}

// Kind is the column's type family.
func (c Column) Kind() ColumnKind { return KindOf(c.Type) }

// ColumnKind is the coarse type family the dialog reasons about, of a
// result's column or a table's.
type ColumnKind int

const (
	KindOther ColumnKind = iota
	KindNumber
	KindText
	KindTime
	KindBool
)

func (k ColumnKind) String() string {
	switch k {
	case KindNumber:
		return "number"
	case KindText:
		return "text"
	case KindTime:
		return "time"
	case KindBool:
		return "bool"
	}
	return "other"
}

// KindOf maps an information_schema DATA_TYPE (or a result column's
// DatabaseTypeName) to its family.
func KindOf(dataType string) ColumnKind {
	switch strings.ToLower(dataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint",
		"decimal", "numeric", "float", "double", "real", "year",
		"unsigned tinyint", "unsigned smallint", "unsigned mediumint", "unsigned int", "unsigned bigint":
		return KindNumber
	case "char", "varchar", "text", "tinytext", "mediumtext", "longtext", "enum", "set", "json":
		return KindText
	case "date", "datetime", "timestamp", "time":
		return KindTime
	case "bit", "bool", "boolean":
		return KindBool
	}
	return KindOther
}

// AsFloat returns a numeric view of a result value: numbers, and strings that
// hold a number (DECIMAL). ok is false for NULL and non-numeric text.
func AsFloat(v any) (f float64, ok bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(x, 64)
		return f, err == nil
	}
	return 0, false
}
