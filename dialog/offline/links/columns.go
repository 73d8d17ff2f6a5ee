package links

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/token"
	"github.com/clarify-bot/clarify/dialog/offline/words"
)

// idNames ask for a row's key: "the ids of chapters".
var idNames = words.Set("idname")

// ColAlt is one column a phrase may mean.
type ColAlt struct {
	Table, Column string
	Weight        float64
	// X is set for a computed measure (an age, a duration): an expression
	// over table's columns; column then names it for aliases.
	X sqlexpr.Expr
}

// ColMention is a phrase that names a column, with the columns it may
// name, best first.
type ColMention struct {
	Phrase  string
	At, End int
	Alts    []ColAlt
	Clause  int
	// Verb: a verb the lexicon relates to the column's name ("produced"
	// → make); unread, it may still name the relation a join takes.
	Verb bool
	// Described: a verb found only in what columns' comments and sample
	// texts say ("offered" in messages), not in a name; unread, it is a
	// word like any other.
	Described bool
}

// ProtectColumnNames keeps phrases that are column names from being read as
// intents: "highest point" and "lowest elevation" name columns of a
// geography schema, they do not ask for a ranking.
func (e *Reader) ProtectColumnNames(a *Analysis) {
	for i := 0; i+1 < len(a.Toks); i++ {
		// "names" may already be read as a sort key's word.
		if _, ok := Superlatives[a.Toks[i].Low]; !ok || a.Toks[i].Used || a.Toks[i+1].Used && SingularOf(a.Toks[i+1].Low) != "name" {
			continue
		}
		phrase := a.Toks[i].Low + " " + a.Toks[i+1].Low
		want := strings.Join(e.M.Cat.NameTerms(phrase), " ")
		closed := a.Toks[i].Low + SingularOf(a.Toks[i+1].Low)      // "lastname"
		initial := a.Toks[i].Low[:1] + SingularOf(a.Toks[i+1].Low) // "fname"
		spells := func(column string) bool {
			n := strings.ToLower(strings.ReplaceAll(column, "_", ""))
			return strings.Join(e.M.Cat.NameTerms(column), " ") == want || n == closed || n == initial
		}
		for _, h := range append(e.M.Cat.SearchColumns(phrase, 5), e.M.Cat.SearchColumns(closed, 5)...) {
			if spells(h.Column) {
				e.addColumnMention(a, i, i+2)
				// The columns the phrase spells are those it names:
				// "first name" is Fname, not LName's "name".
				if cm := a.Columns[len(a.Columns)-1]; cm.At == i {
					cm.Alts = slices.DeleteFunc(cm.Alts, func(al ColAlt) bool { return !spells(al.Column) })
					if len(cm.Alts) == 0 {
						cm.Alts = []ColAlt{{Table: h.Table, Column: h.Column, Weight: 1}}
					}
				}
				// Remember the superlative it carries: "the longest route
				// overall" ranks; "the longest route in Ashby" does not.
				// "first name", "last name" rank nothing.
				if cm := a.Columns[len(a.Columns)-1]; cm.At == i && SingularOf(a.Toks[i+1].Low) != "name" {
					s := Superlatives[a.Toks[i].Low]
					a.SupCol = &SuperMention{Phrase: a.Toks[i].Raw, Desc: s.Desc, Limit: 1, Hint: s.Hint, At: i, NounAt: i}
				}
				break
			}
		}
	}
}

// FindColumns links the remaining content words to columns, a run of
// adjacent words at a time.
func (e *Reader) FindColumns(a *Analysis) {
	e.findSpelledColumns(a)
	i := 0
	for i < len(a.Toks) {
		if a.Toks[i].Used || a.Toks[i].IsNum || StopWords[a.Toks[i].Low] {
			i++
			continue
		}
		j := i
		for j < len(a.Toks) && j-i < 3 && !a.Toks[j].Used && !a.Toks[j].IsNum && !StopWords[a.Toks[j].Low] && a.Toks[j].Clause == a.Toks[i].Clause {
			j++
			if a.Toks[j-1].Break != 0 {
				break
			}
		}
		e.addColumnMention(a, i, j)
		i = j
	}
	SortMentions(a)
}

