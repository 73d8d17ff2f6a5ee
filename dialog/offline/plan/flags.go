package plan

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Flags: "books with illustrations", "rooms that have a projector",
// "users without a verified email". A yes/no column (BOOLEAN, TINYINT(1),
// or an is_/has_ column holding two values) named after "with", "have"
// or "has" is a condition that it is true; after "without", "no" or
// "not", that it is false.

// flagMention is a column mention read as a yes/no condition.
type flagMention struct {
	cm      *links.ColMention
	negated bool
	// or: joined to the previous flag by "or" ("a referral or scan").
	or bool
	// both: "how many had a scan and how many did not" counts each side.
	both bool
	// presence: a column that is empty for some rows, read as "has a
	// value" ("members who have named a guarantor": guarantor IS NOT NULL).
	presence bool
}

// isFlag says whether a column holds yes/no.
func isFlag(m *schema.Model, table string, c *warehouse.Column) bool {
	if c.Kind() == warehouse.KindBool || strings.EqualFold(c.FullType, "tinyint(1)") {
		return true
	}
	if _, _, ok := yesNo(m, table, c); ok {
		return true
	}
	n := strings.ToLower(c.Name)
	if strings.HasPrefix(n, "is_") || strings.HasPrefix(n, "has_") {
		p := m.Profile(table, c.Name)
		return p != nil && p.Distinct > 0 && p.Distinct <= 2
	}
	return false
}

// findFlags picks the column mentions to read as conditions, before any
// other part may show them.
func (r *reader) findFlags() []flagMention {
	a := r.a
	var out []flagMention
	for _, cm := range a.Columns {
		if cm.Clause != 0 || r.usedCols[cm] {
			continue
		}
		flag, presence := r.flagKind(cm)
		if !flag && !presence {
			continue
		}
		var prev *flagMention
		if len(out) > 0 {
			prev = &out[len(out)-1]
		}
		governed, negated, or := flagGovernor(a, cm, presence, prev)
		if !governed && flag && r.verbOfFlag(cm) {
			governed = true // "loans that require a deposit": deposit_required
		}
		if governed && presence && (r.valueAfter(cm) || r.comparedAfter(cm)) {
			governed = false // "with a minor in Physics": the value says it
		}
		if governed {
			r.usedCols[cm] = true
			out = append(out, flagMention{cm: cm, negated: negated, or: or, both: bothWays(a, cm), presence: presence})
		}
	}
	return out
}

// flagKind: the mention names a yes/no column (flag), or a column that is
// sometimes empty, whose presence can be asked about.
func (r *reader) flagKind(cm *links.ColMention) (flag, presence bool) {
	for _, al := range cm.Alts {
		if c := r.e.m.Column(al.Table, al.Column); c != nil && isFlag(r.e.m, al.Table, c) {
			flag = true
		}
	}
	if !flag && len(cm.Alts) > 0 && !r.verbMention(cm) {
		presence = sometimesEmpty(r.e.m, cm.Alts[0].Table, cm.Alts[0].Column)
	}
	return flag, presence
}

var flagHave = words.Set("flaghave")

var flagLack = words.Set("flaglack")

var flagFillers = words.Set("flagfiller")

// flagPreps govern a flag from its own first word: "without
// illustrations", "with a referral", "no parking" (possession.tsv).
var flagPreps = words.Set("flagprep")

// coordinators join a flag to the one before it, which governs both:
// "a referral and a follow-up scan" (connectives.tsv).
var coordinators = words.Set("coordinator")

