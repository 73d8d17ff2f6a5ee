// Package format is the binary layout of the lexicon's embedded data, shared
// by the generator that writes it and the package that reads it.
//
// The layout (before gzip) is a magic line followed by unsigned varints and
// raw bytes, in this order:
//
//	magic                       "clarify-lexicon/1\n"
//	lemma count N
//	N front-coded lemmas        shared-prefix length, suffix length, suffix
//	N readings                  part-of-speech mask byte, then for each set
//	                            bit (noun, verb, adj, adv): synsets, tagged
//	                            senses, frequency
//	4 exception lists           count, then front-coded forms, each followed
//	                            by its base count and base lemma indexes
//	N related lists             count, then ascending lemma indexes as deltas
//	N broader lists             the same, for the lemmas of broader senses
//	                            (hypernyms)
//
// Lemmas are sorted byte-wise and unique, so a lemma index is a stable
// reference within one file. Every count and index is checked on decoding: a
// corrupt file gives an error, never a panic.
package format

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Magic starts every file; its number changes with the layout.
const Magic = "clarify-lexicon/2\n"

// NumPOS is the number of parts of speech: noun, verb, adjective, adverb,
// in that order.
const NumPOS = 4

// Reading is what WordNet's index files say about one lemma in one part of
// speech, plus its SemCor frequency.
type Reading struct {
	Synsets uint16 // senses (synsets) of the lemma in this part of speech
	Tagged  uint16 // how many of those senses are tagged in SemCor
	Freq    uint32 // SemCor occurrences summed over the senses (cntlist.rev)
}

// Rule is one of WordNet's morphy detachment rules: a form ending in Suffix
// may be the inflection of a lemma ending in Ending instead.
type Rule struct{ Suffix, Ending string }