// findSpelledColumns links phrases that spell a column's name word for
// word, small words included ("units in stock" → units_in_stock, "date of
// birth" → date_of_birth), before runs of words are split at those small
// words.
func (e *Reader) findSpelledColumns(a *Analysis) {
	for i := range a.Toks {
		for n := 5; n >= 3; n-- {
			if i+n > len(a.Toks) || !token.Unbroken(a.Toks, i, i+n) {
				continue
			}
			free := true
			words := make([]string, n)
			for k := i; k < i+n; k++ {
				free = free && !a.Toks[k].Used && !a.Toks[k].IsNum && !a.Toks[k].Quoted && a.Toks[k].Clause == 0
				words[k-i] = a.Toks[k].Low
			}
			if !free || StopWords[words[0]] || StopWords[words[n-1]] {
				continue
			}
			var alts []ColAlt
			for _, c := range e.M.ByColumn[strings.Join(words, "_")] {
				alts = append(alts, ColAlt{Table: c.Table, Column: c.Column, Weight: 1})
			}
			if len(alts) == 0 {
				continue
			}
			a.Columns = append(a.Columns, &ColMention{Phrase: a.Phrase(i, i+n), At: i, End: i + n, Alts: alts})
			a.MarkUsed(i, i+n)
			break
		}
	}
}

// idNouns name a thing's key itself: "member id" is its own key column
// (nouns.tsv).
var idNouns = words.Set("idnoun")

func (e *Reader) addColumnMention(a *Analysis, from, to int) {
	phrase := a.Phrase(from, to)
	hits := e.M.Cat.SearchColumns(phrase, 8)
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
	cm := &ColMention{Phrase: phrase, At: from, End: to, Clause: a.Toks[from].Clause}
	// "van models offered by …" matching a notes column's texts only, or
	// "models leased by …" what a comment says of a column: a
	// verb that may instead say how things relate (relationVerbs).
	if w := a.Word(from); to == from+1 && e.words != nil && (e.words.MostlyVerb(w) || Participle(w)) &&
		!slices.ContainsFunc(hits, func(h catalog.ColumnHit) bool { return h.ByName }) {
		cm.Described = true
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
		if c := e.M.Column(h.Table, h.Column); c != nil && !wantsID {
			if t := e.M.ByName[strings.ToLower(h.Table)]; t != nil && t.Key == c && c.Kind() == warehouse.KindNumber {
				continue // a bare id is never what a word like "revenue" means
			}
		}
		cm.Alts = append(cm.Alts, ColAlt{Table: h.Table, Column: h.Column, Weight: h.Score / top})
	}
	if idNouns[SingularOf(strings.ToLower(phrase))] {
		cm.Alts = e.ownKeys(cm.Alts)
	}
	a.Columns = append(a.Columns, cm)
	for k := from; k < to; k++ {
		a.Toks[k].Used = true
	}
}

// ownKeys reads a bare "id" as each table's own key first: the id of a
// tour is tour_id before the region_id it stores; the other ids found
// stay (a paragraph's document_id is a document's id).
func (e *Reader) ownKeys(alts []ColAlt) []ColAlt {
	var out []ColAlt
	seen := map[string]bool{}
	for _, al := range alts {
		if t := e.M.ByName[strings.ToLower(al.Table)]; t != nil && t.Key != nil && !seen[strings.ToLower(t.Name)] {
			seen[strings.ToLower(t.Name)] = true
			out = append(out, ColAlt{Table: t.Name, Column: t.Key.Name, Weight: al.Weight})
		}
		if !slices.ContainsFunc(out, func(o ColAlt) bool {
			return strings.EqualFold(o.Table, al.Table) && strings.EqualFold(o.Column, al.Column)
		}) {
			out = append(out, al)
		}
	}
	return out
}

// idLeads may stand between a table's noun and "id 7" (grammar.tsv).
var idLeads = words.Set("idlead")

