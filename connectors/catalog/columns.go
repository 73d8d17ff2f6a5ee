package catalog

import (
	"math"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// ColumnHit is one column SearchColumns found.
type ColumnHit struct {
	Table, Column string
	Score         float64
	// Matched lists the words of the phrase (lower-case, as typed) that
	// matched the column directly or through a synonym, in phrase order.
	Matched []string
	// ValuesOnly: the phrase matched only the column's sample values, not
	// its name, its table's or a comment ("offered" in a message text).
	ValuesOnly bool
	// ByName: some word of the phrase matched the column's or its table's
	// name, not only what comments and values say of it.
	ByName bool
}

// bm25K1 is BM25's term-frequency saturation.
const bm25K1 = 1.2

// The fields of a column document.
const (
	fieldColumnName = iota
	fieldTableName
	fieldColumnComment
	fieldTableComment
	fieldValues
	numFields
)

type fieldSpec struct {
	weight, b float64
}

// fieldSpecs says how much a word counts depending on where it appears: a
// column is mostly what its name says, less what its table is called, and
// only a little what its sample values contain. Names are short and of
// similar length, so they get little length normalisation (b).
func fieldSpecs() [numFields]fieldSpec {
	return [numFields]fieldSpec{
		fieldColumnName:    {weight: 3.0, b: 0.3},
		fieldTableName:     {weight: 1.0, b: 0.3},
		fieldColumnComment: {weight: 1.5, b: 0.75},
		fieldTableComment:  {weight: 0.5, b: 0.75},
		fieldValues:        {weight: 0.3, b: 0.75},
	}
}

// maxValueTerms caps how many terms a column's sample values contribute, so
// that a column with long free-text samples cannot dominate by volume.
const maxValueTerms = 64

// posting is one column containing a term, with the term's precomputed BM25F
// contribution: the whole score of a query is then a sum of impacts.
type posting struct {
	doc    uint32
	impact float32
	// valuesOnly: the term is in the column's sample values and nowhere
	// else, so a synonym of a phrase word does not reach it ("sells" is
	// no sign of a department column holding 'Sales').
	valuesOnly bool
	// byName: the term is in the column's or its table's name.
	byName bool
}

// columnIndex is an inverted index over columns in CSR form: the postings of
// term t are posts[start[t]:start[t+1]], ordered by doc.
type columnIndex struct {
	docs  []columnRef
	terms map[string]uint32
	start []uint32
	posts []posting
}

type columnRef struct{ table, column string }

func buildColumnIndex(a analyzer, s *warehouse.Schema, profiles map[string]*warehouse.Profile) columnIndex {
	specs := fieldSpecs()
	var idx columnIndex
	var fields [][numFields][]string
	var total [numFields]float64
	for _, t := range s.Tables {
		tableTerms := a.terms(t.Name, false)
		tableComment := a.terms(t.Comment, true)
		for _, col := range t.Columns {
			var f [numFields][]string
			f[fieldColumnName] = append(a.terms(col.Name, false), compounds(col.Name)...)
			f[fieldTableName] = tableTerms
			f[fieldColumnComment] = a.terms(col.Comment, true)
			f[fieldTableComment] = tableComment
			if p := profiles[columnKey(t.Name, col.Name)]; p != nil {
				f[fieldValues] = valueTerms(a, p)
			}
			for i := range f {
				total[i] += float64(len(f[i]))
			}
			fields = append(fields, f)
			idx.docs = append(idx.docs, columnRef{table: t.Name, column: col.Name})
		}
	}
	n := len(fields)
	if n == 0 {
		return idx
	}
	var avg [numFields]float64
	for i := range total {
		avg[i] = math.Max(total[i]/float64(n), 1)
	}

	// Weighted, length-normalised term frequency per (term, doc), in doc order.
	type entry struct {
		term       uint32
		doc        uint32
		tf         float64
		valuesOnly bool
		byName     bool
	}
	idx.terms = make(map[string]uint32)
	var entries []entry
	tf := make(map[uint32]float64)
	named := make(map[uint32]bool)  // in a field other than the values
	inName := make(map[uint32]bool) // in the column's or table's name
	var order []uint32
	for d, f := range fields {
		clear(tf)
		clear(named)
		clear(inName)
		order = order[:0]
		for fi, terms := range f {
			norm := 1 - specs[fi].b + specs[fi].b*float64(len(terms))/avg[fi]
			for _, term := range terms {
				id, ok := idx.terms[term]
				if !ok {
					id = uint32(len(idx.terms))
					idx.terms[term] = id
				}
				if _, seen := tf[id]; !seen {
					order = append(order, id)
				}
				tf[id] += specs[fi].weight / norm
				named[id] = named[id] || fi != fieldValues
				inName[id] = inName[id] || fi == fieldColumnName || fi == fieldTableName
			}
		}
		for _, id := range order {
			entries = append(entries, entry{term: id, doc: uint32(d), tf: tf[id], valuesOnly: !named[id], byName: inName[id]})
		}
	}

	// Counting sort by term keeps each posting list in doc order.
	idx.start = make([]uint32, len(idx.terms)+1)
	for _, e := range entries {
		idx.start[e.term+1]++
	}
	for i := 1; i < len(idx.start); i++ {
		idx.start[i] += idx.start[i-1]
	}
	idx.posts = make([]posting, len(entries))
	next := append([]uint32(nil), idx.start[:len(idx.terms)]...)
	for _, e := range entries {
		df := float64(idx.start[e.term+1] - idx.start[e.term])
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		idx.posts[next[e.term]] = posting{
			doc:        e.doc,
			impact:     float32(idf * e.tf * (bm25K1 + 1) / (bm25K1 + e.tf)),
			valuesOnly: e.valuesOnly,
			byName:     e.byName,
		}
		next[e.term]++
	}
	return idx
}

// valueTerms are the words of a column's frequent and sample values.
func valueTerms(a analyzer, p *warehouse.Profile) []string {
	var out []string
	add := func(v string) bool {
		out = append(out, a.terms(v, true)...)
		return len(out) < maxValueTerms
	}
	for _, v := range p.Top {
		if !add(v.Value) {
			return out[:maxValueTerms]
		}
	}
	for _, v := range p.Samples {
		if !add(v) {
			return out[:maxValueTerms]
		}
	}
	return out
}

// queryTerm is one term looked up for a phrase: its weight (1 for a word of
// the phrase, synonymWeight for an equivalent) and which phrase words it
// stands for, as a bit set over their positions.
type queryTerm struct {
	term   string
	weight float64
	words  uint64
}

// expand turns the words of a phrase into the terms to look up, adding the
// synonyms of every word and of every run of up to maxSynonymWords words.
func (c *Catalog) expand(words []queryWord) []queryTerm {
	byTerm := make(map[string]int)
	var out []queryTerm
	add := func(term string, weight float64, mask uint64) {
		if i, ok := byTerm[term]; ok {
			out[i].weight = math.Max(out[i].weight, weight)
			out[i].words |= mask
			return
		}
		byTerm[term] = len(out)
		out = append(out, queryTerm{term: term, weight: weight, words: mask})
	}
	for i, w := range words {
		add(w.term, 1, 1<<i)
	}
	terms := make([]string, len(words))
	for i, w := range words {
		terms[i] = w.term
	}
	// "first name" is also written fname, "last name" lname: a word's
	// initial before the next word, as names abbreviate.
	for i := 0; i+1 < len(words); i++ {
		if a, b := words[i].surface, words[i+1].surface; len(a) > 1 && len(b) > 2 && !isDigits(a) && !isDigits(b) {
			add(stem(strings.ToLower(a[:1]+b)), 1, 3<<i)
		}
	}
	for n := 1; n <= maxSynonymWords; n++ {
		for i := 0; i+n <= len(words); i++ {
			mask := uint64(1)<<(i+n) - 1<<i
			for _, t := range c.syn[strings.Join(terms[i:i+n], " ")] {
				add(t, synonymWeight, mask)
			}
		}
	}
	// Summing in a fixed order keeps scores bit-for-bit reproducible.
	sort.Slice(out, func(i, j int) bool { return out[i].term < out[j].term })
	return out
}

// SearchColumns ranks columns by BM25F over their names, their table's
// name, both comments, their sample values and synonyms of all of these. It
// returns at most limit hits with a positive score, best first; ties go to
// the column that comes first in the schema.
func (c *Catalog) SearchColumns(phrase string, limit int) []ColumnHit {
	idx := &c.columns
	if limit <= 0 || len(idx.docs) == 0 {
		return nil
	}
	words := c.an.queryWords(phrase)
	if len(words) == 0 {
		return nil
	}
	scores := make([]float64, len(idx.docs))
	masks := make([]uint64, len(idx.docs))
	// seen holds, per column, whether some term reached it outside its
	// sample values (1) and through a name (2).
	seen := make([]uint8, len(idx.docs))
	var touched []uint32
	for _, q := range c.expand(words) {
		id, ok := idx.terms[q.term]
		if !ok {
			continue
		}
		for _, p := range idx.posts[idx.start[id]:idx.start[id+1]] {
			if p.valuesOnly && q.weight < 1 {
				continue // only the phrase's own words are looked for among values
			}
			if masks[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += q.weight * float64(p.impact)
			masks[p.doc] |= q.words
			if !p.valuesOnly {
				seen[p.doc] |= 1
			}
			if p.byName {
				seen[p.doc] |= 2
			}
		}
	}
	better := func(a, b uint32) bool {
		if scores[a] != scores[b] {
			return scores[a] > scores[b]
		}
		return a < b
	}
	best := topK(touched, limit, better)
	hits := make([]ColumnHit, 0, len(best))
	for _, d := range best {
		if scores[d] <= 0 {
			continue
		}
		h := ColumnHit{Table: idx.docs[d].table, Column: idx.docs[d].column, Score: scores[d], ValuesOnly: seen[d]&1 == 0, ByName: seen[d]&2 != 0}
		for i, w := range words {
			if masks[d]&(1<<i) != 0 {
				h.Matched = append(h.Matched, w.surface)
			}
		}
		hits = append(hits, h)
	}
	return hits
}

// topK returns the k best items, best first. Most items lose to the
// current k-th and cost one comparison, so this is close to O(n) for the
// small k of a prompt's worth of hits.
func topK[T any](items []T, k int, better func(a, b T) bool) []T {
	if k <= 0 {
		return nil
	}
	best := make([]T, 0, min(k, len(items)))
	for _, it := range items {
		if len(best) == k && !better(it, best[k-1]) {
			continue
		}
		best = insertBest(best, it, k, better)
	}
	return best
}

// compounds are the closed compounds of a name's adjacent words: pay_load
// is also "payload", life_span "lifespan", as people write them.
func compounds(name string) []string {
	words := splitWords(name)
	var out []string
	for i := 0; i+1 < len(words); i++ {
		if len(words[i]+words[i+1]) > 3 && len(words[i+1]) > 1 && !isDigits(words[i]) && !isDigits(words[i+1]) {
			// LName: an initial and a word, "lname" as the phrase gives it.
			out = append(out, stem(words[i]+words[i+1]))
		}
	}
	return out
}
