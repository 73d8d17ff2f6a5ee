package catalog

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// MatchKind says how a stored value matched a phrase. Kinds are ordered
// from the strongest match to the weakest.
type MatchKind int

const (
	// Exact: the stored value is the phrase, byte for byte (ignoring
	// surrounding spaces).
	Exact MatchKind = iota + 1
	// CaseInsensitive: equal once both are lower-cased and their runs of
	// white space collapsed.
	CaseInsensitive
	// Abbreviation: the data pairs the stored value with the phrase as
	// code and name (Snapshot.Aliases): 'TX' for "Texas" and back.
	Abbreviation
	// Prefix: the stored value starts with the phrase ("tex" → "Texas").
	Prefix
	// Typo: the stored value is within a small edit distance of the phrase
	// (insertions, deletions, substitutions and swaps of neighbours).
	Typo
)

func (k MatchKind) String() string {
	switch k {
	case Exact:
		return "exact"
	case CaseInsensitive:
		return "case-insensitive"
	case Abbreviation:
		return "abbreviation"
	case Prefix:
		return "prefix"
	case Typo:
		return "typo"
	}
	return "unknown"
}

// ValueHit is one stored value a phrase matched.
type ValueHit struct {
	Table, Column string
	// Value is the value as stored, ready to be quoted into SQL.
	Value string
	Match MatchKind
	// Score is in (0, 1], higher for stronger kinds: 1 exact, 0.9
	// case-insensitive, 0.8 abbreviation, 0.5–0.7 prefix (more for a longer
	// share of the value), below 0.4 for typos.
	Score float64
	// Distance is the edit distance of a Typo hit, 0 otherwise.
	Distance int
}

// Limits of the value index.
const (
	// maxValueBytes: longer values are free text, not names people type;
	// they are not indexed.
	maxValueBytes = 256
	// minPrefixRunes: shorter phrases would match too much to be useful.
	minPrefixRunes = 3
	// maxPrefixScan bounds the keys one prefix search walks through; a
	// three-letter prefix of a million values can match tens of thousands.
	maxPrefixScan = 1 << 15
	// minTypoRunes and maxTypoRunes bound the phrases searched for typos,
	// and maxTypoKeyRunes the values indexed for it: very short words have
	// too many neighbours and long ones are not names.
	minTypoRunes    = 4
	maxTypoRunes    = 62
	maxTypoKeyRunes = maxTypoRunes + 2
	// gramLen is q of the q-gram index. An edit changes at most
	// gramLen+1 of a string's grams (a swap of neighbours touches
	// gramLen+1), which gives the count filter its threshold.
	gramLen = 3
	// maxGramPostings: grams with more postings than this inside the length
	// window are skipped, lowering the count threshold by one each, as long
	// as the threshold stays positive. This caps the work of a typo search
	// on grams such as " th" that occur in a large share of the values.
	maxGramPostings = 1 << 14
	// maxTypoVerify caps the candidates checked by edit distance.
	maxTypoVerify = 2048
)

// typoBudget is the edit distance tolerated for a phrase of n runes.
func typoBudget(n int) int {
	switch {
	case n < minTypoRunes || n > maxTypoRunes:
		return 0
	case n <= 7:
		return 1
	}
	return 2
}

// normalize is the key values are compared by: lower-case with runs of
// white space collapsed to one space. It returns s itself when s is already
// normal, so that lower-case data costs no allocation.
func normalize(s string) string {
	s = strings.TrimSpace(s)
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf, 'A' <= c && c <= 'Z', c == ' ' && prevSpace,
			c == '\t', c == '\n', c == '\r', c == '\v', c == '\f':
			return strings.Join(strings.Fields(strings.ToLower(s)), " ")
		}
		prevSpace = c == ' '
	}
	return s
}

// ValueIndexBuilder collects values for a ValueIndex. It is not safe for
// concurrent use.
type ValueIndexBuilder struct {
	cols    []columnRef
	colIDs  map[columnRef]uint32
	entries []pendingValue
	aliases [][2]string
}

