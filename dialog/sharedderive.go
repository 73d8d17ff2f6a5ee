package dialog

import (
	"math/big"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// derive cuts the member's own result from the shared one: its columns in
// its order, then DISTINCT, ORDER BY and LIMIT as the server applies them.
// ok is false when the server's own result is not certain to be the same:
//   - ORDER BY ties between rows that show different values where they
//     are seen (the server returns tied rows in an order of its own, and a
//     LIMIT through a tie keeps rows of its choosing);
//   - without ORDER BY, a LIMIT, OFFSET or the row cap maxRows cutting the
//     rows (which rows remain is the server's choice);
//   - ordering text (the server orders it by collation), de-duplicating
//     text that may be equal under a collation, ordering times of day or
//     timestamps (their text is in the session's time zone), or values of
//     unknown types.
func (m scanMember) derive(shared *sqlresult.Result, maxRows int) (res *sqlresult.Result, ok bool) {
	idx := make([]int, len(shared.Rows))
	for i := range idx {
		idx[i] = i
	}
	if m.distinct {
		if idx, ok = distinctRows(shared, m.cols, idx); !ok {
			return nil, false
		}
	}
	lo, hi := window(len(idx), m.offset, m.count)
	if len(m.order) > 0 {
		if ok = sortRows(shared, m.order, m.cols, idx, lo, hi); !ok {
			return nil, false
		}
	} else if lo > 0 || hi < len(idx) || hi-lo > maxRows {
		return nil, false
	}
	idx = idx[lo:hi]
	res = &sqlresult.Result{
		Columns: make([]sqlresult.Column, len(m.cols)),
		Rows:    make([][]any, len(idx)),
		Elapsed: shared.Elapsed,
		Cached:  shared.Cached,
	}
	for j, c := range m.cols {
		res.Columns[j] = shared.Columns[c]
	}
	for i, r := range idx {
		row := make([]any, len(m.cols))
		for j, c := range m.cols {
			row[j] = shared.Rows[r][c]
		}
		res.Rows[i] = row
	}
	return res, true
}

// window is the part [lo, hi) of n rows that LIMIT offset, count keeps
// (count < 0: no LIMIT).
func window(n, offset, count int) (lo, hi int) {
	lo = min(offset, n)
	hi = n
	if count >= 0 && lo+count < n {
		hi = lo + count
	}
	return lo, hi
}

// capped is res as a statement fetched under maxRows returns it: at most
// maxRows rows, Truncated when there were more.
func capped(res *sqlresult.Result, maxRows int) *sqlresult.Result {
	if len(res.Rows) <= maxRows {
		return res
	}
	out := *res
	out.Rows = out.Rows[:maxRows:maxRows]
	out.Truncated = true
	return &out
}

// cellKey is a value as the server orders and compares it.
type cellKey struct {
	null bool
	num  *big.Rat // numeric columns, exactly
	text string   // DATE and DATETIME: their text sorts in time order
}

func (a cellKey) cmp(b cellKey) int {
	switch {
	case a.null && b.null:
		return 0
	case a.null:
		return -1 // MySQL puts NULL first in ascending order
	case b.null:
		return 1
	case a.num != nil && b.num != nil:
		return a.num.Cmp(b.num)
	}
	return strings.Compare(a.text, b.text)
}

// id is a text equal for equal keys, for DISTINCT.
func (a cellKey) id() string {
	switch {
	case a.null:
		return "\x00"
	case a.num != nil:
		return "n" + a.num.RatString()
	}
	return "t" + a.text
}

// columnKeys reads one column of res as keys; ok is false for a type whose
// order or equality the server decides by rules not reproduced here.
func columnKeys(res *sqlresult.Result, col int) (keys []cellKey, ok bool) {
	typ := strings.ToLower(res.Columns[col].Type)
	numeric := sqlresult.KindOf(typ) == sqlresult.KindNumber
	if !numeric && typ != "date" && typ != "datetime" {
		return nil, false
	}
	keys = make([]cellKey, len(res.Rows))
	for i, r := range res.Rows {
		switch v := r[col]; {
		case v == nil:
			keys[i].null = true
		case numeric:
			if keys[i].num, ok = exactNumber(v); !ok {
				return nil, false
			}
		default:
			if keys[i].text, ok = v.(string); !ok {
				return nil, false
			}
		}
	}
	return keys, true
}

// exactNumber reads a result value as an exact number: DECIMAL text keeps
// every digit, where a float64 would make 0.1 + 0.2 differ from 0.3.
func exactNumber(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(x), true
	case uint64:
		return new(big.Rat).SetUint64(x), true
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(x) == nil {
			return nil, false
		}
		return r, true
	case string:
		return new(big.Rat).SetString(x)
	}
	return nil, false
}

