// Package plan is the offline engine's third stage: it composes what the
// reader found (links.Analysis) into plans — typed queries made of
// sqlexpr parts, each a reading of the question with a weight. An element
// is one part of the question with its alternatives (a condition, a
// measure, a grouping, an ordering, the outputs); readings are the
// combinations of the elements' alternatives. Terms the schema does not
// name are read here (define.go), and the stage says where a reading
// guessed one.
//
// The stage imports only the ones before it (words, token, schema,
// sqlexpr, read). The engine (package offline) joins a plan's tables,
// keeps each measure at its grain, accounts for every word and renders
// the SQL.
package plan

import (
	"time"

	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/ontology"
)

// ConditionReader reads words as a condition on subject's rows by
// reading them as a whole question ("depots that have no vans"):
// the engine, which can account for every word of a reading.
type ConditionReader func(subject, words string, facts []ontology.Fact) (ConditionReading, bool)

// Builder builds the plans of questions against one schema. It is safe
// for concurrent use.
type Builder struct {
	m          *schema.Model
	words      links.Words
	reader     *links.Reader
	now        func() time.Time
	conditions ConditionReader
}

// NewBuilder builds plans against m; words may be nil.
func NewBuilder(m *schema.Model, words links.Words, reader *links.Reader, now func() time.Time) *Builder {
	return &Builder{m: m, words: words, reader: reader, now: now}
}

// SetConditions sets what reads a definition given in words. It is set
// after NewBuilder because the engine that reads them builds on this
// builder.
func (e *Builder) SetConditions(c ConditionReader) { e.conditions = c }

// readCondition reads words as a condition on subject's rows; without a
// condition reader, none is read.
func (e *Builder) readCondition(subject, words string, facts []ontology.Fact) (ConditionReading, bool) {
	if e.conditions == nil {
		return ConditionReading{}, false
	}
	return e.conditions(subject, words, facts)
}

var keyMeasure = sqlshape.Key(sqlshape.SlotMeasure)

var keyOutput = sqlshape.Key(sqlshape.SlotOutput)

var keyOrder = sqlshape.Key(sqlshape.SlotOrder)

var keyLimit = sqlshape.Key(sqlshape.SlotLimit)

var keyGroup = sqlshape.Key(sqlshape.SlotGroup)