type pendingValue struct {
	col   uint32
	value string
}

// NewValueIndexBuilder returns an empty builder.
func NewValueIndexBuilder() *ValueIndexBuilder {
	return &ValueIndexBuilder{colIDs: make(map[columnRef]uint32)}
}

// Add records that table.column holds value. Empty values and values longer
// than 256 bytes are ignored; duplicates are harmless.
func (b *ValueIndexBuilder) Add(table, column, value string) {
	if t := strings.TrimSpace(value); t == "" || len(t) > maxValueBytes {
		return
	}
	ref := columnRef{table: table, column: column}
	id, ok := b.colIDs[ref]
	if !ok {
		id = uint32(len(b.cols))
		b.cols = append(b.cols, ref)
		b.colIDs[ref] = id
	}
	b.entries = append(b.entries, pendingValue{col: id, value: value})
}

// AddAlias records that code abbreviates name ('TX' for 'Texas'), as the
// data shows it. Search then finds either from the other.
func (b *ValueIndexBuilder) AddAlias(code, name string) {
	b.aliases = append(b.aliases, [2]string{code, name})
}

// ValueIndex finds stored values by exact, case-insensitive, abbreviated,
// prefix and misspelt phrases. It is read-only after Build (apart from a
// pool of scratch buffers) and safe for concurrent use.
//
// Layout, chosen for a million values in a few hundred MB: the distinct
// normalised values ("keys") live in one string in sorted order, so exact
// and prefix search are binary searches and a key costs a 4-byte offset.
// For typos, keys are also numbered in order of their length in runes, and
// a trigram posting list holds those numbers; since a typo changes the
// length by at most the edit budget, each list is cut by binary search to
// the window of plausible lengths before counting.
type ValueIndex struct {
	cols []columnRef

	keys     string   // distinct normalised values, sorted, concatenated
	keyOff   []uint32 // key i is keys[keyOff[i]:keyOff[i+1]]
	keyRunes []uint16 // length of key i in runes

	occStart []uint32 // key i occurs in occ[occStart[i]:occStart[i+1]]
	occ      []occurrence
	origs    string   // original spellings that differ from their key
	origOff  []uint32 // original j is origs[origOff[j]:origOff[j+1]]

	aliases map[string][]string // normalised code ↔ normalised names

	typoKeys  []uint32 // typo number → key, ordered by (rune length, key)
	lenStart  []uint32 // typo numbers of keys of n runes start at lenStart[n]
	grams     map[uint64]uint32
	gramStart []uint32 // postings of gram g are gramPosts[gramStart[g]:gramStart[g+1]]
	gramPosts []uint32 // typo numbers, ascending

	counters sync.Pool // *[]uint8, all zero: scratch of typoMatches
}

// occurrence is one column holding a key, with the value as stored there.
type occurrence struct {
	col  uint32
	orig uint32 // index into origOff, or sameAsKey
}

const sameAsKey = ^uint32(0)

