package tables

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// CSV writes a result for download: the typed values as they are (NULL
// empty, numbers without separators, DECIMAL text kept exact) and text
// guarded against spreadsheet formulas. With maxBytes > 0 it stops before
// the file would grow past it; written is the number of data rows kept and
// cut says whether some were left out.
func CSV(header []string, rows [][]any, maxBytes int) (data []byte, written int, cut bool) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := make([]string, len(header))
	for i, h := range header {
		head[i] = safeCell(h)
	}
	_ = w.Write(head) // writes to a bytes.Buffer do not fail
	w.Flush()
	rec := make([]string, len(header))
	for _, r := range rows {
		for j := range rec {
			rec[j] = ""
			if j < len(r) {
				rec[j] = CSVValue(r[j])
			}
		}
		mark := buf.Len()
		_ = w.Write(rec)
		w.Flush()
		if maxBytes > 0 && buf.Len() > maxBytes {
			buf.Truncate(mark)
			return buf.Bytes(), written, true
		}
		written++
	}
	return buf.Bytes(), written, false
}

// CSVValue prints one typed value for a CSV cell.
func CSVValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []byte:
		return safeCell(string(x))
	case string:
		return safeCell(x)
	}
	return safeCell(fmt.Sprint(v))
}

// safeCell prefixes text a spreadsheet would run as a formula (=, +, -, @,
// or a leading tab or carriage return) with a quote; numbers stay as they are.
func safeCell(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64); err == nil {
		return s
	}
	return "'" + s
}

// Strings turns formatted rows into values for CSV.
func Strings(rows [][]string) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = make([]any, len(r))
		for j, v := range r {
			out[i][j] = v
		}
	}
	return out
}
