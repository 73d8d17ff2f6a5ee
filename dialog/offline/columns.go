package offline

// Recognising the columns the question names ("list price", "units in
// stock", "shop IDs"); each shape gives them their role where it is built.

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// idNames ask for a row's key: "the ids of chapters".
var idNames = words.Set("idname")

// colAlt is one column a phrase may mean.
type colAlt struct {
	table, column string
	weight        float64
	// x is set for a computed measure (an age, a duration): an expression
	// over table's columns; column then names it for aliases.
	x expr
}

type colMention struct {
	phrase  string
	at, end int
	alts    []colAlt
	clause  int
	// verb: a verb the lexicon relates to the column's name ("produced"
	// → make); unread, it may still name the relation a join takes.
	verb bool
	// described: a verb found only in what columns' comments and sample
	// texts say ("offered" in messages), not in a name; unread, it is a
	// word like any other.
	described bool
}

// protectColumnNames keeps phrases that are column names from being read as
// intents: "highest point" and "lowest elevation" name columns of a
// geography schema, they do not ask for a ranking.
func (e *Engine) protectColumnNames(a *analysis) {
	for i := 0; i+1 < len(a.toks); i++ {
		// "names" may already be read as a sort key's word.
		if _, ok := superlatives[a.toks[i].Low]; !ok || a.toks[i].Used || a.toks[i+1].Used && singularOf(a.toks[i+1].Low) != "name" {
			continue
		}
		phrase := a.toks[i].Low + " " + a.toks[i+1].Low
		want := strings.Join(e.m.Cat.NameTerms(phrase), " ")
		closed := a.toks[i].Low + singularOf(a.toks[i+1].Low)      // "lastname"
		initial := a.toks[i].Low[:1] + singularOf(a.toks[i+1].Low) // "fname"
		spells := func(column string) bool {
			n := strings.ToLower(strings.ReplaceAll(column, "_", ""))
			return strings.Join(e.m.Cat.NameTerms(column), " ") == want || n == closed || n == initial
		}
		for _, h := range append(e.m.Cat.SearchColumns(phrase, 5), e.m.Cat.SearchColumns(closed, 5)...) {
			if spells(h.Column) {
				e.addColumnMention(a, i, i+2)
				// The columns the phrase spells are those it names:
				// "first name" is Fname, not LName's "name".
				if cm := a.columns[len(a.columns)-1]; cm.at == i {
					cm.alts = slices.DeleteFunc(cm.alts, func(al colAlt) bool { return !spells(al.column) })
					if len(cm.alts) == 0 {
						cm.alts = []colAlt{{table: h.Table, column: h.Column, weight: 1}}
					}
				}
				// Remember the superlative it carries: "the longest route
				// overall" ranks; "the longest route in Ashby" does not.
				// "first name", "last name" rank nothing.
				if cm := a.columns[len(a.columns)-1]; cm.at == i && singularOf(a.toks[i+1].Low) != "name" {
					s := superlatives[a.toks[i].Low]
					a.supCol = &superMention{phrase: a.toks[i].Raw, desc: s.desc, limit: 1, hint: s.hint, at: i, nounAt: i}
				}
				break
			}
		}
	}
}

// findColumns links the remaining content words to columns, a run of
// adjacent words at a time.
func (e *Engine) findColumns(a *analysis) {
	e.findSpelledColumns(a)
	i := 0
	for i < len(a.toks) {
		if a.toks[i].Used || a.toks[i].IsNum || stopWords[a.toks[i].Low] {
			i++
			continue
		}
		j := i
		for j < len(a.toks) && j-i < 3 && !a.toks[j].Used && !a.toks[j].IsNum && !stopWords[a.toks[j].Low] && a.toks[j].Clause == a.toks[i].Clause {
			j++
			if a.toks[j-1].Break != 0 {
				break
			}
		}
		e.addColumnMention(a, i, j)
		i = j
	}
	sortMentions(a)
}