// Build indexes everything added so far and resets the builder.
func (b *ValueIndexBuilder) Build() *ValueIndex {
	x := &ValueIndex{cols: b.cols, aliases: make(map[string][]string)}
	x.counters.New = func() any { return new([]uint8) }
	aliases := b.aliases
	type item struct {
		key, orig string
		col       uint32
	}
	items := make([]item, len(b.entries))
	for i, e := range b.entries {
		items[i] = item{key: normalize(e.value), orig: e.value, col: e.col}
	}
	*b = ValueIndexBuilder{colIDs: make(map[columnRef]uint32)}
	slices.SortFunc(items, func(a, b item) int {
		if c := strings.Compare(a.key, b.key); c != 0 {
			return c
		}
		if c := cmp.Compare(a.col, b.col); c != 0 {
			return c
		}
		return strings.Compare(a.orig, b.orig)
	})

	var keys, origs strings.Builder
	// Size everything first: append-grown slices would keep up to twice
	// the memory alive.
	keyBytes, origBytes, distinct, withOrig := 0, 0, 0, 0
	for i, it := range items {
		if i == 0 || it.key != items[i-1].key {
			keyBytes += len(it.key)
			distinct++
		}
		if it.orig != it.key {
			origBytes += len(it.orig)
			withOrig++
		}
	}
	keys.Grow(keyBytes)
	origs.Grow(origBytes)
	x.keyOff = append(make([]uint32, 0, distinct+1), 0)
	x.keyRunes = make([]uint16, 0, distinct)
	x.occStart = append(make([]uint32, 0, distinct+1), 0)
	x.occ = make([]occurrence, 0, len(items))
	x.origOff = append(make([]uint32, 0, withOrig+1), 0)
	lastOrig, lastOrigID := "", sameAsKey
	for i, it := range items {
		if i > 0 && it.key == items[i-1].key && it.col == items[i-1].col && it.orig == items[i-1].orig {
			continue
		}
		if i == 0 || it.key != items[i-1].key {
			if i > 0 {
				x.occStart = append(x.occStart, uint32(len(x.occ)))
			}
			keys.WriteString(it.key)
			x.keyOff = append(x.keyOff, uint32(keys.Len()))
			x.keyRunes = append(x.keyRunes, uint16(utf8.RuneCountInString(it.key)))
			lastOrig, lastOrigID = "", sameAsKey
		}
		o := occurrence{col: it.col, orig: sameAsKey}
		if it.orig != it.key {
			if it.orig != lastOrig || lastOrigID == sameAsKey {
				origs.WriteString(it.orig)
				x.origOff = append(x.origOff, uint32(origs.Len()))
				lastOrig, lastOrigID = it.orig, uint32(len(x.origOff)-2)
			}
			o.orig = lastOrigID
		}
		x.occ = append(x.occ, o)
	}
	if len(items) > 0 {
		x.occStart = append(x.occStart, uint32(len(x.occ)))
	}
	x.keys, x.origs = keys.String(), origs.String()

	for _, a := range aliases {
		code, name := normalize(a[0]), normalize(a[1])
		if code == "" || name == "" || code == name {
			continue
		}
		x.addAlias(code, name)
		x.addAlias(name, code)
	}
	x.buildGrams()
	return x
}

func (x *ValueIndex) addAlias(from, to string) {
	if !slices.Contains(x.aliases[from], to) {
		x.aliases[from] = append(x.aliases[from], to)
	}
}

// Len is the number of distinct values (after normalisation) indexed.
func (x *ValueIndex) Len() int { return len(x.keyRunes) }

func (x *ValueIndex) key(i uint32) string { return x.keys[x.keyOff[i]:x.keyOff[i+1]] }

func (x *ValueIndex) orig(i uint32, o occurrence) string {
	if o.orig == sameAsKey {
		return x.key(i)
	}
	return x.origs[x.origOff[o.orig]:x.origOff[o.orig+1]]
}

