package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/clarify-bot/clarify/connectors/lexicon/internal/format"
)

//go:embed lexicon.bin.gz
var embedded []byte

// POS is a set of parts of speech, one bit each.
type POS uint8

// Parts of speech, in WordNet's order. Adj includes adjective satellites.
const (
	Noun POS = 1 << iota
	Verb
	Adj
	Adv
)

// String names the parts of speech in p, joined by "|".
func (p POS) String() string {
	if p == 0 {
		return "none"
	}
	names := [format.NumPOS]string{"noun", "verb", "adj", "adv"}
	var parts []string
	for i, n := range names {
		if p&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := p &^ (1<<format.NumPOS - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("POS(%#x)", uint8(rest)))
	}
	return strings.Join(parts, "|")
}

// Sense is one reading of a word: a lemma in one part of speech.
type Sense struct {
	Lemma   string
	POS     POS // exactly one part of speech
	Synsets int // WordNet senses of Lemma in POS
	Tagged  int // how many of those senses are tagged in SemCor (tagsense_cnt)
	Freq    int // SemCor occurrences of Lemma in POS, over all its senses
}

// Lexicon is the decoded WordNet extract. It is immutable and safe for
// concurrent use.
type Lexicon struct {
	lemmas   []string
	ids      map[string]uint32
	readings [][format.NumPOS]format.Reading
	except   [format.NumPOS]map[string][]uint32
	relStart []uint32
	rel      []uint32
	// broadStart and broad list the broader lemmas (hypernyms) of each lemma.
	broadStart []uint32
	broad      []uint32
	rules      [format.NumPOS][]format.Rule
	maxLen     int // longest lemma in bytes; longer input is unknown
}

// Load decodes the embedded data, which takes about 0.1 s and keeps about
// 20 MB of heap: keep the result (or use Default).
func Load() (*Lexicon, error) {
	zr, err := gzip.NewReader(bytes.NewReader(embedded))
	if err != nil {
		return nil, fmt.Errorf("load lexicon: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("load lexicon: %w", err)
	}
	d, err := format.Decode(raw)
	if err != nil {
		return nil, fmt.Errorf("load lexicon: %w", err)
	}
	return newLexicon(d), nil
}

// Default returns the Lexicon loaded once per process by the first call;
// every call returns the same immutable value (or the same error). It suits
// callers that would otherwise each keep a copy.
func Default() (*Lexicon, error) { return loadOnce() }

// loadOnce is a memoised Load whose result is never modified; with the
// embedded bytes it is the package's only variable.
var loadOnce = sync.OnceValues(Load)

func newLexicon(d *format.Data) *Lexicon {
	l := &Lexicon{
		lemmas:     d.Lemmas,
		ids:        make(map[string]uint32, len(d.Lemmas)),
		readings:   d.Readings,
		relStart:   d.RelStart,
		rel:        d.Rel,
		broadStart: d.BroadStart,
		broad:      d.Broad,
		rules:      format.DetachmentRules(),
	}
	for i, s := range d.Lemmas {
		l.ids[s] = uint32(i)
		l.maxLen = max(l.maxLen, len(s))
	}
	for p, list := range d.Except {
		l.except[p] = make(map[string][]uint32, len(list))
		for _, x := range list {
			l.except[p][x.Form] = x.Bases
			l.maxLen = max(l.maxLen, len(x.Form))
		}
	}
	return l
}

// Lemmas returns the base forms of word in all parts of speech, lower-case
// with words separated by single spaces: the word itself first if it is a
// lemma, then the others in part-of-speech order (noun, verb, adjective,
// adverb). It returns nil for an unknown word.
func (l *Lexicon) Lemmas(word string) []string {
	var buf [16]reading
	rs := l.lookup(word, buf[:0])
	if len(rs) == 0 {
		return nil
	}
	var ids [16]uint32
	out := make([]string, 0, len(rs))
	for _, id := range lemmaIDs(rs, ids[:0]) {
		out = append(out, l.lemmas[id])
	}
	return out
}

// Senses returns every reading of word: each of its lemmas in each part of
// speech that morphology allows, in part-of-speech order.
func (l *Lexicon) Senses(word string) []Sense {
	var buf [16]reading
	rs := l.lookup(word, buf[:0])
	if len(rs) == 0 {
		return nil
	}
	out := make([]Sense, len(rs))
	for i, r := range rs {
		x := l.readings[r.id][r.pos]
		out[i] = Sense{
			Lemma: l.lemmas[r.id], POS: 1 << r.pos,
			Synsets: int(x.Synsets), Tagged: int(x.Tagged), Freq: int(x.Freq),
		}
	}
	return out
}

// Parts returns the parts of speech that word can be.
func (l *Lexicon) Parts(word string) POS {
	var buf [16]reading
	var p POS
	for _, r := range l.lookup(word, buf[:0]) {
		p |= 1 << r.pos
	}
	return p
}

// Is reports whether word can be any of the parts of speech in p.
func (l *Lexicon) Is(word string, p POS) bool { return l.Parts(word)&p != 0 }

// Share returns the fraction of word's usage that falls in the parts of
// speech p, in [0, 1]: its readings' SemCor occurrences in p over all its
// readings' occurrences, or, for a word SemCor never tagged, the same ratio
// of sense counts. It is 0 for an unknown word.
func (l *Lexicon) Share(word string, p POS) float64 {
	var buf [16]reading
	rs := l.lookup(word, buf[:0])
	var freqIn, freqAll, sensesIn, sensesAll float64
	for _, r := range rs {
		x := l.readings[r.id][r.pos]
		freqAll += float64(x.Freq)
		sensesAll += float64(x.Synsets)
		if p&(1<<r.pos) != 0 {
			freqIn += float64(x.Freq)
			sensesIn += float64(x.Synsets)
		}
	}
	switch {
	case freqAll > 0:
		return freqIn / freqAll
	case sensesAll > 0:
		return sensesIn / sensesAll
	}
	return 0
}

// MostlyVerb reports whether word's verb readings outweigh all its other
// readings together: Share(word, Verb) > 0.5. It answers for the word out of
// context; "flow" and "border" are mostly nouns in SemCor.
func (l *Lexicon) MostlyVerb(word string) bool { return l.Share(word, Verb) > 0.5 }

// OftenVerb reports whether at least a quarter of word's readings are
// verbs: Share(word, Verb) >= 0.25. "flow" is mostly a noun but often a
// verb; a caller uses it where the sentence's frame already says verb.
func (l *Lexicon) OftenVerb(word string) bool { return l.Share(word, Verb) >= 0.25 }

// Known reports whether word, or one of its base forms, is in WordNet.
func (l *Lexicon) Known(word string) bool {
	var buf [16]reading
	return len(l.lookup(word, buf[:0])) > 0
}

// Commonness is ln(1 + F + S), where F is the SemCor occurrences and S the
// WordNet senses summed over the word's readings. It is 0 for an unknown word
// and at least ln 2 for a known one. Rare lemmas score about 0.7 to 1.5
// ("power station" ≈ 0.7, "librate" ≈ 1.1), everyday words about 3 to 10
// ("league" ≈ 2.8, "country" ≈ 4.9, "pay" ≈ 5.4, "run" ≈ 5.9, "be" ≈ 9.7).
func (l *Lexicon) Commonness(word string) float64 {
	var buf [16]reading
	total := 0.0
	for _, r := range l.lookup(word, buf[:0]) {
		x := l.readings[r.id][r.pos]
		total += float64(x.Freq) + float64(x.Synsets)
	}
	return math.Log1p(total)
}
