package ontology

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Target is the machine form of what a fact decides: the choice a person
// made on one kind of decision, and what it was made over, so that the
// fact only decides the same decision again.
type Target struct {
	// Slot is the part of a query the fact was learned on ("measure",
	// "filteron", "order", "output", "tables", "group", "limit",
	// "distinct", "where"), or "definition" for a phrase's definition.
	Slot string `json:"slot"`
	// Arg is what the slot concerned, when it has an argument ("texas").
	Arg string `json:"arg,omitempty"`
	// Choice is what the person chose.
	Choice Term `json:"choice"`
	// Over are the options it was chosen over.
	Over []Term `json:"over,omitempty"`
}

// SlotDefinition is the Slot of a definition's target.
const SlotDefinition = "definition"

// SlotWord is the Slot of a word's target (KindWord).
const SlotWord = "word"

// IsZero reports whether the target holds nothing.
func (t Target) IsZero() bool { return t.Slot == "" && t.Choice.Kind == "" && len(t.Over) == 0 }

// Equal reports whether two targets decide the same thing.
func (t Target) Equal(o Target) bool {
	return t.Slot == o.Slot && t.Arg == o.Arg && t.Choice.Equal(o.Choice) &&
		slices.EqualFunc(t.Over, o.Over, Term.Equal)
}

// SameChoice reports whether two targets make the same choice on the same
// kind of decision, whatever it was chosen over and whatever the slot's
// argument was ("in 2024" and "in 2025" choose the same date column).
func (t Target) SameChoice(o Target) bool {
	a, b := t.Choice, o.Choice
	a.Subject, b.Subject = strings.ToLower(a.Subject), strings.ToLower(b.Subject)
	return t.Slot == o.Slot && a.Equal(b)
}

// merge is t with o's argument and the options of both it was chosen over.
func (t Target) merge(o Target) Target {
	out := t
	out.Arg = o.Arg
	out.Over = slices.Clone(t.Over)
	for _, x := range o.Over {
		if !slices.ContainsFunc(out.Over, x.Equal) {
			out.Over = append(out.Over, x)
		}
	}
	return out
}

// String is a compact JSON rendering, for logs and the admin CLI.
func (t Target) String() string {
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Sprintf("%+v", t.Choice)
	}
	return string(b)
}

// ParseTarget reads the JSON form (as printed by String and exports).
func ParseTarget(s string) (Target, error) {
	var t Target
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return Target{}, invalidf("target is not valid JSON: %v", err)
	}
	if err := t.validate(); err != nil {
		return Target{}, err
	}
	return t, nil
}

func (t Target) validate() error {
	if t.Choice.Kind == "" {
		return invalidf("target has no choice")
	}
	if err := t.Choice.validate(); err != nil {
		return invalidf("target choice: %v", err)
	}
	for i, o := range t.Over {
		if err := o.validate(); err != nil {
			return invalidf("target over[%d]: %v", i, err)
		}
	}
	return nil
}

// TermKind says what a Term stands for.
type TermKind string

// Term kinds. Each uses the Term fields named in its comment.
const (
	TermColumn    TermKind = "column"    // Column: "orders.shipped_at"
	TermExpr      TermKind = "expr"      // Expr: a computed expression, "order_lines.quantity * order_lines.unit_price"
	TermMeasure   TermKind = "measure"   // Fn over Expr, Distinct: SUM of "orders.net_amount"
	TermOrdering  TermKind = "ordering"  // Expr, Desc
	TermList      TermKind = "list"      // Items: a whole choice in order ("customers.id", "customers.name"); empty: nothing
	TermJoinPath  TermKind = "joins"     // Tables, Joins
	TermValues    TermKind = "values"    // Column Op Values: "plants.status in (Operational, Under Construction)"
	TermPredicate TermKind = "predicate" // Subject and a condition: Column Op Values, Days, or Related via Joins
	TermSQL       TermKind = "sql"       // Expr: a whole read-only SELECT (a verified query)
	// TermComputed is a measure computed from others: Items are measures
	// ("SUM(orders.net_amount)", "SUM(refunds.amount)") joined by Op ("-"
	// or "+"), each aggregated over its own table's rows.
	TermComputed TermKind = "computed"
	// TermTable is a whole table: Tables holds its one name (a word for
	// the table, KindWord).
	TermTable TermKind = "table"
)