// findSpelledColumns links phrases that spell a column's name word for
// word, small words included ("units in stock" → units_in_stock, "date of
// birth" → date_of_birth), before runs of words are split at those small
// words.
func (e *Engine) findSpelledColumns(a *analysis) {
	for i := range a.toks {
		for n := 5; n >= 3; n-- {
			if i+n > len(a.toks) || !token.Unbroken(a.toks, i, i+n) {
				continue
			}
			free := true
			words := make([]string, n)
			for k := i; k < i+n; k++ {
				free = free && !a.toks[k].Used && !a.toks[k].IsNum && !a.toks[k].Quoted && a.toks[k].Clause == 0
				words[k-i] = a.toks[k].Low
			}
			if !free || stopWords[words[0]] || stopWords[words[n-1]] {
				continue
			}
			var alts []colAlt
			for _, c := range e.m.ByColumn[strings.Join(words, "_")] {
				alts = append(alts, colAlt{table: c.Table, column: c.Column, weight: 1})
			}
			if len(alts) == 0 {
				continue
			}
			a.columns = append(a.columns, &colMention{phrase: a.phrase(i, i+n), at: i, end: i + n, alts: alts})
			a.markUsed(i, i+n)
			break
		}
	}
}

func (e *Engine) addColumnMention(a *analysis, from, to int) {
	phrase := a.phrase(from, to)
	hits := e.m.Cat.SearchColumns(phrase, 8)
	if len(hits) == 0 && to-from > 1 {
		// No column for the run: try each word alone.
		for k := from; k < to; k++ {
			e.addColumnMention(a, k, k+1)
		}
		return
	}
	if len(hits) == 0 {
		return
	}
	cm := &colMention{phrase: phrase, at: from, end: to, clause: a.toks[from].Clause}
	// "van models offered by …" matching a notes column's texts only, or
	// "models leased by …" what a comment says of a column: a
	// verb that may instead say how things relate (relationVerbs).
	if w := a.word(from); to == from+1 && e.words != nil && (e.words.MostlyVerb(w) || participle(w)) &&
		!slices.ContainsFunc(hits, func(h catalog.ColumnHit) bool { return h.ByName }) {
		cm.described = true
	}
	top := hits[0].Score
	wantsID := strings.Contains(strings.ToLower(phrase), "number")
	for _, w := range strings.Fields(strings.ToLower(phrase)) {
		// "the ids of chapters" asks for the key as much as "the id" does.
		wantsID = wantsID || idNames[w]
	}
	for _, h := range hits {
		if h.Score < top*0.7 {
			break
		}
		if c := e.m.Column(h.Table, h.Column); c != nil && !wantsID {
			if t := e.m.ByName[strings.ToLower(h.Table)]; t != nil && t.Key == c && c.Kind() == warehouse.KindNumber {
				continue // a bare id is never what a word like "revenue" means
			}
		}
		cm.alts = append(cm.alts, colAlt{table: h.Table, column: h.Column, weight: h.Score / top})
	}
	if w := singularOf(strings.ToLower(phrase)); w == "id" || w == "identifier" {
		cm.alts = e.ownKeys(cm.alts)
	}
	a.columns = append(a.columns, cm)
	for k := from; k < to; k++ {
		a.toks[k].Used = true
	}
}

// ownKeys reads a bare "id" as each table's own key first: the id of a
// tour is tour_id before the region_id it stores; the other ids found
// stay (a paragraph's document_id is a document's id).
func (e *Engine) ownKeys(alts []colAlt) []colAlt {
	var out []colAlt
	seen := map[string]bool{}
	for _, al := range alts {
		if t := e.m.ByName[strings.ToLower(al.table)]; t != nil && t.Key != nil && !seen[strings.ToLower(t.Name)] {
			seen[strings.ToLower(t.Name)] = true
			out = append(out, colAlt{table: t.Name, column: t.Key.Name, weight: al.weight})
		}
		if !slices.ContainsFunc(out, func(o colAlt) bool {
			return strings.EqualFold(o.table, al.table) && strings.EqualFold(o.column, al.column)
		}) {
			out = append(out, al)
		}
	}
	return out
}