// distinctRows keeps the first of the rows idx whose cols are equal. Text
// is equal under the server's collation, which is not reproduced here:
// rows are told apart by their bytes, and the result is refused when two
// of them might still be one to the server (see looseText).
func distinctRows(res *sqlresult.Result, cols []int, idx []int) ([]int, bool) {
	exact := make([][]string, len(cols))
	loose := make([][]string, len(cols))
	for j, c := range cols {
		var ok bool
		if exact[j], loose[j], ok = distinctKeys(res, c); !ok {
			return nil, false
		}
	}
	seen := map[string]bool{}
	alike := map[string]bool{}
	var out []int
	for _, r := range idx {
		var e, l strings.Builder
		for j := range cols {
			e.WriteString(exact[j][r])
			e.WriteByte('\x1f')
			l.WriteString(loose[j][r])
			l.WriteByte('\x1f')
		}
		if seen[e.String()] {
			continue
		}
		if alike[l.String()] {
			return nil, false
		}
		seen[e.String()] = true
		alike[l.String()] = true
		out = append(out, r)
	}
	return out, true
}

// distinctKeys reads one column of res for DISTINCT: exact keys, equal for
// values the server certainly takes as equal, and loose ones, equal for
// every pair it might.
func distinctKeys(res *sqlresult.Result, col int) (exact, loose []string, ok bool) {
	switch strings.ToLower(res.Columns[col].Type) {
	case "char", "varchar", "text", "tinytext", "mediumtext", "longtext", "enum":
		exact = make([]string, len(res.Rows))
		loose = make([]string, len(res.Rows))
		for i, r := range res.Rows {
			switch v := r[col].(type) {
			case nil:
				exact[i], loose[i] = "\x00", "\x00"
			case string:
				if loose[i], ok = looseText(v); !ok {
					return nil, nil, false
				}
				exact[i] = "t" + v
			default:
				return nil, nil, false
			}
		}
		return exact, loose, true
	}
	keys, ok := columnKeys(res, col)
	if !ok {
		return nil, nil, false
	}
	exact = make([]string, len(keys))
	for i, k := range keys {
		exact[i] = k.id()
	}
	return exact, exact, true
}

// looseText folds ASCII text to its lower-case letters and digits: two
// strings a collation may take as equal ('Ann' and 'ann', 'a' and 'a ', a
// control character UCA ignores) fold alike. Other text could equal ASCII
// text under some collation ('Ａ', 'ß'), so it is refused (ok false).
func looseText(s string) (string, bool) {
	b := make([]byte, 0, len(s)+1)
	b = append(b, 'f')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return "", false
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b = append(b, c)
		}
	}
	return string(b), true
}

// sortRows orders idx by the ORDER BY keys, and reports false when rows
// tied on the keys show different values and reach into the rows kept,
// [lo, hi): their order, and which of them are kept, are the server's.
func sortRows(res *sqlresult.Result, order []orderKey, cols []int, idx []int, lo, hi int) bool {
	keys := make([][]cellKey, len(order))
	for j, o := range order {
		var ok bool
		if keys[j], ok = columnKeys(res, o.col); !ok {
			return false
		}
	}
	cmp := func(ra, rb int) int {
		for j, o := range order {
			c := keys[j][ra].cmp(keys[j][rb])
			if o.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}
	sort.SliceStable(idx, func(a, b int) bool { return cmp(idx[a], idx[b]) < 0 })
	for start := 0; start < len(idx); {
		end := start + 1
		for end < len(idx) && cmp(idx[start], idx[end]) == 0 {
			end++
		}
		if start < hi && end > lo {
			for _, r := range idx[start+1 : end] {
				if !sameShown(res, cols, idx[start], r) {
					return false
				}
			}
		}
		start = end
	}
	return true
}

// sameShown reports whether rows a and b hold the same values in cols.
func sameShown(res *sqlresult.Result, cols []int, a, b int) bool {
	for _, c := range cols {
		if res.Rows[a][c] != res.Rows[b][c] {
			return false
		}
	}
	return true
}
