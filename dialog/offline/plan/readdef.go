package plan

import (
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// Definitions read as questions: the words a person gives for a term
// ("loyal" = "customers with 25 or more orders", "has a refund in the
// last 30 days", "in Texas or Ohio") are read by the reader questions go
// through, as a question listing the term's subject: counts of related
// rows, periods, value sets, comparisons, measures compared. The reading
// is accepted only when it lists the subject's rows, compares something,
// and accounts for every word; its conditions (filters, grouped counts,
// the tables they read) become the term's meaning, applied to later
// questions by reading the same words again (fromTerm), so a relative
// period ("in the last 90 days") stays relative.

// ReadOp is the predicate operator of a meaning read from words: Items[0]
// holds the words, Expr the condition they were read as.
const ReadOp = "read"

// ReadParts are the conditions a definition read from words adds to a
// reading.
type ReadParts struct {
	Filters []Cond
	Derived []DerivedJoin
	Tables  []string
	Defines []dialog.Definition
}

// apply adds the definition's condition to p: a single condition, or the
// parts read from the person's words.
func (d definition) apply(p *Plan, subject string) {
	p.use(subject)
	if d.parts == nil {
		p.Filters = append(p.Filters, Cond{X: d.cond})
		return
	}
	p.Filters = append(p.Filters, d.parts.Filters...)
	p.Derived = append(p.Derived, d.parts.Derived...)
	p.use(d.parts.Tables...)
	p.Defines = append(p.Defines, d.parts.Defines...)
}

// ConditionReading is one accepted reading of a definition's words.
type ConditionReading struct {
	Parts   *ReadParts
	Term    ontology.Term
	Listing string
}