// TableTerm is the term of one table.
func TableTerm(table string) Term { return Term{Kind: TermTable, Tables: []string{table}} }

func (k TermKind) valid() bool {
	switch k {
	case TermColumn, TermExpr, TermMeasure, TermOrdering, TermList, TermJoinPath, TermValues, TermPredicate, TermSQL, TermComputed, TermTable:
		return true
	}
	return false
}

// Join is a column = column condition between two tables.
type Join struct {
	Left  string `json:"l"`
	Right string `json:"r"`
}

// Term is one thing a fact can stand for, of one kind. Column and Expr
// are canonical SQL expressions over table.column names.
type Term struct {
	Kind TermKind `json:"kind"`
	// Column is a table.column (column, values, predicate).
	Column string `json:"column,omitempty"`
	// Expr is an expression (expr, ordering) or an aggregate's argument (measure).
	Expr string `json:"expr,omitempty"`
	// Fn is the aggregate of a measure: SUM, COUNT, AVG…
	Fn       string `json:"fn,omitempty"`
	Distinct bool   `json:"distinct,omitempty"`
	Desc     bool   `json:"desc,omitempty"`
	// Op compares Column with Values: "=", "in", "not in", ">", ">=",
	// "<", "<=", "between"; for predicates also "within" (the last Days
	// days), "above average", "exists" and "not exists" (rows of Related).
	Op     string   `json:"op,omitempty"`
	Values []string `json:"values,omitempty"`
	Days   int      `json:"days,omitempty"`
	// Items are a list's parts in canonical form.
	Items []string `json:"items,omitempty"`
	// Tables and Joins describe a join path; a predicate's Joins lead from
	// Subject to Related.
	Tables []string `json:"tables,omitempty"`
	Joins  []Join   `json:"joins,omitempty"`
	// Subject is the table a predicate qualifies; Related the table whose
	// rows an existence predicate looks for.
	Subject string `json:"subject,omitempty"`
	Related string `json:"related,omitempty"`
}

// Equal reports whether two terms are the same.
func (t Term) Equal(o Term) bool {
	return t.Kind == o.Kind && t.Column == o.Column && t.Expr == o.Expr && t.Fn == o.Fn &&
		t.Distinct == o.Distinct && t.Desc == o.Desc && t.Op == o.Op && t.Days == o.Days &&
		t.Subject == o.Subject && t.Related == o.Related &&
		slices.Equal(t.Values, o.Values) && slices.Equal(t.Items, o.Items) &&
		slices.Equal(t.Tables, o.Tables) && slices.Equal(t.Joins, o.Joins)
}

func (t Term) validate() error {
	if !t.Kind.valid() {
		return fmt.Errorf("unknown term kind %q", t.Kind)
	}
	switch t.Kind {
	case TermColumn:
		if t.Column == "" {
			return fmt.Errorf("a column term needs a column")
		}
	case TermExpr, TermOrdering, TermSQL:
		if t.Expr == "" {
			return fmt.Errorf("a %s term needs an expression", t.Kind)
		}
	case TermMeasure:
		if t.Fn == "" || t.Expr == "" {
			return fmt.Errorf("a measure term needs a function and an argument")
		}
	case TermValues:
		if t.Column == "" || t.Op == "" {
			return fmt.Errorf("a values term needs a column and an operator")
		}
	case TermPredicate:
		if t.Subject == "" || t.Op == "" {
			return fmt.Errorf("a predicate needs a subject table and an operator")
		}
	case TermTable:
		if len(t.Tables) != 1 || t.Tables[0] == "" {
			return fmt.Errorf("a table term needs one table")
		}
	case TermComputed:
		if len(t.Items) < 2 || t.Op != "-" && t.Op != "+" {
			return fmt.Errorf("a computed measure needs two measures and + or -")
		}
	}
	return nil
}

