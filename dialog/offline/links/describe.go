package links

import (
	"fmt"
	"sort"
	"strings"
)

// Mention is one thing the reader found, for people reading what the
// engine made of a question (bot readings): which words, what kind of
// mention, and what they were linked to.
type Mention struct {
	Kind    string   // "value", "table", "column", "time", "comparison", "count", …
	Phrase  string   // the words, as written
	At, End int      // the tokens at..end-1
	Means   []string // what the words were linked to, best first
}

// Mentions lists what the reader found, in the order of the words. The
// words no recogniser took and that carry meaning come last, as kind
// "unread": the plan stage cannot use them, and the accounting reports
// them.
func (a *Analysis) Mentions() []Mention {
	var out []Mention
	add := func(kind string, at int, phrase string, means ...string) {
		m := Mention{Kind: kind, Phrase: phrase, At: at, End: at}
		if at >= 0 {
			m.End = a.SpanOf(at, phrase)
		}
		for _, s := range means {
			if s != "" {
				m.Means = append(m.Means, s)
			}
		}
		out = append(out, m)
	}
	for _, vm := range a.Values {
		var means []string
		for _, al := range vm.Alts {
			means = append(means, fmt.Sprintf("%s.%s = %q", al.Table, al.Column, al.Value))
		}
		add(flagged("value", vm.Negated, "not"), vm.At, vm.Phrase, means...)
	}
	for _, em := range a.Entities {
		var means []string
		for _, t := range em.Tables {
			means = append(means, t.Name)
		}
		add("table", em.At, em.Phrase, means...)
	}
	for _, cm := range a.Columns {
		var means []string
		for _, al := range cm.Alts {
			means = append(means, al.Table+"."+al.Column)
		}
		out = append(out, Mention{Kind: "column", Phrase: cm.Phrase, At: cm.At, End: cm.End, Means: means})
	}
	for _, tm := range a.Times {
		if tm.Days > 0 {
			add("time", tm.At, tm.Phrase, fmt.Sprintf("the last %d days", tm.Days))
			continue
		}
		add("time", tm.At, tm.Phrase, fmt.Sprintf("from %s to %s", tm.From, tm.To))
	}
	for _, cp := range a.Comps {
		add("comparison", cp.At, cp.Phrase, fmt.Sprintf("%s %g", cp.Op, cp.Value))
	}
	a.describeElements(add)
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	for i, t := range a.Toks {
		if !t.Used && !IsFunctionWord(t) {
			out = append(out, Mention{Kind: "unread", Phrase: t.Raw, At: i, End: i + 1})
		}
	}
	return out
}

// describeElements adds what the question asks for: counts, aggregates,
// superlatives, groups, orderings, patterns, shares and definitions.
func (a *Analysis) describeElements(add func(kind string, at int, phrase string, means ...string)) {
	if a.Count && a.CountAt >= 0 {
		add("count", a.CountAt, a.Word(a.CountAt), "COUNT")
	}
	if a.Agg != "" && a.AggAt >= 0 {
		add("aggregate", a.AggAt, a.Toks[a.AggAt].Raw, a.Agg)
	}
	for _, s := range []*SuperMention{a.Sup, a.SupCol} {
		if s == nil {
			continue
		}
		dir := "lowest"
		if s.Desc {
			dir = "highest"
		}
		means := []string{fmt.Sprintf("%s, %d row(s)", dir, max(s.Limit, 1))}
		if s.Hint != "" {
			means = append(means, "by "+s.Hint)
		}
		add("superlative", s.At, s.Phrase, means...)
	}
	for _, g := range a.Groups {
		add("group", g.At, g.Phrase, g.TimeUnit)
	}
	if o := a.Order; o != nil {
		dir := "ascending"
		if o.Desc {
			dir = "descending"
		}
		add("order", o.At, o.Phrase, dir)
	}
	for _, l := range a.Likes {
		add("pattern", l.At, l.Phrase, l.Pattern)
	}
	for _, l := range a.Linked {
		add("defined", -1, "", "fact "+l.FactID+" → "+l.Column)
	}
}

func flagged(kind string, on bool, flag string) string {
	if on {
		return kind + " (" + flag + ")"
	}
	return kind
}

func (m Mention) String() string {
	s := fmt.Sprintf("%-11s %q", m.Kind, m.Phrase)
	if len(m.Means) > 0 {
		s += " → " + strings.Join(m.Means, " · ")
	}
	return s
}
