package warehouse

import (
	"strconv"
	"time"
)

// Result is a typed query result.
type Result struct {
	Columns []ResultColumn `json:"columns"`
	// Rows hold nil (SQL NULL), int64, uint64, float64 or string values.
	// DECIMAL values stay strings so that no digit is lost; dates and times are
	// strings as the server prints them.
	Rows [][]any `json:"rows"`
	// Truncated is true when the query had more rows than the cap.
	Truncated bool          `json:"truncated,omitempty"`
	Elapsed   time.Duration `json:"elapsed"`
	// Cached is true when the result came from the DB's result cache (see
	// CacheOptions); Elapsed is then the time the lookup took.
	Cached bool `json:"cached,omitempty"`
}

// ResultColumn names one output column and its server type.
type ResultColumn struct {
	Name string `json:"name"`
	Type string `json:"type"` // DatabaseTypeName: INT, VARCHAR, DECIMAL…
}

// Kind is the column's type family.
func (c ResultColumn) Kind() ColumnKind { return KindOf(c.Type) }

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