// flagGovernor reads the words before a flag mention (or its own first
// word: "without illustrations") that say it is asked for (with, have…)
// or negated (without, no, lacking…); a flag coordinated with the one
// before ("a referral and a follow-up scan") is governed as that one.
func flagGovernor(a *links.Analysis, cm *links.ColMention, presence bool, prev *flagMention) (governed, negated, or bool) {
	verb := false
	for k := cm.At; k >= 0 && k >= cm.At-3; k-- {
		if k == cm.At && !flagPreps[a.Word(k)] {
			continue
		}
		if w := a.Word(k); coordinators[w] && prev != nil && prev.cm.End == k {
			return true, prev.negated, w == "or"
		}
		switch w := a.Word(k); {
		case flagHave[w]:
			governed = true
		case flagLack[w]:
			governed, negated = true, true
		case flagFillers[w]:
			continue
		}
		// "have declared a minor": one participle between.
		if w := a.Word(k); presence && !verb && k < cm.At && len(w) > 4 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en")) {
			verb = true
			continue
		}
		break
	}
	return governed, negated, false
}

// bothWaysNegations, a few words after "and how many", ask for the rows
// without the flag too: "how many rooms have a projector and how many
// don't" (possession.tsv).
var bothWaysNegations = words.Set("bothwaysneg")

// bothWays: a negation a few words after "and how many" asks for the rows
// with the flag and, beside them, those without it.
func bothWays(a *links.Analysis, cm *links.ColMention) bool {
	both := false
	for k := cm.End; k+3 < len(a.Toks) && k <= cm.End+1; k++ {
		if a.Seq(k, "and", "how", "many") {
			for j := k + 3; j < len(a.Toks) && j <= k+5; j++ {
				if bothWaysNegations[a.Word(j)] {
					both = true
					a.MarkUsed(k, j+1)
				}
			}
		}
	}
	return both
}

// flagElements write the yes/no conditions.
func (r *reader) flagElements(flags []flagMention) []*element {
	var els []*element
	var prev []flagCond
	for _, f := range flags {
		var conds []flagCond
		if f.presence {
			al := f.cm.Alts[0]
			fc := flagCond{x: sqlexpr.IsNull{X: sqlexpr.Col(al.Table, al.Column), Not: true}, tables: []string{al.Table}, weight: 1}
			if f.negated {
				fc.x = sqlexpr.IsNull{X: sqlexpr.Col(al.Table, al.Column)}
			}
			conds = append(conds, fc)
		}
		for _, al := range f.cm.Alts {
			if f.presence {
				break
			}
			c := r.e.m.Column(al.Table, al.Column)
			if c == nil || !isFlag(r.e.m, al.Table, c) {
				continue
			}
			x := sqlexpr.Col(al.Table, al.Column)
			fc := flagCond{x: sqlexpr.Cmp(x, "=", sqlexpr.Keyword("TRUE")), tables: []string{al.Table}, weight: al.Weight}
			if f.negated {
				fc.x = sqlexpr.Prefix{Op: "NOT", X: x}
			}
			if yes, no, ok := yesNo(r.e.m, al.Table, c); ok {
				// A text column of 'Yes' and 'No': compared with the stored word.
				fc.x = sqlexpr.Cmp(x, "=", sqlexpr.Str(yes))
				if f.negated {
					fc.x = sqlexpr.Cmp(x, "=", sqlexpr.Str(no))
				}
			}
			conds = append(conds, fc)
		}
		if len(conds) == 0 {
			continue
		}
		if f.or && len(prev) > 0 {
			// "with a referral or scan": one condition, either holds.
			els = els[:len(els)-1]
			var either []flagCond
			for _, x := range prev {
				for _, y := range conds {
					if !SameExpr(r.e.m, x.x, y.x) {
						either = append(either, flagCond{x: sqlexpr.Paren{X: sqlexpr.Cmp(x.x, "OR", y.x)}, tables: append(slices.Clone(x.tables), y.tables...), weight: x.weight * y.weight})
					}
				}
			}
			conds = either
		}
		el := &element{name: "flag"}
		if f.both {
			// One row per answer, yes and no, each with its count.
			for _, al := range f.cm.Alts {
				if c := r.e.m.Column(al.Table, al.Column); c != nil && isFlag(r.e.m, al.Table, c) {
					x := sqlexpr.Col(al.Table, al.Column)
					el.add(al.Weight, func(p *Plan) {
						p.Groups = append(p.Groups, Sel{X: x})
						p.Selects = append([]Sel{{X: x}}, p.Selects...)
						p.use(al.Table)
					})
				}
			}
			els = append(els, el)
			prev = nil
			continue
		}
		for _, fc := range conds {
			el.add(fc.weight, func(p *Plan) {
				p.Filters = append(p.Filters, Cond{X: fc.x})
				p.use(fc.tables...)
			})
		}
		els = append(els, el)
		prev = conds
	}
	return els
}

