package lexicon

import "slices"

// Related returns the lemmas related to word's lemmas (see the package
// documentation for the relations), sorted, without duplicates and without
// word's own lemmas; phrases have spaces ("power plant"). It returns nil for
// an unknown word or one with no related lemmas.
func (l *Lexicon) Related(word string) []string {
	var buf [16]reading
	var idBuf [16]uint32
	own := lemmaIDs(l.lookup(word, buf[:0]), idBuf[:0])
	var ids []uint32
	for _, id := range own {
		ids = append(ids, l.related(id)...)
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(own, id) {
			out = append(out, l.lemmas[id])
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// RelatedTo reports whether a and b share a lemma or a lemma of one is
// related to a lemma of the other. Unknown words are related to nothing.
func (l *Lexicon) RelatedTo(a, b string) bool {
	var bufA, bufB [16]reading
	var idsA, idsB [16]uint32
	la := lemmaIDs(l.lookup(a, bufA[:0]), idsA[:0])
	lb := lemmaIDs(l.lookup(b, bufB[:0]), idsB[:0])
	for _, x := range la {
		for _, y := range lb {
			if x == y || l.isRelated(x, y) || l.isRelated(y, x) {
				return true
			}
		}
	}
	return false
}

// Broader reports whether a is a kind of b: a lemma of b names a broader
// sense (a hypernym, up to four levels) of one of a's first two noun
// senses — "truck" of "vehicle", "chauffeur" of "driver". Unknown words
// are a kind of nothing.
func (l *Lexicon) Broader(a, b string) bool {
	var bufA, bufB [16]reading
	var idsA, idsB [16]uint32
	la := lemmaIDs(l.lookup(a, bufA[:0]), idsA[:0])
	lb := lemmaIDs(l.lookup(b, bufB[:0]), idsB[:0])
	for _, x := range la {
		for _, y := range lb {
			if _, found := slices.BinarySearch(l.broad[l.broadStart[x]:l.broadStart[x+1]], y); found {
				return true
			}
		}
	}
	return false
}

// related is the precomputed, ascending list of lemmas related to lemma id.
func (l *Lexicon) related(id uint32) []uint32 {
	return l.rel[l.relStart[id]:l.relStart[id+1]]
}

func (l *Lexicon) isRelated(from, to uint32) bool {
	_, found := slices.BinarySearch(l.related(from), to)
	return found
}
