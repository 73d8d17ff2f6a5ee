package catalog

import (
	"slices"
	"strings"
)

// synonymWeight scales a term reached through a synonym, so that the word
// the user actually typed still outranks its equivalents.
const synonymWeight = 0.5

// maxSynonymWords is the longest phrase key looked up in a question.
const maxSynonymWords = 3

// builtinSynonyms is a short, general analytics vocabulary plus the
// abbreviations schemas commonly use. It returns a fresh map so that no
// package state can be mutated. Price and cost are deliberately not
// equated: a unit price is not what an item cost the company.
func builtinSynonyms() map[string][]string {
	return map[string][]string{
		"revenue":     {"sales", "income", "amount", "turnover"},
		"sales":       {"amount"},
		"amount":      {"amt", "total"},
		"date":        {"day", "time", "at", "on", "when", "timestamp"},
		"when":        {"time", "at", "on"},
		"time":        {"at", "timestamp"},
		"customer":    {"client", "buyer", "shopper", "cust"},
		"product":     {"item", "sku", "prod"},
		"quantity":    {"qty", "units"},
		"number":      {"num", "no", "nbr"},
		"state":       {"province"},
		"rep":         {"representative", "salesperson", "agent"},
		"employee":    {"staff", "emp", "worker"},
		"department":  {"dept"},
		"description": {"desc", "descr"},
		"address":     {"addr"},
		"phone":       {"telephone", "tel", "mobile"},
		"email":       {"mail"},
		"discount":    {"rebate", "markdown"},
		"profit":      {"margin", "earnings"},
		"cost":        {"expense", "spend"},
		"category":    {"type", "class"},
		"ship":        {"deliver", "dispatch"},
		"order":       {"purchase"},
		"country":     {"nation"},
		"city":        {"town"},
		"zip":         {"postcode", "postal"},
		"company":     {"organization", "org", "firm"},
		"supplier":    {"vendor"},
		"start":       {"begin"},
		"population":  {"people", "inhabitants", "residents", "citizens"},
		"value":       {"amount", "revenue"},
		"area":        {"size"},
		"sold":        {"sales", "order", "quantity"},
		"sell":        {"sales", "quantity"},
		"elevation":   {"height", "altitude"},
		"end":         {"finish"},
	}
}

// synonyms maps an analysed phrase (stemmed terms joined by one space) to
// the stemmed terms it may also be written as.
type synonyms map[string][]string

// buildSynonyms analyses the built-in table and the caller's additions with
// the same analyzer as the index, and makes every pair work both ways: a
// question saying "sales" should find a "revenue" comment and vice versa.
func buildSynonyms(a analyzer, extra map[string][]string) synonyms {
	s := make(synonyms)
	add := func(from, to string) {
		key := strings.Join(a.terms(from, true), " ")
		// The expansion side keeps stop words: "at" and "on" are how
		// schemas spell a time ("shipped_at", "created_on").
		toTerms := a.terms(to, false)
		if key == "" || len(toTerms) == 0 {
			return
		}
		for _, t := range toTerms {
			if !slices.Contains(s[key], t) && !slices.Contains(strings.Fields(key), t) {
				s[key] = append(s[key], t)
			}
		}
	}
	for _, m := range []map[string][]string{builtinSynonyms(), extra} {
		for from, tos := range m {
			for _, to := range tos {
				add(from, to)
				add(to, from)
			}
		}
	}
	return s
}