// ColumnTerm is the term of one column.
func ColumnTerm(column string) Term { return Term{Kind: TermColumn, Column: column} }

// ListTerm is the term of a whole choice.
func ListTerm(items ...string) Term { return Term{Kind: TermList, Items: items} }

// SQL renders the term as the SQL fragment it stands for, for prompts and
// admin views: "orders.net_amount", "SUM(orders.net_amount)",
// "orders.total DESC", "plants.status IN ('Operational')".
func (t Term) SQL() string {
	switch t.Kind {
	case TermColumn:
		return t.Column
	case TermExpr, TermSQL:
		return t.Expr
	case TermMeasure:
		arg := t.Expr
		if t.Distinct {
			arg = "DISTINCT " + arg
		}
		return t.Fn + "(" + arg + ")"
	case TermOrdering:
		if t.Desc {
			return t.Expr + " DESC"
		}
		return t.Expr + " ASC"
	case TermList:
		return strings.Join(t.Items, ", ")
	case TermTable:
		return strings.Join(t.Tables, ", ")
	case TermComputed:
		return strings.Join(t.Items, " "+t.Op+" ")
	case TermJoinPath:
		var b strings.Builder
		b.WriteString(strings.Join(t.Tables, ", "))
		for i, j := range t.Joins {
			if i == 0 {
				b.WriteString(" ON ")
			} else {
				b.WriteString(" AND ")
			}
			b.WriteString(j.Left + " = " + j.Right)
		}
		return b.String()
	case TermValues:
		return condition(t.Column, t.Op, t.Values)
	case TermPredicate:
		switch t.Op {
		case "read":
			return t.Expr // a condition read from the person's words
		case "within":
			return fmt.Sprintf("%s >= CURRENT_DATE - INTERVAL %d DAY", t.Column, t.Days)
		case "above average":
			return fmt.Sprintf("%s > (SELECT AVG(%s) FROM %s)", t.Column, t.Column, t.Subject)
		case "below average":
			return fmt.Sprintf("%s < (SELECT AVG(%s) FROM %s)", t.Column, t.Column, t.Subject)
		case "exists", "not exists":
			var on []string
			for _, j := range t.Joins {
				on = append(on, j.Left+" = "+j.Right)
			}
			if t.Days > 0 && t.Column != "" {
				on = append(on, fmt.Sprintf("%s >= CURRENT_DATE - INTERVAL %d DAY", t.Column, t.Days))
			}
			return strings.ToUpper(t.Op) + " (SELECT 1 FROM " + t.Related + " WHERE " + strings.Join(on, " AND ") + ")"
		}
		return condition(t.Column, t.Op, t.Values)
	}
	return ""
}

// condition renders column op values with quoted literals.
func condition(column, op string, values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
	}
	switch op {
	case "in", "not in":
		return column + " " + strings.ToUpper(op) + " (" + strings.Join(q, ", ") + ")"
	case "between":
		if len(q) == 2 {
			return column + " BETWEEN " + q[0] + " AND " + q[1]
		}
	}
	return strings.TrimSpace(column + " " + op + " " + strings.Join(q, ", "))
}

// ColumnRefs lists the table.column names the term mentions.
func (t Term) ColumnRefs() []string {
	var out []string
	add := func(s string) {
		for _, f := range strings.FieldsFunc(s, func(r rune) bool {
			return !(r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			if isColumnRef(f) && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	add(t.Column)
	add(t.Expr)
	for _, it := range t.Items {
		add(it)
	}
	for _, j := range t.Joins {
		add(j.Left)
		add(j.Right)
	}
	return out
}

// Summary words the target for admins: "measure: orders.net_amount (over
// orders.gross_amount)", "filteron 2024: orders.shipped_at (over
// orders.ordered_at)".
func (t Target) Summary() string {
	head := t.Slot
	if t.Arg != "" {
		head += " " + t.Arg
	}
	s := head + ": " + t.Choice.SQL()
	if len(t.Over) > 0 {
		over := make([]string, len(t.Over))
		for i, o := range t.Over {
			over[i] = o.SQL()
		}
		s += " (over " + strings.Join(over, "; ") + ")"
	}
	return s
}
