package lexicon

import (
	"bytes"
	"slices"

	"github.com/clarify-bot/clarify/connectors/lexicon/internal/format"
)

// reading is a lemma (index) in one part of speech (format index).
type reading struct {
	id    uint32
	pos   uint8
	self  bool // the lemma is the normalised input itself
	ruled bool // found only by a detachment rule
}

// Limits on phrases lemmatised word by word.
const (
	maxPhraseWords = 4
	maxPhraseForms = 32
)

// lookup appends word's readings to out: for each part of speech, morphy's
// base forms that are lemmas in that part of speech. A phrase that yields
// none as a whole is lemmatised word by word.
func (l *Lexicon) lookup(word string, out []reading) []reading {
	var fb [128]byte
	form, ok := normalize(word, fb[:0], l.maxLen)
	if !ok {
		return out
	}
	start := len(out)
	for p := range uint8(format.NumPOS) {
		out = l.morphy(form, p, out, true)
	}
	if len(out) == start && bytes.IndexByte(form, ' ') >= 0 {
		for p := range uint8(format.NumPOS) {
			out = l.phraseMorphy(form, p, out)
		}
	}
	return append(out[:start], l.dropAccidents(out[start:])...) // in place
}

// normalize lower-cases word into buf, joins its words with single spaces
// (runs of spaces, tabs and underscores separate words) and reports false
// for characters other than ASCII letters, hyphens and apostrophes, for no
// letters at all, and for more than maxLen bytes.
func normalize(word string, buf []byte, maxLen int) ([]byte, bool) {
	letters, gap := 0, false
	for i := 0; i < len(word); i++ {
		c := word[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z', c == '-', c == '\'':
		case c == ' ' || c == '_' || c == '\t' || c == '\n' || c == '\r':
			gap = len(buf) > 0
			continue
		default:
			return nil, false
		}
		if gap {
			buf = append(buf, ' ')
			gap = false
		}
		if c >= 'a' && c <= 'z' {
			letters++
		}
		buf = append(buf, c)
		if len(buf) > maxLen {
			return nil, false
		}
	}
	return buf, letters > 0
}

// morphy appends the base forms of form in part of speech p: the form
// itself if it is a lemma, then either its exception-list bases or the
// results of the detachment rules that are lemmas.
func (l *Lexicon) morphy(form []byte, p uint8, out []reading, self bool) []reading {
	if id, ok := l.ids[string(form)]; ok && l.readings[id][p].Synsets > 0 {
		out = addReading(out, reading{id: id, pos: p, self: self})
	}
	if bases, ok := l.except[p][string(form)]; ok {
		for _, id := range bases {
			out = addReading(out, reading{id: id, pos: p})
		}
		return out
	}
	if p == 0 && (len(form) <= 2 || bytes.HasSuffix(form, []byte("ss"))) {
		return out // as WordNet: no rules for short nouns or nouns in -ss
	}
	var cb [128]byte
	for _, r := range l.rules[p] {
		if len(form) <= len(r.Suffix) || !bytes.HasSuffix(form, []byte(r.Suffix)) {
			continue
		}
		c := append(cb[:0], form[:len(form)-len(r.Suffix)]...)
		c = append(c, r.Ending...)
		if id, ok := l.ids[string(c)]; ok && l.readings[id][p].Synsets > 0 {
			out = addReading(out, reading{id: id, pos: p, ruled: true})
		}
	}
	return out
}

// phraseMorphy lemmatises a phrase word by word ("ran into" → "run into")
// and appends the combinations that are lemmas in part of speech p.
func (l *Lexicon) phraseMorphy(form []byte, p uint8, out []reading) []reading {
	words := bytes.Split(bytes.Clone(form), []byte(" ")) // a copy keeps form on the caller's stack
	if len(words) > maxPhraseWords {
		return out
	}
	forms := [][]byte{nil}
	for i, w := range words {
		var alts []string
		var buf [8]reading
		for _, r := range l.morphy(w, p, buf[:0], false) {
			alts = append(alts, l.lemmas[r.id])
		}
		if len(alts) == 0 || alts[0] != string(w) {
			alts = append([]string{string(w)}, alts...)
		}
		var next [][]byte
		for _, f := range forms {
			for _, a := range alts {
				if len(next) == maxPhraseForms {
					break
				}
				g := append([]byte(nil), f...)
				if i > 0 {
					g = append(g, ' ')
				}
				next = append(next, append(g, a...))
			}
		}
		forms = next
	}
	for _, f := range forms {
		if id, ok := l.ids[string(f)]; ok && l.readings[id][p].Synsets > 0 {
			out = addReading(out, reading{id: id, pos: p})
		}
	}
	return out
}

// A reading this many times rarer than another, unrelated reading of the
// same word is taken as an accident of spelling.
const accidentFactor = 5

// dropAccidents removes noun and adjective readings that only a detachment
// rule found and that are surely coincidences of spelling, the one place
// where this package departs from morphy: another reading of the word, of a
// lemma that WordNet does not relate to theirs, is at least accidentFactor
// times as frequent in SemCor ("customer" is not "more custom", "number" not
// "more numb", "was" not the plural of "wa", "serves" not of "serf").
func (l *Lexicon) dropAccidents(rs []reading) []reading {
	if len(rs) > 64 {
		return rs
	}
	var drop uint64
	for i, r := range rs {
		if r.ruled && r.pos != verbIndex && l.outweighed(r, rs) {
			drop |= 1 << i
		}
	}
	if drop == 0 {
		return rs
	}
	keep := rs[:0]
	for i, r := range rs {
		if drop&(1<<i) == 0 {
			keep = append(keep, r)
		}
	}
	return keep
}

// outweighed reports whether another reading in rs, of an unrelated lemma,
// is accidentFactor times as frequent as r.
func (l *Lexicon) outweighed(r reading, rs []reading) bool {
	limit := accidentFactor * max(uint64(l.readings[r.id][r.pos].Freq), 1)
	for _, x := range rs {
		if x.id != r.id && uint64(l.readings[x.id][x.pos].Freq) >= limit &&
			!l.isRelated(x.id, r.id) && !l.isRelated(r.id, x.id) {
			return true
		}
	}
	return false
}

// verbIndex is the format's index of verbs.
const verbIndex = 1

func addReading(out []reading, r reading) []reading {
	for i, x := range out {
		if x.id == r.id && x.pos == r.pos {
			out[i].self = x.self || r.self
			out[i].ruled = x.ruled && r.ruled
			return out
		}
	}
	return append(out, r)
}

// lemmaIDs appends the distinct lemmas of rs to out, the input's own lemma
// first.
func lemmaIDs(rs []reading, out []uint32) []uint32 {
	for _, r := range rs {
		if r.self {
			out = append(out, r.id)
			break
		}
	}
	for _, r := range rs {
		if !slices.Contains(out, r.id) {
			out = append(out, r.id)
		}
	}
	return out
}