// buildGrams numbers the keys by length and builds the trigram postings.
func (x *ValueIndex) buildGrams() {
	x.lenStart = make([]uint32, maxTypoKeyRunes+2)
	for _, n := range x.keyRunes {
		if n <= maxTypoKeyRunes {
			x.lenStart[n+1]++
		}
	}
	for i := 1; i < len(x.lenStart); i++ {
		x.lenStart[i] += x.lenStart[i-1]
	}
	x.typoKeys = make([]uint32, x.lenStart[len(x.lenStart)-1])
	next := append([]uint32(nil), x.lenStart...)
	for i, n := range x.keyRunes {
		if n <= maxTypoKeyRunes {
			x.typoKeys[next[n]] = uint32(i)
			next[n]++
		}
	}

	// First pass: the distinct grams of every key, in typo order, kept in
	// a flat slice so the second pass needs no lookups.
	var gb gramNumbering
	flat := make([]uint32, 0, len(x.keys)+2*len(x.typoKeys))
	perKey := make([]uint8, len(x.typoKeys))
	for t, k := range x.typoKeys {
		before := len(flat)
		a, b := rune(gramPad), rune(gramPad)
		for _, c := range x.key(k) {
			flat = gb.add(flat, t, a, b, c)
			a, b = b, c
		}
		flat = gb.add(flat, t, a, b, gramPad)
		flat = gb.add(flat, t, b, gramPad, gramPad)
		perKey[t] = uint8(len(flat) - before)
	}
	x.grams = make(map[uint64]uint32, len(gb.codes))
	for id, code := range gb.codes {
		x.grams[code] = uint32(id)
	}
	x.gramStart = make([]uint32, len(gb.counts)+1)
	for g, c := range gb.counts {
		x.gramStart[g+1] = x.gramStart[g] + c
	}
	x.gramPosts = make([]uint32, len(flat))
	fill := append([]uint32(nil), x.gramStart[:len(gb.counts)]...)
	pos := 0
	for t, n := range perKey {
		for _, g := range flat[pos : pos+int(n)] {
			x.gramPosts[fill[g]] = uint32(t)
			fill[g]++
		}
		pos += int(n)
	}
}

// gramNumbering numbers grams while the index is built. Grams of ASCII
// letters go through a dense table, which is several times faster than a
// map over tens of millions of lookups; the rest go through a map.
type gramNumbering struct {
	dense  []uint32 // 7 bits per rune, pad as 0: gram id + 1, or 0
	sparse map[uint64]uint32
	codes  []uint64 // packed gram per id
	counts []uint32 // keys per id
	stamp  []int32  // last key (typo number + 1) that counted the id
}

// add appends the id of gram (a, b, c) to flat unless key t already has it.
func (gb *gramNumbering) add(flat []uint32, t int, a, b, c rune) []uint32 {
	var id uint32
	if i, ok := denseGram(a, b, c); ok {
		if gb.dense == nil {
			gb.dense = make([]uint32, 1<<21)
		}
		if v := gb.dense[i]; v > 0 {
			id = v - 1
		} else {
			id = gb.newID(a, b, c)
			gb.dense[i] = id + 1
		}
	} else {
		code := packGram(a, b, c)
		v, ok := gb.sparse[code]
		if !ok {
			if gb.sparse == nil {
				gb.sparse = make(map[uint64]uint32)
			}
			v = gb.newID(a, b, c)
			gb.sparse[code] = v
		}
		id = v
	}
	if gb.stamp[id] == int32(t+1) {
		return flat
	}
	gb.stamp[id] = int32(t + 1)
	gb.counts[id]++
	return append(flat, id)
}

func (gb *gramNumbering) newID(a, b, c rune) uint32 {
	gb.codes = append(gb.codes, packGram(a, b, c))
	gb.counts = append(gb.counts, 0)
	gb.stamp = append(gb.stamp, 0)
	return uint32(len(gb.codes) - 1)
}

// denseGram is the dense-table slot of a gram of ASCII runes (NUL excluded,
// so that it cannot be confused with the pad).
func denseGram(a, b, c rune) (int, bool) {
	d := func(r rune) (int, bool) {
		switch {
		case r == gramPad:
			return 0, true
		case r > 0 && r < utf8.RuneSelf:
			return int(r), true
		}
		return 0, false
	}
	x, ok1 := d(a)
	y, ok2 := d(b)
	z, ok3 := d(c)
	return x<<14 | y<<7 | z, ok1 && ok2 && ok3
}

func packGram(a, b, c rune) uint64 { return uint64(a)<<42 | uint64(b)<<21 | uint64(c) }

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

// gramPad stands for the string's edges; it is no valid rune.
const gramPad = 0x1FFFFF

