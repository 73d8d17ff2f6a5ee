package offline

import (
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// Flags: "books with illustrations", "rooms that have a projector",
// "users without a verified email". A yes/no column (BOOLEAN, TINYINT(1),
// or an is_/has_ column holding two values) named after "with", "have"
// or "has" is a condition that it is true; after "without", "no" or
// "not", that it is false.

// flagMention is a column mention read as a yes/no condition.
type flagMention struct {
	cm      *colMention
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
	for _, cm := range a.columns {
		if cm.clause != 0 || r.usedCols[cm] {
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
		governed, negated, or := a.flagGovernor(cm, presence, prev)
		if !governed && flag && r.verbOfFlag(cm) {
			governed = true // "loans that require a deposit": deposit_required
		}
		if governed && presence && (r.valueAfter(cm) || r.comparedAfter(cm)) {
			governed = false // "with a minor in Physics": the value says it
		}
		if governed {
			r.usedCols[cm] = true
			out = append(out, flagMention{cm: cm, negated: negated, or: or, both: a.bothWays(cm), presence: presence})
		}
	}
	return out
}

// flagKind: the mention names a yes/no column (flag), or a column that is
// sometimes empty, whose presence can be asked about.
func (r *reader) flagKind(cm *colMention) (flag, presence bool) {
	for _, al := range cm.alts {
		if c := r.e.m.Column(al.table, al.column); c != nil && isFlag(r.e.m, al.table, c) {
			flag = true
		}
	}
	if !flag && len(cm.alts) > 0 && !r.verbMention(cm) {
		presence = sometimesEmpty(r.e.m, cm.alts[0].table, cm.alts[0].column)
	}
	return flag, presence
}

// The words that govern a yes/no column (words/grammar.tsv).
var (
	flagHave    = words.Set("flaghave")
	flagLack    = words.Set("flaglack")
	flagFillers = words.Set("flagfiller")
)

// flagGovernor reads the words before a flag mention (or its own first
// word: "without illustrations") that say it is asked for (with, have…)
// or negated (without, no, lacking…); a flag coordinated with the one
// before ("a referral and a follow-up scan") is governed as that one.
func (a *analysis) flagGovernor(cm *colMention, presence bool, prev *flagMention) (governed, negated, or bool) {
	verb := false
	for k := cm.at; k >= 0 && k >= cm.at-3; k-- {
		if k == cm.at && a.word(k) != "without" && a.word(k) != "with" && a.word(k) != "no" {
			continue
		}
		if w := a.word(k); (w == "and" || w == "or") && prev != nil && prev.cm.end == k {
			return true, prev.negated, w == "or"
		}
		switch w := a.word(k); {
		case flagHave[w]:
			governed = true
		case flagLack[w]:
			governed, negated = true, true
		case flagFillers[w]:
			continue
		}
		// "have declared a minor": one participle between.
		if w := a.word(k); presence && !verb && k < cm.at && len(w) > 4 && (strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "en")) {
			verb = true
			continue
		}
		break
	}
	return governed, negated, false
}

// bothWays: a negation a few words after "and how many" asks for the rows
// with the flag and, beside them, those without it.
func (a *analysis) bothWays(cm *colMention) bool {
	both := false
	for k := cm.end; k+3 < len(a.toks) && k <= cm.end+1; k++ {
		if a.seq(k, "and", "how", "many") {
			for j := k + 3; j < len(a.toks) && j <= k+5; j++ {
				if w := a.word(j); w == "not" || w == "don't" || w == "doesn't" || w == "without" {
					both = true
					a.markUsed(k, j+1)
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
			al := f.cm.alts[0]
			fc := flagCond{x: isNull{X: col(al.table, al.column), Not: true}, tables: []string{al.table}, weight: 1}
			if f.negated {
				fc.x = isNull{X: col(al.table, al.column)}
			}
			conds = append(conds, fc)
		}
		for _, al := range f.cm.alts {
			if f.presence {
				break
			}
			c := r.e.m.Column(al.table, al.column)
			if c == nil || !isFlag(r.e.m, al.table, c) {
				continue
			}
			x := col(al.table, al.column)
			fc := flagCond{x: cmp(x, "=", keyword("TRUE")), tables: []string{al.table}, weight: al.weight}
			if f.negated {
				fc.x = prefix{Op: "NOT", X: x}
			}
			if yes, no, ok := yesNo(r.e.m, al.table, c); ok {
				// A text column of 'Yes' and 'No': compared with the stored word.
				fc.x = cmp(x, "=", strLit(yes))
				if f.negated {
					fc.x = cmp(x, "=", strLit(no))
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
					if !sameExpr(r.e.m, x.x, y.x) {
						either = append(either, flagCond{x: paren{X: cmp(x.x, "OR", y.x)}, tables: append(slices.Clone(x.tables), y.tables...), weight: x.weight * y.weight})
					}
				}
			}
			conds = either
		}
		el := &element{name: "flag"}
		if f.both {
			// One row per answer, yes and no, each with its count.
			for _, al := range f.cm.alts {
				if c := r.e.m.Column(al.table, al.column); c != nil && isFlag(r.e.m, al.table, c) {
					x := col(al.table, al.column)
					el.add(al.weight, func(p *plan) {
						p.groups = append(p.groups, sel{x: x})
						p.selects = append([]sel{{x: x}}, p.selects...)
						p.use(al.table)
					})
				}
			}
			els = append(els, el)
			prev = nil
			continue
		}
		for _, fc := range conds {
			el.add(fc.weight, func(p *plan) {
				p.filters = append(p.filters, cond{x: fc.x})
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
	x      expr
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
func (r *reader) valueAfter(cm *colMention) bool {
	for _, vm := range r.a.values {
		if vm.at >= cm.end && vm.at <= cm.end+2 {
			return true
		}
	}
	return false
}

// comparedAfter says whether a comparison follows the mention closely
// ("with a score over 7").
func (r *reader) comparedAfter(cm *colMention) bool {
	for _, cp := range r.a.comps {
		if cp.at >= cm.end && cp.at <= cm.end+2 {
			return true
		}
	}
	return false
}

// verbMention says whether a column mention is a verb form ("have
// ended"), which says what happened rather than naming a thing.
func (r *reader) verbMention(cm *colMention) bool {
	w := r.a.word(cm.at)
	return strings.HasSuffix(w, "ed") || r.e.words != nil && r.e.words.MostlyVerb(w)
}

// yesWords and noWords are how text columns store yes and no.
var (
	yesWords = words.Set("yes")
	noWords  = words.Set("no")
)

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
func (r *reader) verbOfFlag(cm *colMention) bool {
	w := r.a.word(cm.at)
	if cm.end-cm.at != 1 || len(w) < 4 || r.e.words == nil || !r.e.words.MostlyVerb(w) {
		return false
	}
	stem := strings.TrimSuffix(strings.TrimSuffix(w, "s"), "e")
	for _, al := range cm.alts {
		c := r.e.m.Column(al.table, al.column)
		if c == nil || !isFlag(r.e.m, al.table, c) || !strings.Contains(strings.ToLower(al.column), stem) {
			continue
		}
		for _, next := range r.a.columns {
			if next.at > cm.at && next.at <= cm.end+2 && next.clause == 0 {
				for _, x := range next.alts {
					if x.table == al.table && x.column == al.column {
						r.usedCols[next] = true
					}
				}
			}
		}
		return true
	}
	return false
}