// DetachmentRules returns morphy's rules per part of speech (morph(7WN)),
// a fresh copy on each call.
func DetachmentRules() [NumPOS][]Rule {
	return [NumPOS][]Rule{
		{{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"}, {"ves", "f"}},
		{{"s", ""}, {"ies", "y"}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}},
		{{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}},
		nil,
	}
}

// Exception maps an irregular form to its base lemmas (indexes into Lemmas).
type Exception struct {
	Form  string
	Bases []uint32
}

// Data is the decoded content of a file.
type Data struct {
	Lemmas   []string            // sorted, unique, lower-case, words joined by spaces
	Readings [][NumPOS]Reading   // parallel to Lemmas; Synsets == 0 means no reading
	Except   [NumPOS][]Exception // per part of speech, sorted by Form
	RelStart []uint32            // len(Lemmas)+1 offsets into Rel
	Rel      []uint32            // related lemma indexes, ascending within a lemma
	// BroadStart and Broad are the same for broader lemmas (hypernyms):
	// what a lemma is a kind of.
	BroadStart []uint32
	Broad      []uint32
}

// ErrCorrupt is wrapped by every decoding error.
var ErrCorrupt = errors.New("corrupt lexicon data")

// Encode writes d in the layout above. d must be valid: sorted lemmas and
// in-range indexes (Validate checks it).
func Encode(w io.Writer, d *Data) error {
	if err := d.Validate(); err != nil {
		return fmt.Errorf("encode lexicon: %w", err)
	}
	bw := bufio.NewWriter(w)
	e := encoder{w: bw}
	e.raw([]byte(Magic))
	e.uint(uint64(len(d.Lemmas)))
	prev := ""
	for _, s := range d.Lemmas {
		e.frontCoded(prev, s)
		prev = s
	}
	for _, rs := range d.Readings {
		var mask byte
		for p, r := range rs {
			if r.Synsets > 0 {
				mask |= 1 << p
			}
		}
		e.raw([]byte{mask})
		for _, r := range rs {
			if r.Synsets > 0 {
				e.uint(uint64(r.Synsets))
				e.uint(uint64(r.Tagged))
				e.uint(uint64(r.Freq))
			}
		}
	}
	for _, list := range d.Except {
		e.uint(uint64(len(list)))
		prev = ""
		for _, x := range list {
			e.frontCoded(prev, x.Form)
			prev = x.Form
			e.uint(uint64(len(x.Bases)))
			for _, b := range x.Bases {
				e.uint(uint64(b))
			}
		}
	}
	for _, l := range [][2][]uint32{{d.RelStart, d.Rel}, {d.BroadStart, d.Broad}} {
		start, list := l[0], l[1]
		for i := range d.Lemmas {
			rel := list[start[i]:start[i+1]]
			e.uint(uint64(len(rel)))
			last := uint32(0)
			for _, r := range rel {
				e.uint(uint64(r - last))
				last = r
			}
		}
	}
	if e.err != nil {
		return fmt.Errorf("encode lexicon: %w", e.err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("encode lexicon: %w", err)
	}
	return nil
}

// Validate reports the first structural problem in d.
func (d *Data) Validate() error {
	n := len(d.Lemmas)
	for i := 1; i < n; i++ {
		if d.Lemmas[i-1] >= d.Lemmas[i] {
			return fmt.Errorf("lemmas not sorted and unique at %d (%q, %q)", i, d.Lemmas[i-1], d.Lemmas[i])
		}
	}
	if len(d.Readings) != n {
		return fmt.Errorf("%d readings for %d lemmas", len(d.Readings), n)
	}
	for p, list := range d.Except {
		for i, x := range list {
			if i > 0 && list[i-1].Form >= x.Form {
				return fmt.Errorf("exceptions of part of speech %d not sorted and unique at %q", p, x.Form)
			}
			for _, b := range x.Bases {
				if int(b) >= n {
					return fmt.Errorf("exception %q: base %d out of range", x.Form, b)
				}
			}
		}
	}
	if err := d.validLists("related", d.RelStart, d.Rel); err != nil {
		return err
	}
	return d.validLists("broader", d.BroadStart, d.Broad)
}

func (d *Data) validLists(what string, start, list []uint32) error {
	n := len(d.Lemmas)
	if len(start) != n+1 || start[0] != 0 || int(start[n]) != len(list) {
		return fmt.Errorf("%s offsets do not cover %d lemmas and %d entries", what, n, len(list))
	}
	for i := range n {
		if start[i] > start[i+1] {
			return fmt.Errorf("%s offsets decrease at lemma %d", what, i)
		}
		rel := list[start[i]:start[i+1]]
		for j, r := range rel {
			if int(r) >= n || (j > 0 && rel[j-1] >= r) {
				return fmt.Errorf("%s list of %q not ascending lemma indexes", what, d.Lemmas[i])
			}
		}
	}
	return nil
}

type encoder struct {
	w   *bufio.Writer
	buf [binary.MaxVarintLen64]byte
	err error
}

func (e *encoder) raw(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) uint(v uint64) {
	e.raw(e.buf[:binary.PutUvarint(e.buf[:], v)])
}

func (e *encoder) frontCoded(prev, s string) {
	k := commonPrefix(prev, s)
	e.uint(uint64(k))
	e.uint(uint64(len(s) - k))
	e.raw([]byte(s[k:]))
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// maxLemmaLen bounds a decoded string; WordNet's longest lemma is far shorter.
const maxLemmaLen = 1 << 10

// Decode parses a file written by Encode. All lemma strings share one
// backing allocation.
func Decode(b []byte) (*Data, error) {
	if !bytes.HasPrefix(b, []byte(Magic)) {
		return nil, fmt.Errorf("%w: missing magic %q", ErrCorrupt, Magic)
	}
	dec := decoder{b: b, off: len(Magic)}
	d := &Data{}
	dec.lemmas(d)
	dec.readings(d)
	for p := range d.Except {
		d.Except[p] = dec.exceptions(len(d.Lemmas))
	}
	d.RelStart, d.Rel = dec.related(d, "related")
	d.BroadStart, d.Broad = dec.related(d, "broader")
	if dec.err == nil && dec.off != len(b) {
		dec.fail("%d trailing bytes", len(b)-dec.off)
	}
	if dec.err != nil {
		return nil, dec.err
	}
	return d, nil
}

type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w at byte %d: %s", ErrCorrupt, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.off += n
	return v
}

// count reads a length that must not exceed limit.
func (d *decoder) count(limit int) int {
	v := d.uint()
	if v > uint64(limit) {
		d.fail("count %d exceeds %d", v, limit)
		return 0
	}
	return int(v)
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.b) {
		d.fail("unexpected end")
		return 0
	}
	c := d.b[d.off]
	d.off++
	return c
}

// frontCoded reads a front-coded string: how many bytes it shares with
// the previous one (at most prevLen) and the bytes that follow them.
func (d *decoder) frontCoded(prevLen int) (shared int, suffix []byte) {
	shared = d.count(prevLen)
	n := d.count(maxLemmaLen)
	if d.err != nil {
		return 0, nil
	}
	if n > len(d.b)-d.off {
		d.fail("string runs past the end")
		return 0, nil
	}
	suffix = d.b[d.off : d.off+n]
	d.off += n
	return shared, suffix
}

func (d *decoder) lemmas(out *Data) {
	n := d.count(len(d.b)) // each lemma takes at least two bytes
	if d.err != nil {
		return
	}
	ends := make([]int, n)
	blob := make([]byte, 0, 2*len(d.b))
	start := 0
	for i := range n {
		prevStart, prevEnd := start, len(blob)
		k, suffix := d.frontCoded(prevEnd - prevStart)
		if d.err != nil {
			return
		}
		blob = append(blob, blob[prevStart:prevStart+k]...)
		blob = append(blob, suffix...)
		start = prevEnd
		ends[i] = len(blob)
	}
	all := string(blob)
	out.Lemmas = make([]string, n)
	start = 0
	for i, end := range ends {
		out.Lemmas[i] = all[start:end]
		start = end
	}
	for i := 1; i < n; i++ {
		if out.Lemmas[i-1] >= out.Lemmas[i] {
			d.fail("lemmas not sorted at %q", out.Lemmas[i])
			return
		}
	}
}

func (d *decoder) readings(out *Data) {
	if d.err != nil {
		return
	}
	out.Readings = make([][NumPOS]Reading, len(out.Lemmas))
	for i := range out.Readings {
		mask := d.byte()
		if mask>>NumPOS != 0 {
			d.fail("bad part-of-speech mask %#x", mask)
		}
		for p := range NumPOS {
			if mask&(1<<p) == 0 {
				continue
			}
			r := &out.Readings[i][p]
			r.Synsets = uint16(min(d.count(1<<16-1), 1<<16-1))
			r.Tagged = uint16(min(d.count(1<<16-1), 1<<16-1))
			r.Freq = uint32(min(d.count(1<<32-1), 1<<32-1))
			if r.Synsets == 0 {
				d.fail("reading with no synsets")
			}
		}
		if d.err != nil {
			return
		}
	}
}

func (d *decoder) exceptions(nLemmas int) []Exception {
	n := d.count(len(d.b))
	if d.err != nil || n == 0 {
		return nil
	}
	list := make([]Exception, n)
	prev := ""
	for i := range list {
		k, suffix := d.frontCoded(len(prev))
		form := prev[:k] + string(suffix)
		prev = form
		bases := make([]uint32, d.count(nLemmas))
		for j := range bases {
			bases[j] = uint32(d.count(nLemmas - 1))
		}
		if d.err != nil {
			return nil
		}
		list[i] = Exception{Form: form, Bases: bases}
		if i > 0 && list[i-1].Form >= list[i].Form {
			d.fail("exceptions not sorted at %q", list[i].Form)
			return nil
		}
	}
	return list
}

// related reads one list of lemma indexes per lemma (related or broader).
func (d *decoder) related(out *Data, what string) (start, list []uint32) {
	if d.err != nil {
		return nil, nil
	}
	n := len(out.Lemmas)
	start = make([]uint32, n+1)
	for i := range n {
		k := d.count(n)
		last := uint64(0)
		for j := range k {
			delta := d.uint()
			if j > 0 && delta == 0 {
				d.fail("%s list of %q not ascending", what, out.Lemmas[i])
			}
			last += delta
			if last >= uint64(n) {
				d.fail("%s index %d out of range", what, last)
			}
			if d.err != nil {
				return nil, nil
			}
			list = append(list, uint32(last))
		}
		start[i+1] = uint32(len(list))
	}
	return start, slices.Clip(list)
}
