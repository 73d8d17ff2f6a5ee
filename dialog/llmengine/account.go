package llmengine

import (
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// Word accounting on the model path: a cheap check of which words of the
// question a reading uses, so that an answer says what it left out (as the
// offline engine's answers do) and the manager can weigh readings by how
// much of the question they explain. A word needs accounting when it
// names something in the schema (the catalog's best columns for it, or a
// stored value) or asks for an operation (a superlative, an average, a
// negation, a comparison); it is used when the reading reads one of the
// columns it names, a table it names, a literal holding it, or performs
// the operation. Words that name nothing are not judged: nothing could
// use them.
//
// The other half is the columns a reading uses that no word names (keys
// and join columns aside): a model that picked a similar column the
// question does not mention has guessed.

// operation tells whether a query (its operations, read from its parsed
// tree) performs what a word asks for.
type operation func(o *sqlshape.Ops) bool

var (
	ranked   = func(o *sqlshape.Ops) bool { return o.Aggs["MAX"] || o.Aggs["MIN"] || o.Ordered || o.Limited }
	averaged = func(o *sqlshape.Ops) bool { return o.Aggs["AVG"] }
	totalled = func(o *sqlshape.Ops) bool { return o.Aggs["SUM"] || o.Aggs["COUNT"] }
	counted  = totalled
	negated  = func(o *sqlshape.Ops) bool { return o.Negated }
	compared = func(o *sqlshape.Ops) bool { return o.Compared || o.Ordered }
	deduped  = func(o *sqlshape.Ops) bool { return o.Deduped }
	// dateBounds: a period is bounded by comparisons or date arithmetic.
	dateBounds = func(o *sqlshape.Ops) bool { return o.Compared || o.Dated }
)

// highest and lowest check a ranking's direction: the largest values
// (MAX, or sorted descending) or the smallest (MIN, or the last sort
// ascending).
func highest(o *sqlshape.Ops) bool { return o.Aggs["MAX"] || o.Desc }

func lowest(o *sqlshape.Ops) bool { return o.Aggs["MIN"] || o.LastAsc }

// operations maps the words that ask for an operation to the check.
var operations = map[string]operation{
	"most": highest, "maximum": highest, "max": highest, "highest": highest, "largest": highest, "biggest": highest,
	"greatest": highest, "longest": highest, "heaviest": highest, "tallest": highest, "descending": highest, "reverse": highest, "reversed": highest,
	"least": lowest, "minimum": lowest, "min": lowest, "lowest": lowest, "smallest": lowest, "fewest": lowest,
	"shortest": lowest, "lightest": lowest, "ascending": lowest,
	"top":     ranked,
	"average": averaged, "mean": averaged, "avg": averaged,
	"total": totalled, "sum": totalled,
	"count": counted, "many": counted,
	"not": negated, "without": negated, "never": negated, "except": negated, "excluding": negated, "none": negated,
	"than": compared, "above": compared, "below": compared, "exceed": compared, "exceeds": compared, "exceeding": compared, "between": compared,
	"before": dateBounds, "after": dateBounds, "since": dateBounds, "within": dateBounds,
	"distinct": deduped, "different": deduped, "unique": deduped,
}

// superlative recognises "largest", "heaviest", "oldest": a ranking
// asked for by morphology.
func superlative(w string) bool {
	if len(w) < 6 || !strings.HasSuffix(w, "est") {
		return false
	}
	switch w {
	case "interest", "request", "contest", "forest", "harvest", "guest", "digest", "protest", "suggest", "honest", "modest", "invest", "arrest", "manifest":
		return false
	}
	return true
}

var reNumber = regexp.MustCompile(`^\d+(?:\.\d+)?$`)

// account returns the words of the question (and its feedback) the
// reading leaves out, in question order, and the columns it uses that no
// word names, sorted.
func (r *run) account(sql string) (unused, unlinked []string) {
	sh, err := sqlshape.Parse(sql, r.e.labels.TableOf)
	if err != nil {
		return nil, nil
	}
	ops, err := sqlshape.ReadOps(sql)
	if err != nil {
		return nil, nil
	}
	cols := map[string]bool{}
	tables := map[string]bool{}
	for _, c := range sh.Columns {
		cols[c] = true
		t, _, _ := strings.Cut(c, ".")
		tables[t] = true
	}
	for _, t := range allTables(sh) {
		tables[t] = true
	}
	literals := strings.Join(literalsOf(sql), "\x00")
	seen := map[string]bool{}
	ws := words(r.text)
	for i, w := range ws {
		lw := strings.ToLower(w)
		if seen[lw] {
			continue
		}
		seen[lw] = true
		if (lw == "most" || lw == "least") && i > 0 && strings.EqualFold(ws[i-1], "at") {
			// "at least 3", "at most 3": a comparison, not a ranking.
			if !compared(ops) {
				unused = append(unused, w)
			}
			continue
		}
		if !r.used(lw, ops, literals, cols, tables) {
			unused = append(unused, w)
		}
	}
	joins := map[string]bool{}
	for _, j := range allJoins(sh) {
		joins[j.Left], joins[j.Right] = true, true
	}
	for _, c := range sh.Columns {
		t, col, ok := strings.Cut(c, ".")
		if !ok || col == "*" || r.e.columns[t] == nil || !r.e.columns[t][col] {
			continue // a CTE's or derived table's own column, or a whole table
		}
		if joins[c] || r.e.labels.IsKey(c) || r.link.named[c] || r.e.joinColumn(c) {
			continue
		}
		unlinked = append(unlinked, c)
	}
	sort.Strings(unlinked)
	return unused, unlinked
}

// used reports whether the reading accounts for one word (lower-case).
func (r *run) used(w string, ops *sqlshape.Ops, literals string, cols, tables map[string]bool) bool {
	if reNumber.MatchString(w) {
		return ops.Numbers[w]
	}
	if op, ok := operations[w]; ok {
		return op(ops)
	}
	if superlative(w) {
		// "heaviest" also names a column ("weight") where the lexicon
		// says so; the ranking is what must be there.
		return ranked(ops)
	}
	if len(r.e.cat.Terms(w)) == 0 {
		return true // a function word
	}
	named := r.link.wordCols[w]
	valued := false
	for _, v := range r.link.values {
		if slices.Contains(words(strings.ToLower(v.phrase)), w) {
			valued = true
			named = append(named, strings.ToLower(v.hit.Table+"."+v.hit.Column))
		}
	}
	if len(named) == 0 {
		return true // it names nothing in the schema: not judged
	}
	if strings.Contains(literals, w) {
		return true
	}
	for _, c := range named {
		if cols[c] {
			return true
		}
		t, _, _ := strings.Cut(c, ".")
		if !valued && tables[t] && r.e.namesTable(w, t) {
			return true
		}
	}
	return false
}

// namesTable reports whether word w names table t (the same stem as a
// word of its name, or a synonym of one).
func (e *Engine) namesTable(w, t string) bool {
	terms := map[string]bool{}
	for _, x := range e.cat.Terms(w) {
		terms[x] = true
		for _, s := range e.cat.Synonyms(x) {
			terms[s] = true
		}
	}
	for _, x := range e.cat.NameTerms(t) {
		if terms[x] {
			return true
		}
	}
	return false
}

// joinColumn reports whether table.column is one side of a known join.
func (e *Engine) joinColumn(tc string) bool {
	for _, j := range e.cat.Snapshot().Schema.Joins {
		if strings.EqualFold(j.FromTable+"."+j.FromColumn, tc) || strings.EqualFold(j.ToTable+"."+j.ToColumn, tc) {
			return true
		}
	}
	return false
}

// allTables lists the tables a shape reads, nested queries included.
func allTables(sh *sqlshape.Shape) []string {
	out := slices.Clone(sh.Tables)
	for _, s := range sh.Subs {
		out = append(out, allTables(s.Shape)...)
	}
	return out
}

// allJoins lists the column = column conditions of a shape and its nested queries.
func allJoins(sh *sqlshape.Shape) []sqlshape.Join {
	out := slices.Clone(sh.Joins)
	for _, s := range sh.Subs {
		out = append(out, allJoins(s.Shape)...)
	}
	return out
}

// literalsOf lists the values of a statement's string literals that are
// not empty, lower-cased. It reads the statement as written, not as low:
// with its line feeds folded, a "--" comment would run to the end.
func literalsOf(sql string) []string {
	var out []string
	for v := range sqlscan.Strings(sql, sqlscan.MySQL) {
		if v != "" {
			out = append(out, strings.ToLower(v))
		}
	}
	return out
}