// appendGrams appends the distinct padded trigrams of r, each packed into
// 63 bits (21 per rune).
func appendGrams(dst []uint64, r []rune) []uint64 {
	at := func(i int) rune {
		if i < 0 || i >= len(r) {
			return gramPad
		}
		return r[i]
	}
	start := len(dst)
	for i := -(gramLen - 1); i < len(r); i++ {
		g := packGram(at(i), at(i+1), at(i+2))
		if !slices.Contains(dst[start:], g) {
			dst = append(dst, g)
		}
	}
	return dst
}

// keyMatch is a key found by one of the searches.
type keyMatch struct {
	key  uint32
	kind MatchKind
	dist int
}

// Search finds the stored values matching phrase: equal to it exactly or
// case-insensitively, paired with it by an alias, starting with it (phrases
// of at least 3 runes) or within edit distance 1 (phrases of 4–7 runes) or 2
// (longer). Typos are only looked for when the phrase is not itself a
// stored value and stronger matches leave room under limit. At most limit
// hits, best first: by kind, then smaller edit distance, then shorter
// value, then value, table and column.
func (x *ValueIndex) Search(phrase string, limit int) []ValueHit {
	phrase = strings.TrimSpace(phrase)
	if limit <= 0 || phrase == "" || len(phrase) > 4*maxValueBytes || len(x.keyRunes) == 0 {
		return nil
	}
	key := normalize(phrase)
	if key == "" || len(key) > maxValueBytes {
		return nil
	}
	var found []keyMatch
	if k, ok := x.find(key); ok {
		found = append(found, keyMatch{key: k, kind: CaseInsensitive})
	}
	for _, other := range x.aliases[key] {
		if k, ok := x.find(other); ok {
			found = append(found, keyMatch{key: k, kind: Abbreviation})
		}
	}
	qr := []rune(key)
	if len(qr) >= minPrefixRunes {
		found = append(found, x.prefixMatches(key, limit)...)
	}
	// A typo search is pointless when the phrase is itself a stored value
	// (its neighbours are other values, not what the user meant) or when
	// stronger matches already fill the limit.
	if budget := typoBudget(len(qr)); budget > 0 && len(found) < limit && !hasKind(found, CaseInsensitive) {
		found = append(found, x.typoMatches(qr, budget, limit)...)
	}
	return x.hits(phrase, len(qr), found, limit)
}

func hasKind(found []keyMatch, kind MatchKind) bool {
	for _, f := range found {
		if f.kind == kind {
			return true
		}
	}
	return false
}

// find returns the number of key k.
func (x *ValueIndex) find(k string) (uint32, bool) {
	n := len(x.keyRunes)
	i := sort.Search(n, func(i int) bool { return x.key(uint32(i)) >= k })
	if i < n && x.key(uint32(i)) == k {
		return uint32(i), true
	}
	return 0, false
}

// shorterKey orders keys by length in runes, then by key order.
func (x *ValueIndex) shorterKey(a, b uint32) bool {
	if x.keyRunes[a] != x.keyRunes[b] {
		return x.keyRunes[a] < x.keyRunes[b]
	}
	return a < b
}

// prefixMatches returns the limit shortest keys that strictly extend key.
// Each key yields at least one hit, so no other prefix key can make the
// final cut.
func (x *ValueIndex) prefixMatches(key string, limit int) []keyMatch {
	n := len(x.keyRunes)
	i := sort.Search(n, func(i int) bool { return x.key(uint32(i)) >= key })
	var best []uint32
	for scanned := 0; i < n && scanned < maxPrefixScan; i, scanned = i+1, scanned+1 {
		k := x.key(uint32(i))
		if !strings.HasPrefix(k, key) {
			break
		}
		id := uint32(i)
		if len(k) == len(key) || len(best) == limit && !x.shorterKey(id, best[limit-1]) {
			continue
		}
		best = insertBest(best, id, limit, x.shorterKey)
	}
	out := make([]keyMatch, len(best))
	for j, k := range best {
		out[j] = keyMatch{key: k, kind: Prefix}
	}
	return out
}

