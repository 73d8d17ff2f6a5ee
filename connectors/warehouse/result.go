package warehouse

import "github.com/clarify-bot/clarify/internal/sqlresult"

// The result types live in internal/sqlresult, which the dialog imports
// without importing the warehouse; these names keep the warehouse's own
// callers as they were.
type (
	// Result is a typed query result.
	Result = sqlresult.Result
	// ResultColumn names one output column and its server type.
	ResultColumn = sqlresult.Column
	// Limits bound one statement; zero fields take the DB's configured values.
	Limits = sqlresult.Limits
	// ColumnKind is the coarse type family the dialog reasons about.
	ColumnKind = sqlresult.ColumnKind
)

const (
	KindOther  = sqlresult.KindOther
	KindNumber = sqlresult.KindNumber
	KindText   = sqlresult.KindText
	KindTime   = sqlresult.KindTime
	KindBool   = sqlresult.KindBool
)

// KindOf maps an information_schema DATA_TYPE (or a result column's
// DatabaseTypeName) to its family.
func KindOf(dataType string) ColumnKind { return sqlresult.KindOf(dataType) }

// AsFloat returns a numeric view of a result value: numbers, and strings that
// hold a number (DECIMAL). ok is false for NULL and non-numeric text.
func AsFloat(v any) (f float64, ok bool) { return sqlresult.AsFloat(v) }
