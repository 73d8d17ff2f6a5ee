package dialog

import (
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// aggregate splits "SUM(orders.net_amount)" into "SUM" and "orders.net_amount".
func aggregate(expr string) (fn, arg string) {
	i := strings.IndexByte(expr, '(')
	if i <= 0 || !strings.HasSuffix(expr, ")") {
		return "", expr
	}
	return expr[:i], strings.TrimPrefix(expr[i+1:len(expr)-1], "DISTINCT ")
}

// describeMeasure words one aggregate; withFn adds "total"/"number of".
func (l *Labels) describeMeasure(expr string, withFn bool, counted string) string {
	fn, arg := aggregate(expr)
	if fn == "" {
		return l.Detail(expr)
	}
	// Counting keys is counting rows: "Number of customers", not "Customer id".
	if !withFn && arg != "*" && arg != "1" && !(fn == "COUNT" && l.IsKey(arg)) {
		return l.Detail(arg)
	}
	return upperFirst(strings.TrimPrefix(sqlshape.DescribeMeasure(expr, counted, l), "the "))
}

// describeColumns words a comma-separated list of expressions:
// "customers.id, customers.name, customers.email" → "Id, name and email".
func (l *Labels) describeColumns(list string) string {
	if list == "" {
		return ""
	}
	var words []string
	for _, e := range strings.Split(list, ", ") {
		e = strings.TrimSpace(e)
		switch {
		case e == "*" || strings.HasSuffix(e, ".*"):
			words = append(words, "every column")
		case strings.ContainsAny(e, "("):
			fn, arg := aggregate(e)
			if fn != "" {
				words = append(words, strings.ToLower(fn)+" of "+l.Column(arg))
			} else {
				words = append(words, strings.ToLower(e))
			}
		default:
			words = append(words, l.Column(e))
		}
	}
	return upperFirst(joinAnd(words))
}

func joinAnd(w []string) string {
	switch len(w) {
	case 0:
		return ""
	case 1:
		return w[0]
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}

// optionFor words one value of a decision point. display holds the
// literal(s) the representative candidate compares with, for examples.
func (l *Labels) optionFor(key, value string, others []string, sameFn bool, counted, display string) Option {
	name, arg := sqlshape.SlotName(key), sqlshape.SlotArg(key)
	switch name {
	case sqlshape.SlotMeasure:
		if value == "" {
			return Option{Label: "No total: list the matching rows"}
		}
		parts := strings.Split(value, " | ")
		var words []string
		for _, p := range parts {
			words = append(words, l.describeMeasure(p, !sameFn, counted))
		}
		opt := Option{Label: joinAnd(words)}
		if len(parts) == 1 {
			if fn, a := aggregate(parts[0]); a != "*" && fn != "COUNT" {
				if ex := l.Example(a); ex != "" {
					opt.Example = "e.g. " + ex
				}
			}
		}
		return opt
	case sqlshape.SlotOutput:
		if value == "" {
			return Option{Label: "Just the summary figure (total, count…)"}
		}
		opt := Option{Label: l.describeColumns(value)}
		for _, o := range others {
			if o == "" && !strings.Contains(value, "(") {
				// Set against a summary, a plain column means one line per row.
				opt.Label += ", row by row"
				break
			}
		}
		if first := strings.Split(value, ", ")[0]; !strings.Contains(first, "(") {
			if ex := l.Example(first); ex != "" {
				opt.Example = "e.g. " + ex
			}
		}
		return opt
	case sqlshape.SlotFilterOn:
		if value == "" {
			return Option{Label: fmt.Sprintf("Don't filter on '%s'", arg)}
		}
		// value: "customers.state =" or "orders.ordered_at year" (several joined by " & ").
		first := strings.Split(value, " & ")[0]
		col := first
		if i := strings.LastIndexByte(first, ' '); i > 0 {
			col = first[:i]
		}
		opt := Option{Label: l.Detail(col)}
		if display != "" {
			opt.Example = "e.g. " + display
		}
		return opt
	case sqlshape.SlotWhere:
		if value == "" {
			return Option{Label: "No condition on " + l.Column(arg)}
		}
		return Option{Label: upperFirst(describeCondition(value))}
	case sqlshape.SlotGroup:
		if value == "" {
			return Option{Label: "One overall figure"}
		}
		return Option{Label: "Per " + strings.ToLower(l.describeColumns(value))}
	case sqlshape.SlotOrder:
		if value == "" {
			return Option{Label: "In no particular order"}
		}
		first := strings.Split(value, ", ")[0]
		expr, dir := first, "asc"
		if i := strings.LastIndexByte(first, ' '); i > 0 {
			expr, dir = first[:i], first[i+1:]
		}
		what := l.Column(expr)
		if strings.Contains(expr, "(") {
			what = strings.ToLower(l.describeMeasure(expr, true, counted))
		}
		if dir == "desc" {
			return Option{Label: upperFirst("highest " + what + " first")}
		}
		return Option{Label: upperFirst("lowest " + what + " first")}
	case sqlshape.SlotLimit:
		switch value {
		case "":
			return Option{Label: "All of them"}
		case "1":
			return Option{Label: "Only the top one"}
		}
		return Option{Label: "The top " + value}
	case sqlshape.SlotTables:
		tbls, joins, _ := strings.Cut(value, " | ")
		// Name the connection only this reading makes: "via the state the
		// order was shipped to" rather than a list of tables.
		for _, j := range strings.Split(joins, ", ") {
			if j == "" || containsAny(others, j) {
				continue
			}
			a, b, _ := strings.Cut(j, " = ")
			side := a
			if _, col := splitTC(a); strings.EqualFold(col, "id") || strings.EqualFold(col, "code") {
				side = b
			}
			return Option{Label: "Via " + lowerFirst(l.Detail(side))}
		}
		var names []string
		for _, t := range strings.Split(tbls, ", ") {
			names = append(names, l.Table(t))
		}
		return Option{Label: "Using " + joinAnd(names)}
	case sqlshape.SlotDistinct:
		if value == "" {
			return Option{Label: "Every row, repeats included"}
		}
		return Option{Label: "Each different value once"}
	}
	return Option{Label: value}
}

func containsAny(values []string, part string) bool {
	for _, v := range values {
		if strings.Contains(v, part) {
			return true
		}
	}
	return false
}

func describeCondition(v string) string {
	op, vals, _ := strings.Cut(v, " ")
	switch op {
	case "=":
		return "is " + vals
	case "!=":
		return "is not " + vals
	case ">":
		return "above " + vals
	case ">=":
		return "at least " + vals
	case "<":
		return "below " + vals
	case "<=":
		return "at most " + vals
	case "year":
		return "in " + vals
	case "between":
		return "between " + strings.Replace(vals, ",", " and ", 1)
	case "in":
		return "one of " + strings.ReplaceAll(vals, ",", ", ")
	}
	return v
}

// promptFor asks about a point in plain words.
func (l *Labels) promptFor(key, phrase string) string {
	name, arg := sqlshape.SlotName(key), sqlshape.SlotArg(key)
	if phrase != "" {
		switch name {
		case sqlshape.SlotOutput:
			return fmt.Sprintf("For '%s', what should I show?", phrase)
		case sqlshape.SlotLimit:
			return fmt.Sprintf("For '%s', how many should I show?", phrase)
		case sqlshape.SlotGroup:
			return fmt.Sprintf("For '%s', how should I break it down?", phrase)
		}
		return fmt.Sprintf("By '%s', which do you mean?", phrase)
	}
	switch name {
	case sqlshape.SlotMeasure:
		return "Which figure should I use?"
	case sqlshape.SlotOutput:
		return "What should the answer show?"
	case sqlshape.SlotFilterOn:
		return fmt.Sprintf("What does '%s' refer to?", arg)
	case sqlshape.SlotWhere:
		return fmt.Sprintf("Which %s do you mean?", l.Column(arg))
	case sqlshape.SlotGroup:
		return "How should I break the result down?"
	case sqlshape.SlotOrder:
		return "What should I rank them by?"
	case sqlshape.SlotLimit:
		return "How many results should I show?"
	case sqlshape.SlotTables:
		return "Which records should I connect?"
	case sqlshape.SlotDistinct:
		return "Should repeated values be shown once or every time?"
	}
	return "Which do you mean?"
}

// kindFor classifies a point as one of the four ambiguity kinds.
func kindFor(key string, values []pointValue, displays map[string]string) AmbiguityKind {
	switch sqlshape.SlotName(key) {
	case sqlshape.SlotFilterOn:
		seen := map[string]bool{}
		for _, v := range values {
			seen[strings.ToLower(displays[v.Value])] = true
		}
		if len(seen) > 1 {
			return AmbValue
		}
		return AmbColumn
	case sqlshape.SlotWhere:
		return AmbValue
	case sqlshape.SlotMeasure:
		fns := map[string]bool{}
		for _, v := range values {
			fn, _ := aggregate(strings.Split(v.Value, " | ")[0])
			fns[fn] = true
		}
		if len(fns) > 1 {
			return AmbQuestion
		}
		return AmbColumn
	case sqlshape.SlotOutput, sqlshape.SlotLimit, sqlshape.SlotDistinct:
		return AmbOutput
	case sqlshape.SlotTables:
		return AmbQuestion
	}
	return AmbColumn
}
