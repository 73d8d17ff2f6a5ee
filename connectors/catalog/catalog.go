// Package catalog holds the schema-linking tools a SQL generator calls while
// it reads a question: which columns a phrase refers to (SearchColumns), which
// stored values it names (SearchValues) and how the tables it needs join
// (JoinPath). Everything is indexed once in New from a warehouse.Snapshot; a
// Catalog is read-only afterwards and safe for concurrent use.
package catalog

import (
	"strings"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Options tunes a Catalog.
type Options struct {
	// Synonyms adds phrase → words equivalences on top of the built-in ones
	// of synonyms.tsv, e.g. "revenue": {"sales", "amount", "income"}. Keys
	// and values lower-case. Each pair works both ways; keys may be several words.
	Synonyms map[string][]string
}

// Catalog indexes one snapshot. Build it with New.
type Catalog struct {
	snap    *warehouse.Snapshot
	an      analyzer
	syn     synonyms
	columns columnIndex
	values  *ValueIndex
	joins   joinGraph
}

// New indexes snap. The snapshot is referenced, not copied: the caller must
// not modify it afterwards. A nil snapshot gives an empty catalog.
func New(snap *warehouse.Snapshot, opts Options) *Catalog {
	if snap == nil {
		snap = &warehouse.Snapshot{}
	}
	c := &Catalog{snap: snap, an: newAnalyzer()}
	c.syn = buildSynonyms(c.an, opts.Synonyms)
	profiles := profilesByColumn(snap)
	c.columns = buildColumnIndex(c.an, &snap.Schema, profiles)
	c.values = buildValues(snap, profiles)
	c.joins = buildJoinGraph(&snap.Schema)
	return c
}

// Snapshot returns the snapshot the catalog was built from.
func (c *Catalog) Snapshot() *warehouse.Snapshot { return c.snap }

// Values returns the catalog's value index.
func (c *Catalog) Values() *ValueIndex { return c.values }

// columnKey is the case-insensitive identity of table.column.
func columnKey(table, column string) string {
	return strings.ToLower(table) + "\x00" + strings.ToLower(column)
}

// profilesByColumn indexes the profiles once; Snapshot.Profile is a linear
// scan, which would make New quadratic on a thousand-table schema.
func profilesByColumn(snap *warehouse.Snapshot) map[string]*warehouse.Profile {
	m := make(map[string]*warehouse.Profile, len(snap.Profiles))
	for i := range snap.Profiles {
		p := &snap.Profiles[i]
		k := columnKey(p.Table, p.Column)
		if _, dup := m[k]; !dup {
			m[k] = p
		}
	}
	return m
}

// buildValues feeds the text values of every profile into a ValueIndex.
// Columns the schema knows to be numbers, times or booleans are left out:
// their samples ("12.50", "2024-03-01") are not names a user would type
// and would only add typo noise.
func buildValues(snap *warehouse.Snapshot, profiles map[string]*warehouse.Profile) *ValueIndex {
	kinds := make(map[string]warehouse.ColumnKind)
	names := make(map[string][2]string) // canonical table and column names
	for _, t := range snap.Schema.Tables {
		for _, col := range t.Columns {
			k := columnKey(t.Name, col.Name)
			kinds[k] = col.Kind()
			names[k] = [2]string{t.Name, col.Name}
		}
	}
	b := NewValueIndexBuilder()
	for i := range snap.Profiles {
		p := &snap.Profiles[i]
		k := columnKey(p.Table, p.Column)
		if profiles[k] != p {
			continue // a duplicate profile of the same column
		}
		if kind, ok := kinds[k]; ok && kind != warehouse.KindText && kind != warehouse.KindOther {
			continue
		}
		table, column := p.Table, p.Column
		if n, ok := names[k]; ok {
			table, column = n[0], n[1]
		}
		for _, v := range p.Values {
			b.Add(table, column, v)
		}
		for _, v := range p.Top {
			b.Add(table, column, v.Value)
		}
		for _, v := range p.Samples {
			b.Add(table, column, v)
		}
	}
	for _, a := range snap.Aliases {
		b.AddAlias(a.Code, a.Name)
	}
	return b.Build()
}

// SearchValues finds stored text values matching phrase; see
// ValueIndex.Search for the kinds of match and their order.
func (c *Catalog) SearchValues(phrase string, limit int) []ValueHit {
	return c.values.Search(phrase, limit)
}

// Terms analyses prose the way the column index does: lower-case words,
// stop words and bare numbers dropped, light stemming ("orders" → "order").
func (c *Catalog) Terms(s string) []string { return c.an.terms(s, true) }

// NameTerms analyses an identifier keeping every word ("shipped_at" → ship, at).
func (c *Catalog) NameTerms(s string) []string { return c.an.terms(s, false) }

// Synonyms returns the stemmed terms a stemmed term may also be written as.
func (c *Catalog) Synonyms(term string) []string { return c.syn[term] }