// findKeyEquals reads "shop with ID 1", "the user ID 42": the row of
// the named table whose key is the number.
func (e *Engine) findKeyEquals(a *analysis) {
	for i := 2; i < len(a.toks); i++ {
		if !a.toks[i].IsNum || a.toks[i].Used || a.toks[i].Num != math.Trunc(a.toks[i].Num) || a.word(i-1) != "id" || a.toks[i-1].Used {
			continue
		}
		j := i - 2
		if w := a.word(j); w == "with" || w == "whose" || w == "having" || w == "of" || w == "the" || w == "an" || w == "a" {
			j--
		}
		if j >= 0 && a.word(j) == "the" && a.word(j+1) != "the" {
			j--
		}
		if j < 0 || a.toks[j].Used || a.toks[j].IsNum || a.toks[j].Break != 0 {
			continue
		}
		ts := e.m.ByTerm[strings.Join(e.m.Cat.Terms(a.toks[j].Raw), " ")]
		if len(ts) == 0 || ts[0].Key == nil || ts[0].Key.Kind() != warehouse.KindNumber {
			continue
		}
		a.comps = append(a.comps, &compMention{phrase: a.phrase(j, i+1), op: "=", value: a.toks[i].Num, at: j, target: a.toks[j].Low + " id", keyOf: ts[0]})
		a.markUsed(j, i+1)
	}
}

// findKeyColumns links "<thing> ID(s)", "<thing> code", "<thing> number"
// to the identifying column of the thing ("member IDs" →
// members.member_id, "supplier IDs" → suppliers.sup_id, "branch code" →
// branch.branch_code) before the thing alone is read as its table,
// which would leave the identifier unlinked.
func (e *Engine) findKeyColumns(a *analysis) {
	for i := 1; i < len(a.toks); i++ {
		ident := singularOf(a.toks[i].Low)
		if ident == "ids" {
			ident = "id"
		}
		if ident != "id" && ident != "code" && ident != "number" {
			continue
		}
		prev := a.toks[i-1]
		if prev.Used || prev.IsNum || stopWords[prev.Low] || a.toks[i].Used || prev.Break != 0 {
			continue
		}
		named := e.m.ByTerm[strings.Join(e.m.Cat.Terms(prev.Low), " ")]
		// isNamed: the word names the table itself ("loan" → loan,
		// not order_item, whose name only contains it).
		term := strings.Join(e.m.Cat.Terms(prev.Low), " ")
		isNamed := func(table string) bool {
			return strings.Join(e.m.Cat.NameTerms(table), " ") == term
		}
		isKey := func(table, column string) bool {
			t := e.m.ByName[strings.ToLower(table)]
			return t != nil && t.Key != nil && strings.EqualFold(t.Key.Name, column)
		}
		cm := &colMention{phrase: a.phrase(i-1, i+1), at: i - 1, end: i + 1, clause: prev.Clause}
		seen := map[string]bool{}
		if ident == "id" {
			for _, t := range named {
				if t.Key != nil && isNamed(t.Name) {
					cm.alts = append(cm.alts, colAlt{table: t.Name, column: t.Key.Name, weight: 1})
					seen[strings.ToLower(t.Name+"."+t.Key.Name)] = true
				}
			}
		}
		var hits []catalog.ColumnHit
		if len(cm.alts) == 0 {
			hits = e.m.Cat.SearchColumns(prev.Low+" "+ident, 8)
		}
		for _, h := range hits {
			col := strings.ToLower(h.Column)
			if h.Score < hits[0].Score*0.7 || seen[strings.ToLower(h.Table+"."+h.Column)] || !strings.Contains(col, ident) ||
				!strings.Contains(col, singularOf(prev.Low)) && !(isNamed(h.Table) && isKey(h.Table, h.Column)) {
				continue
			}
			w := h.Score / hits[0].Score
			if isNamed(h.Table) {
				w *= 1.5
			}
			cm.alts = append(cm.alts, colAlt{table: h.Table, column: h.Column, weight: w})
		}
		if len(cm.alts) == 0 || ident == "number" && len(named) == 0 {
			continue
		}
		sort.SliceStable(cm.alts, func(x, y int) bool { return cm.alts[x].weight > cm.alts[y].weight })
		a.columns = append(a.columns, cm)
		a.toks[i-1].Used, a.toks[i].Used = true, true
	}
}