// FindKeyEquals reads "shop with ID 1", "the user ID 42": the row of
// the named table whose key is the number.
func (e *Reader) FindKeyEquals(a *Analysis) {
	for i := 2; i < len(a.Toks); i++ {
		if !a.Toks[i].IsNum || a.Toks[i].Used || a.Toks[i].Num != math.Trunc(a.Toks[i].Num) || a.Word(i-1) != "id" || a.Toks[i-1].Used {
			continue
		}
		j := i - 2
		if idLeads[a.Word(j)] {
			j--
		}
		if j >= 0 && a.Word(j) == "the" && a.Word(j+1) != "the" {
			j--
		}
		if j < 0 || a.Toks[j].Used || a.Toks[j].IsNum || a.Toks[j].Break != 0 {
			continue
		}
		ts := e.M.ByTerm[strings.Join(e.M.Cat.Terms(a.Toks[j].Raw), " ")]
		if len(ts) == 0 || ts[0].Key == nil || ts[0].Key.Kind() != warehouse.KindNumber {
			continue
		}
		a.Comps = append(a.Comps, &CompMention{Phrase: a.Phrase(j, i+1), Op: "=", Value: a.Toks[i].Num, At: j, Target: a.Toks[j].Low + " id", KeyOf: ts[0]})
		a.MarkUsed(j, i+1)
	}
}

// keyNouns after a thing's noun name its identifying column (nouns.tsv).
var keyNouns = words.Set("keynoun")

// FindKeyColumns links "<thing> ID(s)", "<thing> code", "<thing> number"
// to the identifying column of the thing ("member IDs" →
// members.member_id, "supplier IDs" → suppliers.sup_id, "branch code" →
// branch.branch_code) before the thing alone is read as its table,
// which would leave the identifier unlinked.
func (e *Reader) FindKeyColumns(a *Analysis) {
	for i := 1; i < len(a.Toks); i++ {
		ident := SingularOf(a.Toks[i].Low)
		if ident == "ids" {
			ident = "id"
		}
		if !keyNouns[ident] {
			continue
		}
		prev := a.Toks[i-1]
		if prev.Used || prev.IsNum || StopWords[prev.Low] || a.Toks[i].Used || prev.Break != 0 {
			continue
		}
		named := e.M.ByTerm[strings.Join(e.M.Cat.Terms(prev.Low), " ")]
		// isNamed: the word names the table itself ("loan" → loan,
		// not order_item, whose name only contains it).
		term := strings.Join(e.M.Cat.Terms(prev.Low), " ")
		isNamed := func(table string) bool {
			return strings.Join(e.M.Cat.NameTerms(table), " ") == term
		}
		isKey := func(table, column string) bool {
			t := e.M.ByName[strings.ToLower(table)]
			return t != nil && t.Key != nil && strings.EqualFold(t.Key.Name, column)
		}
		cm := &ColMention{Phrase: a.Phrase(i-1, i+1), At: i - 1, End: i + 1, Clause: prev.Clause}
		seen := map[string]bool{}
		if ident == "id" {
			for _, t := range named {
				if t.Key != nil && isNamed(t.Name) {
					cm.Alts = append(cm.Alts, ColAlt{Table: t.Name, Column: t.Key.Name, Weight: 1})
					seen[strings.ToLower(t.Name+"."+t.Key.Name)] = true
				}
			}
		}
		var hits []catalog.ColumnHit
		if len(cm.Alts) == 0 {
			hits = e.M.Cat.SearchColumns(prev.Low+" "+ident, 8)
		}
		for _, h := range hits {
			col := strings.ToLower(h.Column)
			if h.Score < hits[0].Score*0.7 || seen[strings.ToLower(h.Table+"."+h.Column)] || !strings.Contains(col, ident) ||
				!strings.Contains(col, SingularOf(prev.Low)) && !(isNamed(h.Table) && isKey(h.Table, h.Column)) {
				continue
			}
			w := h.Score / hits[0].Score
			if isNamed(h.Table) {
				w *= 1.5
			}
			cm.Alts = append(cm.Alts, ColAlt{Table: h.Table, Column: h.Column, Weight: w})
		}
		if len(cm.Alts) == 0 || ident == "number" && len(named) == 0 {
			continue
		}
		sort.SliceStable(cm.Alts, func(x, y int) bool { return cm.Alts[x].Weight > cm.Alts[y].Weight })
		a.Columns = append(a.Columns, cm)
		a.Toks[i-1].Used, a.Toks[i].Used = true, true
	}
}