// flagCond is one way to write a yes/no condition.
type flagCond struct {
	x      sqlexpr.Expr
	tables []string
	weight float64
}

// sometimesEmpty says whether a text column is empty (NULL) for some rows
// and set for others: having a value is then a condition on a row.
func sometimesEmpty(m *schema.Model, table, column string) bool {
	c := m.Column(table, column)
	if c == nil || c.Kind() != warehouse.KindText {
		return false
	}
	p := m.Profile(table, column)
	return p != nil && p.NullShare > 0 && p.NullShare < 1
}

// valueAfter says whether a stored value follows the mention closely
// ("a minor in Physics").
func (r *reader) valueAfter(cm *links.ColMention) bool {
	for _, vm := range r.a.Values {
		if vm.At >= cm.End && vm.At <= cm.End+2 {
			return true
		}
	}
	return false
}

// comparedAfter says whether a comparison follows the mention closely
// ("with a score over 7").
func (r *reader) comparedAfter(cm *links.ColMention) bool {
	for _, cp := range r.a.Comps {
		if cp.At >= cm.End && cp.At <= cm.End+2 {
			return true
		}
	}
	return false
}

// verbMention says whether a column mention is a verb form ("have
// ended"), which says what happened rather than naming a thing.
func (r *reader) verbMention(cm *links.ColMention) bool {
	w := r.a.Word(cm.At)
	return strings.HasSuffix(w, "ed") || r.e.words != nil && r.e.words.MostlyVerb(w)
}

var yesWords = words.Set("yes")

var noWords = words.Set("no")

// yesNo finds the stored yes and no of a text column that holds nothing
// else ('Yes'/'No', 'Y'/'N', 'true'/'false').
func yesNo(m *schema.Model, table string, c *warehouse.Column) (yes, no string, ok bool) {
	if c.Kind() != warehouse.KindText {
		return "", "", false
	}
	p := m.Profile(table, c.Name)
	if p == nil || p.Distinct != 2 {
		return "", "", false
	}
	values := p.Values
	if len(values) == 0 {
		for _, vc := range p.Top {
			values = append(values, vc.Value)
		}
	}
	for _, v := range values {
		switch l := strings.ToLower(strings.TrimSpace(v)); {
		case yesWords[l]:
			yes = v
		case noWords[l]:
			no = v
		}
	}
	return yes, no, yes != "" && no != ""
}

// verbOfFlag says whether a flag mention is the verb its column is named
// after ("require" of round_trip_required): the verb states the flag.
// Mentions right after it that name the same column are part of it ("a
// round trip").
func (r *reader) verbOfFlag(cm *links.ColMention) bool {
	w := r.a.Word(cm.At)
	if cm.End-cm.At != 1 || len(w) < 4 || r.e.words == nil || !r.e.words.MostlyVerb(w) {
		return false
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(w, "s"), "e")
	for _, al := range cm.Alts {
		c := r.e.m.Column(al.Table, al.Column)
		if c == nil || !isFlag(r.e.m, al.Table, c) || !strings.Contains(strings.ToLower(al.Column), stem) {
			continue
		}
		for _, next := range r.a.Columns {
			if next.At > cm.At && next.At <= cm.End+2 && next.Clause == 0 {
				for _, x := range next.Alts {
					if x.Table == al.Table && x.Column == al.Column {
						r.usedCols[next] = true
					}
				}
			}
		}
		return true
	}
	return false
}
