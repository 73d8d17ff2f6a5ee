package eval

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// Tolerances of numeric comparison: a and b are equal when
// |a-b| <= AbsTolerance + RelTolerance*max(|a|,|b|).
const (
	RelTolerance = 1e-6
	AbsTolerance = 1e-9
)

// greedyLimit is the largest row count for which a failed sorted
// comparison is retried as a row-by-row pairing (O(n²)), to catch rows that
// sort differently only because of float noise.
const greedyLimit = 1000

// Match reports whether a predicted result equals a gold result the way
// execution-accuracy benchmarks define it: the rows are equal as multisets
// (as lists when ordered); within a row the values are compared as a
// multiset, so column names and order do not matter; numbers are equal
// within RelTolerance/AbsTolerance, and numeric strings (DECIMAL "1.50")
// equal numbers (1.5); NULL equals NULL. A nil result matches nothing.
func Match(pred, gold *sqlresult.Result, ordered bool) bool {
	if pred == nil || gold == nil || len(pred.Rows) != len(gold.Rows) {
		return false
	}
	if len(gold.Rows) == 0 {
		return true
	}
	p, g := canonRows(pred.Rows), canonRows(gold.Rows)
	if ordered {
		for i := range g {
			if !rowsEqual(p[i], g[i]) {
				return false
			}
		}
		return true
	}
	sortRows(p)
	sortRows(g)
	same := true
	for i := range g {
		if !rowsEqual(p[i], g[i]) {
			same = false
			break
		}
	}
	if same || len(g) > greedyLimit {
		return same
	}
	return pairRows(p, g)
}

// MatchAny reports whether pred matches any of the gold results.
func MatchAny(pred *sqlresult.Result, golds []*sqlresult.Result, ordered bool) bool {
	for _, g := range golds {
		if Match(pred, g, ordered) {
			return true
		}
	}
	return false
}

// cell kinds, in sort order.
const (
	kindNull = iota
	kindNumber
	kindText
)

type cell struct {
	kind int
	num  float64
	text string
	key  string // sort key: numbers rounded to 6 significant digits
}

func canonCell(v any) cell {
	if v == nil {
		return cell{kind: kindNull}
	}
	if f, ok := sqlresult.AsFloat(v); ok && !math.IsNaN(f) {
		k := "0"
		if f != 0 {
			k = strconv.FormatFloat(f, 'e', 5, 64)
		}
		return cell{kind: kindNumber, num: f, key: k}
	}
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	return cell{kind: kindText, text: s, key: s}
}

func cellLess(a, b cell) bool {
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	if a.kind == kindNumber {
		if a.key != b.key {
			return a.num < b.num
		}
		return false
	}
	return a.key < b.key
}

func cellEqual(a, b cell) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindNull:
		return true
	case kindNumber:
		return numbersEqual(a.num, b.num)
	}
	return a.text == b.text
}

func numbersEqual(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= AbsTolerance+RelTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// canonRows turns each row into its cells sorted (a multiset of values).
func canonRows(rows [][]any) [][]cell {
	out := make([][]cell, len(rows))
	for i, r := range rows {
		cs := make([]cell, len(r))
		for j, v := range r {
			cs[j] = canonCell(v)
		}
		sort.SliceStable(cs, func(a, b int) bool { return cellLess(cs[a], cs[b]) })
		out[i] = cs
	}
	return out
}

func rowLess(a, b []cell) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if cellLess(a[i], b[i]) {
			return true
		}
		if cellLess(b[i], a[i]) {
			return false
		}
	}
	return len(a) < len(b)
}

func sortRows(rows [][]cell) {
	sort.SliceStable(rows, func(i, j int) bool { return rowLess(rows[i], rows[j]) })
}

func rowsEqual(a, b []cell) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !cellEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// pairRows matches each gold row with a distinct equal predicted row.
func pairRows(p, g [][]cell) bool {
	used := make([]bool, len(p))
	for _, gr := range g {
		found := false
		for i, pr := range p {
			if !used[i] && rowsEqual(pr, gr) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
