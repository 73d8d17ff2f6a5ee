// Package sqlexpr holds the typed parts of a reading — column references,
// aggregates, calls, comparisons, literals, subqueries, window calls and
// the joins of a FROM list — the whole query they make (Select, with its
// ORDER BY and LIMIT), and their rendering to MySQL SQL.
//
// It is the last stage of the offline pipeline: the engine builds a
// reading from these parts, asks them what the reading does (the columns
// it reads, whether it aggregates, whether two parts are the same) and
// renders them once. Nothing after it reads SQL text.
//
// Rendering needs only how the schema's names are quoted, which a Namer
// gives.
package sqlexpr
