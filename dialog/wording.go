package dialog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// describeMeasure words one aggregate; withFn adds "total"/"number of".
func (l *Labels) describeMeasure(p sqlshape.Part, withFn bool, counted string) string {
	if !p.IsAggregate() {
		return upperFirst(sqlshape.DescribeExpression(p.Expr, l))
	}
	// Counting keys is counting rows: "Number of customers", not "Customer id".
	if !withFn && p.Arg != "*" && p.Arg != "1" && !(p.Fn == "COUNT" && l.IsKey(p.Arg)) {
		return l.Detail(p.Arg)
	}
	return upperFirst(strings.TrimPrefix(sqlshape.DescribeMeasure(p.Expr, counted, l), "the "))
}

// describeColumns words a list of expressions:
// customers.id, customers.name, customers.email → "Id, name and email";
// counted is the table a COUNT(*) among them counts.
func (l *Labels) describeColumns(parts []sqlshape.Part, counted string) string {
	var words []string
	for _, p := range parts {
		e := p.Expr
		switch {
		case e == "*" || strings.HasSuffix(e, ".*"):
			words = append(words, "every column")
		case strings.ContainsAny(e, "("):
			fn, _ := sqlshape.SplitAggregate(e)
			refs := sqlshape.ColumnRefs(e)
			switch p := periodWord(e); {
			case fn != "":
				words = append(words, lowerFirst(l.describeMeasure(sqlshape.AggregatePart(e), true, counted)))
			case p != "" && len(refs) == 1:
				// MONTH(orders.ordered_at): "month of date the order was placed".
				words = append(words, strings.ToLower(p)+" of "+l.Column(refs[0]))
			default:
				words = append(words, sqlshape.DescribeExpression(e, l))
			}
		default:
			words = append(words, l.Column(e))
		}
	}
	return upperFirst(sqlshape.JoinAnd(words))
}

// optionFor words one value of a decision point. display holds the
// literal(s) the representative candidate compares with, for examples.
func (l *Labels) optionFor(key sqlshape.SlotKey, value sqlshape.SlotValue, others []sqlshape.SlotValue, sameFn bool, counted, display string) Option {
	opt := l.optionLabel(key, value, others, sameFn, counted, display)
	opt.Value = value
	return opt
}

