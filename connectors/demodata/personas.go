package demodata

import (
	_ "embed"
	"slices"
)

// personasJSONL holds the persona questions of the demo: two people, ana
// and ben, ask the same questions in turn and mean opposite things by
// 'revenue' (net / gross), 'in 2024' (the ship date / the order date),
// 'active' customers (ordered in the last 90 days / ever ordered), 'best'
// customer (most net revenue / most orders) and which columns list a
// customer (the name / id, name and email). Evaluated with
// --carry-ontology it measures whether what each person taught helps
// them and only them.
//
//go:embed personas.jsonl
var personasJSONL []byte

// PersonaQuestions returns the persona questions (personas.jsonl, the
// format of questions.jsonl).
func PersonaQuestions() []byte { return slices.Clone(personasJSONL) }