// insertBest inserts it into best (sorted, at most k long) if it belongs.
func insertBest[T any](best []T, it T, k int, better func(a, b T) bool) []T {
	i := sort.Search(len(best), func(i int) bool { return better(it, best[i]) })
	if i >= k {
		return best
	}
	if len(best) < k {
		best = append(best, it)
	}
	copy(best[i+1:], best[i:len(best)-1])
	best[i] = it
	return best
}

// typoMatches returns the limit closest keys within budget edits of qr
// (but not equal to it).
func (x *ValueIndex) typoMatches(qr []rune, budget, limit int) []keyMatch {
	codes := appendGrams(nil, qr)
	// Each edit destroys at most gramLen+1 distinct grams of the phrase; the
	// grams it leaves intact must all occur in the key.
	need := len(codes) - budget*(gramLen+1)
	if need < 1 {
		return nil
	}
	lo := x.lenStart[max(len(qr)-budget, 0)]
	hi := x.lenStart[min(len(qr)+budget+1, len(x.lenStart)-1)]
	if lo >= hi {
		return nil
	}
	lists := make([][]uint32, 0, len(codes))
	for _, g := range codes {
		id, ok := x.grams[g]
		if !ok {
			continue
		}
		p := x.gramPosts[x.gramStart[id]:x.gramStart[id+1]]
		a, _ := slices.BinarySearch(p, lo)
		b, _ := slices.BinarySearch(p, hi)
		if b > a {
			lists = append(lists, p[a:b])
		}
	}
	slices.SortStableFunc(lists, func(a, b []uint32) int { return cmp.Compare(len(a), len(b)) })
	for len(lists) > 0 && len(lists[len(lists)-1]) > maxGramPostings && need > 1 {
		lists = lists[:len(lists)-1]
		need--
	}
	if len(lists) < need {
		return nil
	}

	// The counters come from a pool and are handed back zeroed: a window
	// can span most of the index, and a fresh slice per search would make
	// the garbage collector the main cost.
	cp := x.counters.Get().(*[]uint8)
	if len(*cp) < int(hi-lo) {
		*cp = make([]uint8, hi-lo)
	}
	counts := (*cp)[:hi-lo]
	defer func() {
		for _, l := range lists {
			for _, t := range l {
				counts[t-lo] = 0
			}
		}
		x.counters.Put(cp)
	}()
	var cands []uint32
	for _, l := range lists {
		for _, t := range l {
			c := counts[t-lo] + 1
			counts[t-lo] = c
			if int(c) == need {
				cands = append(cands, t)
			}
		}
	}
	// Verify the candidates sharing the most grams first, and at most
	// maxTypoVerify of them: values of one rigid format (SKU-12345-AB)
	// share most of their grams, and without a cap a misspelt code would
	// verify tens of thousands of its siblings.
	if len(cands) > maxTypoVerify {
		slices.SortStableFunc(cands, func(a, b uint32) int {
			return cmp.Compare(counts[b-lo], counts[a-lo])
		})
		cands = cands[:maxTypoVerify]
	}

	type scored struct {
		key  uint32
		dist int
	}
	better := func(a, b scored) bool {
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return x.shorterKey(a.key, b.key)
	}
	var best []scored
	var buf []rune
	var rows osaRows
	for _, t := range cands {
		k := x.typoKeys[t]
		buf = appendRunes(buf[:0], x.key(k))
		d := rows.distance(qr, buf, budget)
		if d == 0 || d > budget {
			continue
		}
		best = insertBest(best, scored{key: k, dist: d}, limit, better)
	}
	out := make([]keyMatch, len(best))
	for i, s := range best {
		out[i] = keyMatch{key: s.key, kind: Typo, dist: s.dist}
	}
	return out
}