func (l *Labels) optionLabel(key sqlshape.SlotKey, value sqlshape.SlotValue, others []sqlshape.SlotValue, sameFn bool, counted, display string) Option {
	parts := value.Parts
	switch key.Name {
	case sqlshape.SlotMeasure:
		if len(parts) == 0 {
			return Option{Label: "No total: list the matching rows"}
		}
		var words []string
		for _, p := range parts {
			words = append(words, l.describeMeasure(p, !sameFn, counted))
		}
		opt := Option{Label: sqlshape.JoinAnd(words)}
		if len(parts) == 1 && parts[0].IsAggregate() && parts[0].Arg != "*" && parts[0].Fn != "COUNT" {
			if ex := l.Example(parts[0].Arg); ex != "" {
				opt.Example = "e.g. " + ex
			}
		}
		return opt
	case sqlshape.SlotOutput:
		if len(parts) == 0 {
			return Option{Label: "Just the summary figure (total, count…)"}
		}
		opt := Option{Label: l.describeColumns(parts, counted)}
		aggregated := slices.ContainsFunc(parts, func(p sqlshape.Part) bool { return strings.Contains(p.Expr, "(") })
		if !aggregated && slices.ContainsFunc(others, sqlshape.SlotValue.IsEmpty) {
			// Set against a summary, a plain column means one line per row.
			opt.Label += ", row by row"
		}
		if first := parts[0].Expr; !strings.Contains(first, "(") {
			if ex := l.Example(first); ex != "" {
				opt.Example = "e.g. " + ex
			}
		}
		return opt
	case sqlshape.SlotFilterOn:
		if len(parts) == 0 {
			if eventWord(key.Arg) {
				// "placed", "shipped": the reading without the value is
				// the event itself, which is what most people mean.
				return Option{Label: fmt.Sprintf("'%s' as what happened (no filter on a stored '%s')", key.Arg, key.Arg)}
			}
			return Option{Label: fmt.Sprintf("Don't filter on '%s'", key.Arg)}
		}
		opt := Option{Label: l.Detail(parts[0].Expr)}
		if display != "" {
			opt.Example = "e.g. " + display
		}
		return opt
	case sqlshape.SlotWhere:
		if len(parts) == 0 {
			return Option{Label: "Any " + l.Column(key.Arg)}
		}
		var conds []string
		for _, p := range parts {
			conds = append(conds, describeCondition(p))
		}
		return Option{Label: upperFirst(strings.Join(conds, " and "))}
	case sqlshape.SlotCond:
		if len(parts) == 0 {
			return Option{Label: "No further condition"}
		}
		var conds []string
		for _, p := range parts {
			conds = append(conds, sqlshape.DescribeCondition(p.Expr, l))
		}
		return Option{Label: upperFirst(strings.Join(conds, "; "))}
	case sqlshape.SlotGroup:
		if len(parts) == 0 {
			return Option{Label: "One overall figure"}
		}
		return Option{Label: "Per " + strings.ToLower(l.describeColumns(parts, counted))}
	case sqlshape.SlotOrder:
		if len(parts) == 0 {
			return Option{Label: "In no particular order"}
		}
		first := parts[0]
		what := l.Column(first.Expr)
		if fn, _ := sqlshape.SplitAggregate(first.Expr); fn != "" {
			what = strings.ToLower(l.describeMeasure(sqlshape.AggregatePart(first.Expr), true, counted))
		}
		if first.Op == "desc" {
			return Option{Label: upperFirst("highest " + what + " first")}
		}
		return Option{Label: upperFirst("lowest " + what + " first")}
	case sqlshape.SlotLimit:
		switch value.String() {
		case "":
			return Option{Label: "All of them"}
		case "1":
			return Option{Label: "Only the top one"}
		}
		return Option{Label: "The top " + value.String()}
	case sqlshape.SlotTables:
		// Name the connection only this reading makes: "via the state the
		// order was shipped to" rather than a list of tables.
		for _, j := range value.Joins {
			if slices.ContainsFunc(others, func(o sqlshape.SlotValue) bool { return slices.Contains(o.Joins, j) }) {
				continue
			}
			side := j.Left
			if _, col := splitTC(j.Left); strings.EqualFold(col, "id") || strings.EqualFold(col, "code") {
				side = j.Right
			}
			return Option{Label: "Via " + lowerFirst(l.Detail(side))}
		}
		var names []string
		for _, p := range parts {
			names = append(names, l.Table(p.Expr))
		}
		return Option{Label: "Using " + sqlshape.JoinAnd(names)}
	case sqlshape.SlotDistinct:
		if len(parts) == 0 {
			return Option{Label: "Every row, repeats included"}
		}
		return Option{Label: "Each different value once"}
	case sqlshape.SlotDefine:
		if len(parts) == 0 {
			return Option{Label: fmt.Sprintf("Leave '%s' out", key.Arg)}
		}
		if display != "" {
			return Option{Label: display}
		}
	case sqlshape.SlotCount:
		if len(parts) == 0 {
			return Option{Label: "Without that condition"}
		}
		if display != "" {
			return Option{Label: display}
		}
	}
	return Option{Label: value.String()}
}

// describeCondition words one comparison of a where-slot.
func describeCondition(p sqlshape.Part) string {
	if len(p.Values) == 1 && p.Values[0] == "(subquery)" {
		// What the subquery finds is asked about on its own (its slots'
		// scope); here only how the outer query uses it.
		switch p.Op {
		case "in", "=":
			return "is one of those the question looks up"
		case "not in", "!=":
			return "is not one of those the question looks up"
		case ">", ">=":
			return "is above the value the question looks up"
		case "<", "<=":
			return "is below the value the question looks up"
		}
		return "is compared with a value the question looks up"
	}
	vals := strings.Join(p.Values, ",")
	switch p.Op {
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
		if len(p.Values) == 2 {
			return "between " + p.Values[0] + " and " + p.Values[1]
		}
	case "in":
		return "one of " + strings.Join(p.Values, ", ")
	case "not in":
		return "none of " + strings.Join(p.Values, ", ")
	case "is null":
		return "not recorded (empty)"
	case "is not null":
		return "recorded (not empty)"
	case "like":
		return "matching '" + vals + "'"
	case "not like":
		return "not matching '" + vals + "'"
	}
	return strings.TrimSpace(p.Op + " " + vals)
}

