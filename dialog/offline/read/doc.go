// Package read is the offline engine's reading stage: Analyse tokenises a
// question with the person's feedback, has package links link its words
// to the schema, and finds the elements it asks for — counts and
// aggregates, superlatives and rankings (intents.go), comparisons,
// orderings, text patterns, shares and changes, computed measures and
// differences, events — in the links.Analysis it returns, the hand-off
// to the plan stage. Each recogniser marks the tokens it used, so that
// later stages can tell which words a reading explains.
//
// The stage imports only the ones before it (words, token, schema,
// sqlexpr, links); it knows nothing of plans or SQL.
package read
