package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline/links"
	"github.com/clarify-bot/clarify/dialog/offline/read"
	"github.com/clarify-bot/clarify/dialog/offline/schema"
	"github.com/clarify-bot/clarify/dialog/offline/sqlexpr"
	"github.com/clarify-bot/clarify/dialog/offline/words"
	"github.com/clarify-bot/clarify/ontology"
)

// Words that judge a thing's quality ("good clinics", "poor books") say
// nothing the schema names; on a column that rates the subject they mean
// a cut of that rating: above (for words of badness, below) the middle of
// the scale the ratings are given on, or their average. Which of the two
// is the person's to say, so both are options of the same question.

var goodWords = words.Set("good")

var badWords = words.Set("bad")

// ratingWords name columns that rate their rows.
var ratingWords = words.Set("rating")

// judgedMeanings are the cuts of the subject's rating columns a word
// judging quality may mean.
func (e *Builder) judgedMeanings(tm *termMention) []definition {
	good, bad := false, false
	for _, w := range strings.Fields(strings.ToLower(tm.phrase)) {
		good = good || goodWords[w]
		bad = bad || badWords[w]
	}
	if good == bad {
		return nil
	}
	t := tm.subject
	op, side := ">", "above"
	if bad {
		op, side = "<", "below"
	}
	rating := map[string]bool{}
	for w := range ratingWords {
		for _, s := range e.m.Cat.NameTerms(w) {
			rating[s] = true
		}
	}
	var out []definition
	for _, c := range t.Measures {
		rates := false
		for _, w := range e.m.Cat.NameTerms(c.Name) {
			rates = rates || rating[w]
		}
		if !rates {
			continue
		}
		words := upper(e.columnWords(t, c))
		column := strings.ToLower(t.Name + "." + c.Name)
		if mid, top, ok := e.scaleMiddle(t.Name, c.Name); ok {
			v := strconv.FormatFloat(mid, 'f', -1, 64)
			out = append(out, definition{
				cond:   sqlexpr.Cmp(sqlexpr.Col(t.Name, c.Name), op, sqlexpr.Num(v)),
				def:    dialog.Definition{Phrase: tm.phrase, Term: ontology.Term{Kind: ontology.TermPredicate, Subject: t.Name, Column: column, Op: op, Values: []string{v}}, Label: fmt.Sprintf("%s %s %s, the middle of its 0–%s scale", words, side, v, strconv.FormatFloat(top, 'f', -1, 64))},
				weight: 1,
			})
		}
		avg := side + " average"
		out = append(out, definition{
			cond:   sqlexpr.Cmp(sqlexpr.Col(t.Name, c.Name), op, sqlexpr.ScalarSub{X: sqlexpr.AggOver("AVG", sqlexpr.Col(t.Name, c.Name)), Table: t.Name}),
			def:    dialog.Definition{Phrase: tm.phrase, Term: ontology.Term{Kind: ontology.TermPredicate, Subject: t.Name, Column: column, Op: avg}, Label: fmt.Sprintf("%s %s its average", words, side)},
			weight: 0.8,
		})
	}
	return out
}

// scaleMiddle is the middle of the scale a rating column's values are
// given on: the smallest of 0–1, 0–5, 0–10 and 0–100 that holds every
// value. Ratings below zero have no such scale.
func (e *Builder) scaleMiddle(table, column string) (mid, top float64, ok bool) {
	p := e.m.Profile(table, column)
	if p == nil {
		return 0, 0, false
	}
	lo, err1 := strconv.ParseFloat(p.Min, 64)
	hi, err2 := strconv.ParseFloat(p.Max, 64)
	if err1 != nil || err2 != nil || lo < 0 || math.IsNaN(hi) {
		return 0, 0, false
	}
	for _, top := range []float64{1, 5, 10, 100} {
		if hi <= top {
			return top / 2, top, true
		}
	}
	return 0, 0, false
}

// gradingWord judges a thing or its size.
func gradingWord(w string) bool {
	_, size := read.HowAdjectives[w]
	return goodWords[w] || badWords[w] || smallWords[w] || size
}

// judgedValues finds the words judging a thing or its size right before
// values of it ("good arabic restaurants", "serves good arabic food",
// "cheap red vans"), other than those terms already has.
func (e *Builder) judgedValues(a *links.Analysis, terms []*termMention) []*termMention {
	var out []*termMention
	for _, vm := range a.Values {
		if vm.Weak || len(vm.Alts) == 0 || a.Toks[vm.At].Clause != 0 {
			continue
		}
		t := e.m.ByName[strings.ToLower(vm.Alts[0].Table)]
		if t == nil {
			continue
		}
		lead := valuesBefore(a, vm.At+1, t)
		s := lead
		for s > 0 && termWord(a.Toks[s-1]) && gradingWord(a.Word(s-1)) {
			s--
		}
		if s == lead || links.Negations[a.Word(s-1)] || termAt(terms, s) || termAt(out, s) {
			continue
		}
		out = append(out, &termMention{phrase: a.Phrase(s, lead), at: s, end: lead, subject: t})
	}
	return out
}

// termAt says whether one of terms covers token k.
func termAt(terms []*termMention, k int) bool {
	return slices.ContainsFunc(terms, func(tm *termMention) bool { return tm.at <= k && k < tm.end })
}

// valuesBefore is where the run of values of t that covers token k-1
// starts ("arabic" in "good arabic restaurants"); k when there is none.
func valuesBefore(a *links.Analysis, k int, t *schema.Table) int {
	for {
		moved := false
		for _, vm := range a.Values {
			if vm.Weak || vm.At >= k || a.SpanOf(vm.At, vm.Phrase) < k {
				continue
			}
			for _, al := range vm.Alts {
				if strings.EqualFold(al.Table, t.Name) {
					k, moved = vm.At, true
					break
				}
			}
			if moved {
				break
			}
		}
		if !moved {
			return k
		}
	}
}
