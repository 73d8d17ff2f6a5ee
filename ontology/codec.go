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
// BenchmarkApplicable). Record version 3:
//
//	0x03
//	uvarint-length-prefixed strings: ID Scope Owner Warehouse Phrase Kind
//	                                 Meaning Question PromotedFrom
//	                                 Source VerifiedBy
//	Created, LastUsed: a byte 0 (zero time) or 1 + varint Unix nanoseconds
//	varints: Uses Confirmations Rejections
//	target: strings Slot Arg, the choice term, uvarint n, n terms
//	term:   strings Kind Column Expr Fn Op Subject Related, a flags byte
//	        (1 Distinct, 2 Desc), varint Days, string lists Values Items
//	        Tables (uvarint n + n strings), uvarint n + n joins (two strings)
//
// Version 2 is version 3 without Source and VerifiedBy; it is read as is
// and rewritten on its next change. Version 1 held the target as one string ("key => token || alt, alt");
// decodeFact still reads it (see legacy.go), and Open rewrites every
// version 1 record as version 2 (migrate.go).
const factVersion = 3

// factVersionNoSource is the record version before Source and VerifiedBy.
const factVersionNoSource = 2

// factVersionLegacy is the record version with a string target.
const factVersionLegacy = 1

var errCorrupt = errors.New("truncated or corrupt record")

type encoder struct{ b []byte }

func (e *encoder) str(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}

func (e *encoder) strs(list []string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(list)))
	for _, s := range list {
		e.str(s)
	}
}

func (e *encoder) term(t Term) {
	for _, s := range [...]string{string(t.Kind), t.Column, t.Expr, t.Fn, t.Op, t.Subject, t.Related} {
		e.str(s)
	}
	var flags byte
	if t.Distinct {
		flags |= 1
	}
	if t.Desc {
		flags |= 2
	}
	e.b = append(e.b, flags)
	e.b = binary.AppendVarint(e.b, int64(t.Days))
	e.strs(t.Values)
	e.strs(t.Items)
	e.strs(t.Tables)
	e.b = binary.AppendUvarint(e.b, uint64(len(t.Joins)))
	for _, j := range t.Joins {
		e.str(j.Left)
		e.str(j.Right)
	}
}

func (e *encoder) target(t Target) {
	e.str(t.Slot)
	e.str(t.Arg)
	e.term(t.Choice)
	e.b = binary.AppendUvarint(e.b, uint64(len(t.Over)))
	for _, o := range t.Over {
		e.term(o)
	}
}

func encodeFact(f Fact) []byte {
	e := encoder{b: make([]byte, 0, 256)}
	e.b = append(e.b, factVersion)
	for _, s := range [...]string{f.ID, string(f.Scope), f.Owner, f.Warehouse, f.Phrase, string(f.Kind), f.Meaning, f.Question, f.PromotedFrom, string(f.Source), f.VerifiedBy} {
		e.str(s)
	}
	for _, t := range [...]time.Time{f.Created, f.LastUsed} {
		if t.IsZero() {
			e.b = append(e.b, 0)
			continue
		}
		e.b = append(e.b, 1)
		e.b = binary.AppendVarint(e.b, t.UnixNano())
	}
	for _, v := range [...]int{f.Uses, f.Confirmations, f.Rejections} {
		e.b = binary.AppendVarint(e.b, int64(v))
	}
	e.target(f.Target)
	return e.b
}

// decodeFact parses a stored record of either version. It copies the
// record into one string first, so the fields share a single allocation
// and none aliases the transaction's memory map (bbolt values are only
// valid inside it).
func decodeFact(v []byte) (Fact, error) {
	if len(v) == 0 {
		return Fact{}, fmt.Errorf("decode fact: %w", errCorrupt)
	}
	version := v[0]
	if version != factVersion && version != factVersionNoSource && version != factVersionLegacy {
		return Fact{}, fmt.Errorf("decode fact: record version %d, this build reads %d to %d", v[0], factVersionLegacy, factVersion)
	}
	d := decoder{s: string(v[1:])}
	var f Fact
	var legacyTarget string
	fields := []*string{&f.ID, (*string)(&f.Scope), &f.Owner, &f.Warehouse, &f.Phrase, (*string)(&f.Kind), &f.Meaning, &f.Question, &f.PromotedFrom, (*string)(&f.Source), &f.VerifiedBy}
	switch version {
	case factVersionNoSource:
		fields = fields[:9]
	case factVersionLegacy:
		fields = []*string{&f.ID, (*string)(&f.Scope), &f.Owner, &f.Warehouse, &f.Phrase, (*string)(&f.Kind), &legacyTarget, &f.Meaning, &f.Question, &f.PromotedFrom}
	}
	for _, p := range fields {
		*p = d.str()
	}
	f.Created, f.LastUsed = d.time(), d.time()
	f.Uses, f.Confirmations, f.Rejections = d.int(), d.int(), d.int()
	if version == factVersionLegacy {
		f.Target = parseLegacyTarget(legacyTarget)
	} else {
		f.Target = d.target()
	}
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

func (d *decoder) strs() []string {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.s)) {
		d.err = errCorrupt
		return nil
	}
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *decoder) term() Term {
	var t Term
	for _, p := range [...]*string{(*string)(&t.Kind), &t.Column, &t.Expr, &t.Fn, &t.Op, &t.Subject, &t.Related} {
		*p = d.str()
	}
	if d.err != nil || len(d.s) == 0 {
		d.err = errCorrupt
		return Term{}
	}
	flags := d.s[0]
	d.s = d.s[1:]
	t.Distinct, t.Desc = flags&1 != 0, flags&2 != 0
	t.Days = d.int()
	t.Values, t.Items, t.Tables = d.strs(), d.strs(), d.strs()
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.s)) {
		d.err = errCorrupt
		return Term{}
	}
	for range n {
		t.Joins = append(t.Joins, Join{Left: d.str(), Right: d.str()})
	}
	return t
}

func (d *decoder) target() Target {
	t := Target{Slot: d.str(), Arg: d.str()}
	t.Choice = d.term()
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.s)) {
		d.err = errCorrupt
		return Target{}
	}
	for range n {
		t.Over = append(t.Over, d.term())
	}
	return t
}