// osaRows holds the three DP rows of a bounded optimal-string-alignment
// distance, reused across candidates.
type osaRows struct{ a, b, c []int }

// distance returns the optimal string alignment distance of s and t
// (Levenshtein plus swaps of neighbours, so "texsa" is one edit from
// "texas"), or budget+1 as soon as it must exceed budget. Only the band of
// cells within budget of the diagonal is computed.
func (r *osaRows) distance(s, t []rune, budget int) int {
	n, m := len(s), len(t)
	if abs(n-m) > budget {
		return budget + 1
	}
	inf := budget + 1
	if cap(r.a) < m+1 {
		r.a, r.b, r.c = make([]int, m+1), make([]int, m+1), make([]int, m+1)
	}
	prev2, prev, cur := r.a[:m+1], r.b[:m+1], r.c[:m+1]
	for j := range prev {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= n; i++ {
		lo, hi := max(1, i-budget), min(m, i+budget)
		// The cells just outside the band read as "too far".
		cur[lo-1] = inf
		if lo == 1 {
			cur[0] = min(i, inf)
		}
		rowMin := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			v = min(v, inf)
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if hi < m {
			cur[hi+1] = inf
		}
		if rowMin > budget {
			return inf
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[m]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// hits expands matched keys into one hit per column and stored spelling,
// keeps the strongest match of each, and returns the best limit.
func (x *ValueIndex) hits(phrase string, phraseRunes int, found []keyMatch, limit int) []ValueHit {
	type hitKey struct {
		col   uint32
		value string
	}
	type ranked struct {
		hit   ValueHit
		key   uint32
		runes int
	}
	byHit := make(map[hitKey]int)
	var all []ranked
	for _, f := range found {
		for _, o := range x.occ[x.occStart[f.key]:x.occStart[f.key+1]] {
			v := x.orig(f.key, o)
			kind := f.kind
			if kind == CaseInsensitive && strings.TrimSpace(v) == phrase {
				kind = Exact
			}
			runes := int(x.keyRunes[f.key])
			h := ValueHit{
				Table:    x.cols[o.col].table,
				Column:   x.cols[o.col].column,
				Value:    v,
				Match:    kind,
				Score:    matchScore(kind, phraseRunes, runes, f.dist),
				Distance: f.dist,
			}
			hk := hitKey{col: o.col, value: v}
			if i, ok := byHit[hk]; ok {
				if kind < all[i].hit.Match {
					all[i].hit = h
				}
				continue
			}
			byHit[hk] = len(all)
			all = append(all, ranked{hit: h, key: f.key, runes: runes})
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		if c := cmp.Compare(a.hit.Match, b.hit.Match); c != 0 {
			return c
		}
		if c := cmp.Compare(a.hit.Distance, b.hit.Distance); c != 0 {
			return c
		}
		if c := cmp.Compare(a.runes, b.runes); c != 0 {
			return c
		}
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		if c := strings.Compare(a.hit.Table, b.hit.Table); c != 0 {
			return c
		}
		if c := strings.Compare(a.hit.Column, b.hit.Column); c != 0 {
			return c
		}
		return strings.Compare(a.hit.Value, b.hit.Value)
	})
	out := make([]ValueHit, 0, min(limit, len(all)))
	for _, r := range all[:min(limit, len(all))] {
		out = append(out, r.hit)
	}
	return out
}

// matchScore maps a match to (0, 1]; see ValueHit.Score.
func matchScore(kind MatchKind, phraseRunes, valueRunes, dist int) float64 {
	switch kind {
	case Exact:
		return 1
	case CaseInsensitive:
		return 0.9
	case Abbreviation:
		return 0.8
	case Prefix:
		return 0.5 + 0.2*float64(phraseRunes)/float64(max(valueRunes, 1))
	case Typo:
		return 0.4 * (1 - float64(dist)/float64(max(valueRunes, phraseRunes, 1)))
	}
	return 0
}
