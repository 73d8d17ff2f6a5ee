package sqlshape

import (
	"sort"
	"strconv"
	"strings"
)

// Slot names: the parts of a query a person can be asked about. A slot's
// key is its name, plus the literal or expression it concerns for filters.
const (
	SlotMeasure  = "measure"  // what is aggregated: SUM(orders.net_amount)
	SlotOutput   = "output"   // what is shown besides measures
	SlotFilterOn = "filteron" // filteron:<value> → which column the value is compared with
	SlotWhere    = "where"    // where:<expr> → which values/operator the expression is compared with
	SlotGroup    = "group"
	SlotOrder    = "order"
	SlotLimit    = "limit"
	SlotTables   = "tables"
	SlotDistinct = "distinct"
)

// SlotName is the name part of a slot key ("filteron:texas" → "filteron").
func SlotName(key string) string {
	if i := strings.IndexByte(key, ':'); i >= 0 {
		return key[:i]
	}
	return key
}

// SlotArg is the argument part of a slot key ("filteron:texas" → "texas").
func SlotArg(key string) string {
	if i := strings.IndexByte(key, ':'); i >= 0 {
		return key[i+1:]
	}
	return ""
}

// Slots maps every slot key of the shape to its canonical value. Only the
// top level counts: subqueries are how a query computes, not what a person
// asked for. canonValue maps a literal to the form it is compared under,
// so that 'TX' and 'Texas' can stand for the same thing; nil keeps values.
func (s *Shape) Slots(canonValue func(string) string) map[string]string {
	if canonValue == nil {
		canonValue = func(v string) string { return v }
	}
	m := map[string]string{}
	var measures, outputs []string
	for _, o := range s.Outputs {
		if o.Agg != "" || strings.Contains(o.Expr, "(") && isAggregateExpr(o.Expr) {
			measures = append(measures, o.Expr)
		} else {
			outputs = append(outputs, o.Expr)
		}
	}
	for _, o := range s.OrderBy {
		if isAggregateExpr(o.Expr) {
			measures = append(measures, o.Expr)
		}
	}
	for _, f := range s.Filters {
		if f.Having && f.Depth == 0 && isAggregateExpr(f.Expr) {
			measures = append(measures, f.Expr)
		}
	}
	m[SlotMeasure] = strings.Join(dedupSorted(measures), " | ")
	m[SlotOutput] = strings.Join(outputs, ", ")
	for _, f := range s.Filters {
		if f.Depth != 0 || f.Op == "expr" {
			continue
		}
		if len(f.Values) > 0 && f.Values[0] != "(subquery)" {
			vals := make([]string, len(f.Values))
			for i, v := range f.Values {
				vals[i] = canonValue(v)
			}
			key := SlotFilterOn + ":" + strings.Join(vals, ",")
			m[key] = appendSorted(m[key], f.Expr+" "+f.Op)
		}
		key := SlotWhere + ":" + f.Expr
		m[key] = appendSorted(m[key], strings.TrimSpace(f.Op+" "+strings.Join(f.Values, ",")))
	}
	m[SlotGroup] = strings.Join(s.GroupBy, ", ")
	var ords []string
	for _, o := range s.OrderBy {
		dir := "asc"
		if o.Desc {
			dir = "desc"
		}
		ords = append(ords, o.Expr+" "+dir)
	}
	m[SlotOrder] = strings.Join(ords, ", ")
	if s.Limit >= 0 {
		m[SlotLimit] = strconv.Itoa(s.Limit)
	} else {
		m[SlotLimit] = ""
	}
	m[SlotTables] = strings.Join(s.Tables, ", ")
	if len(s.Joins) > 0 {
		m[SlotTables] += " | " + strings.Join(s.Joins, ", ")
	}
	if s.Distinct {
		m[SlotDistinct] = "distinct"
	} else {
		m[SlotDistinct] = ""
	}
	return m
}

func appendSorted(list, item string) string {
	if list == "" {
		return item
	}
	parts := append(strings.Split(list, " & "), item)
	sort.Strings(parts)
	return strings.Join(parts, " & ")
}

var aggregateNames = []string{"SUM(", "COUNT(", "AVG(", "MIN(", "MAX(", "GROUP_CONCAT(", "STDDEV(", "VARIANCE("}

func isAggregateExpr(e string) bool {
	for _, a := range aggregateNames {
		if strings.HasPrefix(e, a) {
			return true
		}
	}
	return false
}
