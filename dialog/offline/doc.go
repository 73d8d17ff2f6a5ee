// Package offline is Clarify's engine without a language model: an
// interpreter in the tradition of ATHENA and NaLIR that maps the words of a
// question to tables, columns and stored values through the schema
// catalog, recognises the common analytic shapes (projections, filters on
// values, comparisons and dates, counts and aggregates, grouping,
// superlatives and top-k), and — wherever a word can be read more than one
// way — enumerates the readings as candidate queries with priors, for the
// dialog manager to run, compare and ask about.
//
// The engine is a pipeline; each stage is a package that imports only the
// ones before it (internal/layers checks) and hands the next a typed value:
//
//	words    the closed-class English the engine reads (superlatives,
//	         measures, negations, grammar words, numbers, periods…), as
//	         embedded data files
//	token    the question's text → tokens (words, numbers written in
//	         digits or words, quoted strings)
//	schema   the catalog as the engine sees it: tables, labels, keys,
//	         measures, the words that name them
//	sqlexpr  the typed parts plans are made of (columns, aggregates,
//	         calls, comparisons, subqueries) and whole queries (FROM,
//	         ORDER BY, LIMIT, windows, derived tables), and their
//	         rendering to SQL: a reading becomes text only there, and
//	         nothing reads it back
//	links    the question's words linked to the schema (stored values,
//	         tables, columns, times), held in links.Analysis with the
//	         elements the next stage finds
//	read     tokens, the person's feedback and facts → links.Analysis:
//	         the links, and the elements asked for (counts, aggregates,
//	         superlatives, comparisons, groups, orderings, patterns)
//	plan     links.Analysis → plans: typed queries made of sqlexpr
//	         parts, one per reading, with weights (elements and their
//	         alternatives, composition, terms the schema does not name)
//	offline  joins each plan's tables, keeps measures at their grain,
//	         accounts for every word, scores each reading and renders it
package offline