// BindNamedColumns reads "the ward of Intensive Care", "the
// "Intensive Care" ward", "the city York": a column named right
// before or after a value it stores says which column the value is in; it
// is no further output. The value keeps only its matches in that column
// and its phrase takes the column's words.
func (e *Reader) BindNamedColumns(a *Analysis) {
	var kept []*ColMention
	for _, cm := range a.Columns {
		if vm := a.valueNamedBy(cm); vm != nil {
			var in []ValueAlt
			for _, al := range vm.Alts {
				for _, c := range cm.Alts {
					if !c.Computed() && strings.EqualFold(al.Table, c.Table) && strings.EqualFold(al.Column, c.Column) {
						in = append(in, al)
						break
					}
				}
			}
			if len(in) > 0 {
				end := a.SpanOf(vm.At, vm.Phrase)
				from, to := min(vm.At, cm.At), max(end, cm.End)
				vm.Alts, vm.Optional, vm.Weak, vm.Named = in, false, false, true
				vm.At, vm.Phrase = from, a.Phrase(from, to)
				a.MarkUsed(from, to)
				continue
			}
		}
		kept = append(kept, cm)
	}
	a.Columns = kept
}

// namingVerbs come between a column and the value it names (verbs.tsv).
var namingVerbs = words.Set("naming")

// valueNamedBy is the value mention right after a column mention ("the
// ward of Intensive Care") or right before it ("Intensive Care ward"),
// if any.
func (a *Analysis) valueNamedBy(cm *ColMention) *ValueMention {
	if cm.Clause != 0 || Negations[a.Word(cm.At-1)] {
		return nil // "does not border Texas" is no value of border
	}
	next := cm.End
	of := a.Word(next) == "of"
	if of || namingVerbs[a.Word(next)] {
		next++
	}
	for _, vm := range a.Values {
		if strings.Contains(vm.Phrase, "(") {
			continue
		}
		if vm.At == next && a.Toks[cm.End-1].Break == 0 && !(of && otherColumnOfTable(vm, cm)) || a.SpanOf(vm.At, vm.Phrase) == cm.At && a.Toks[cm.At-1].Break == 0 {
			return vm
		}
	}
	return nil
}

// otherColumnOfTable says whether the value is also stored in another
// column of the mentioned column's table: "the manager of Leeds" may
// be the manager of the depot named Leeds.
func otherColumnOfTable(vm *ValueMention, cm *ColMention) bool {
	for _, al := range vm.Alts {
		for _, c := range cm.Alts {
			if strings.EqualFold(al.Table, c.Table) && !strings.EqualFold(al.Column, c.Column) {
				return true
			}
		}
	}
	return false
}

// FindColumnNumbers reads a number column's name followed by a number as
// that value of the column: "on floor 2", "in row 12", "bay 4". The number
// must follow the name directly, in its clause, with no comparison word
// (those are comparisons, read before).
func (e *Reader) FindColumnNumbers(a *Analysis) {
	for _, cm := range a.Columns {
		n := cm.End
		if len(cm.Alts) == 0 || n >= len(a.Toks) || !a.Toks[n].IsNum || a.Toks[n].Used || a.Toks[n].Quoted ||
			a.Toks[n].Clause != cm.Clause || !token.Unbroken(a.Toks, cm.At, n+1) {
			continue
		}
		al := cm.Alts[0]
		if c := e.M.Column(al.Table, al.Column); al.X != nil || c == nil || c.Kind() != warehouse.KindNumber {
			continue
		}
		a.Comps = append(a.Comps, &CompMention{Phrase: a.Phrase(cm.At, n+1), Op: "=", Value: a.Toks[n].Num, At: cm.At, Target: cm.Phrase})
		a.Toks[n].Used = true
	}
}