// promptFor asks about a point in plain words; a point inside a nested
// query says which part of the question it is about.
func (l *Labels) promptFor(key sqlshape.SlotKey, phrase string) string {
	p := l.topPrompt(key, phrase)
	if key.Nested() && phrase == "" {
		p = strings.TrimSuffix(p, "?") + " " + l.scopeWords(key.Scope) + "?"
	}
	return p
}

// scopeWords says which part of the question a nested query is, from how
// the outer query uses it.
func (l *Labels) scopeWords(scope string) string {
	first, _, _ := strings.Cut(scope, "/")
	kind, arg, _ := strings.Cut(first, ":")
	if i := strings.IndexByte(kind, '#'); i >= 0 {
		kind = kind[:i]
	}
	if i := strings.IndexByte(arg, '#'); i >= 0 {
		arg = arg[:i]
	}
	kind = strings.TrimPrefix(strings.TrimPrefix(kind, "having-"), "not-")
	switch kind {
	case "in", "cmp":
		if arg != "" {
			return "in the part that finds which " + l.Column(arg) + " to keep"
		}
	case "exists":
		return "in the part that checks for related rows"
	case "from", "with":
		// An alias that names no thing ("grouped", "t1") says nothing to
		// the person: the step is the one worked out first.
		if name := humanize(arg); arg != "" && !strings.HasSuffix(name, "ed") && len(name) > 2 {
			return "in the step that first works out the " + name
		}
		return "in the step worked out first"
	case "union", "union-all", "intersect", "except", "branch":
		return "in the second part of the question"
	case "select":
		return "in the figure worked out for each row"
	}
	return "in a part of the question"
}

func (l *Labels) topPrompt(key sqlshape.SlotKey, phrase string) string {
	name, arg := key.Name, key.Arg
	if name == sqlshape.SlotCount {
		return fmt.Sprintf("How often should each of the %s count?", arg)
	}
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
	case sqlshape.SlotCond:
		return "Which condition do you mean?"
	case sqlshape.SlotDefine:
		return fmt.Sprintf("By '%s', which do you mean?", arg)
	}
	return "Which do you mean?"
}

// kindFor classifies a point as one of the four ambiguity kinds.
func kindFor(key sqlshape.SlotKey, values []pointValue, displays map[string]string) AmbiguityKind {
	switch key.Name {
	case sqlshape.SlotFilterOn:
		seen := map[string]bool{}
		for _, v := range values {
			seen[strings.ToLower(displays[v.Value.String()])] = true
		}
		if len(seen) > 1 {
			return AmbValue
		}
		return AmbColumn
	case sqlshape.SlotWhere, sqlshape.SlotCond:
		return AmbValue
	case sqlshape.SlotMeasure:
		fns := map[string]bool{}
		for _, v := range values {
			fns[firstFn(v.Value)] = true
		}
		if len(fns) > 1 {
			return AmbQuestion
		}
		return AmbColumn
	case sqlshape.SlotOutput, sqlshape.SlotLimit, sqlshape.SlotDistinct:
		return AmbOutput
	case sqlshape.SlotTables, sqlshape.SlotDefine, sqlshape.SlotCount:
		return AmbQuestion
	}
	return AmbColumn
}

// plainLabel words a value by what its parts compute, for an option whose
// usual label came out as SQL: "total population where country name is
// 'united states' per total population where state name is 'california'".
func (l *Labels) plainLabel(v sqlshape.SlotValue) string {
	var words []string
	for _, p := range v.Parts {
		words = append(words, sqlshape.DescribeExpression(p.Expr, l))
	}
	return upperFirst(sqlshape.JoinAnd(words))
}

// eventWord says whether a word reads as a regular past participle
// ("placed", "shipped"), which names an event as well as a stored value.
func eventWord(w string) bool {
	return len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") && !strings.Contains(w, " ")
}
