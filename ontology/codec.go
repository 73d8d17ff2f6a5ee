package ontology

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Stored facts are a version byte followed by a compact binary record,
// not JSON: Applicable decodes every fact of three owners on every
// question, and JSON decoding cost about 10 µs a fact (see
// BenchmarkApplicable). Record version 1:
//
//	0x01
//	uvarint-length-prefixed strings: ID Scope Owner Warehouse Phrase Kind
//	                                 Target Meaning Question PromotedFrom
//	Created, LastUsed: a byte 0 (zero time) or 1 + varint Unix nanoseconds
//	varints: Uses Confirmations Rejections
//
// A new field means a new version byte, and decodeFact keeps reading the
// old ones.
const factVersion = 1

var errCorrupt = errors.New("truncated or corrupt record")

func encodeFact(f Fact) []byte {
	strs := [...]string{f.ID, string(f.Scope), f.Owner, f.Warehouse, f.Phrase, string(f.Kind), f.Target, f.Meaning, f.Question, f.PromotedFrom}
	n := 1 + 2*(1+binary.MaxVarintLen64) + 3*binary.MaxVarintLen64
	for _, s := range strs {
		n += binary.MaxVarintLen64 + len(s)
	}
	b := make([]byte, 0, n)
	b = append(b, factVersion)
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, t := range [...]time.Time{f.Created, f.LastUsed} {
		if t.IsZero() {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendVarint(b, t.UnixNano())
	}
	for _, v := range [...]int{f.Uses, f.Confirmations, f.Rejections} {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

// decodeFact parses a stored record. It copies the record into one string
// first, so the fields share a single allocation and none aliases the
// transaction's memory map (bbolt values are only valid inside it).
func decodeFact(v []byte) (Fact, error) {
	if len(v) == 0 {
		return Fact{}, fmt.Errorf("decode fact: %w", errCorrupt)
	}
	if v[0] != factVersion {
		return Fact{}, fmt.Errorf("decode fact: record version %d, this build reads %d", v[0], factVersion)
	}
	d := decoder{s: string(v[1:])}
	var f Fact
	for _, p := range [...]*string{&f.ID, (*string)(&f.Scope), &f.Owner, &f.Warehouse, &f.Phrase, (*string)(&f.Kind), &f.Target, &f.Meaning, &f.Question, &f.PromotedFrom} {
		*p = d.str()
	}
	f.Created, f.LastUsed = d.time(), d.time()
	f.Uses, f.Confirmations, f.Rejections = d.int(), d.int(), d.int()
	if d.err != nil || len(d.s) != 0 {
		return Fact{}, fmt.Errorf("decode fact: %w", errCorrupt)
	}
	return f, nil
}

type decoder struct {
	s   string
	err error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	for i := 0; i < len(d.s) && i < binary.MaxVarintLen64; i++ {
		c := d.s[i]
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			d.s = d.s[i+1:]
			return x
		}
	}
	d.err = errCorrupt
	return 0
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.s)) {
		d.err = errCorrupt
		return ""
	}
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

func (d *decoder) time() time.Time {
	if d.err != nil || len(d.s) == 0 {
		d.err = errCorrupt
		return time.Time{}
	}
	present := d.s[0]
	d.s = d.s[1:]
	switch present {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(0, d.varint()).UTC()
	}
	d.err = errCorrupt
	return time.Time{}
}

func (d *decoder) int() int { return int(d.varint()) }
