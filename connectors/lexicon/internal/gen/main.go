// Command gen extracts the lexicon's embedded data from a WordNet 3.0
// installation (Debian's wordnet-base puts it in /usr/share/wordnet):
//
//	go run ./connectors/lexicon/internal/gen -wordnet /usr/share/wordnet -out connectors/lexicon/lexicon.bin.gz
//
// It reads index.{noun,verb,adj,adv}, data.*, the *.exc exception lists and
// cntlist.rev, and writes the layout of package format, gzip-compressed. The
// output depends only on the input files and the flags.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/connectors/lexicon/internal/format"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet 3.0 dict directory")
	out := flag.String("out", "connectors/lexicon/lexicon.bin.gz", "output file")
	senses := flag.Int("senses", 5, "synonyms come from the first this many senses of each lemma and part of speech")
	glossSenses := flag.Int("gloss-senses", 2, "stem-sharing words of the definitions of this many first senses are related (0: none)")
	show := flag.Bool("show-gloss-kin", false, "print the links found in definitions to standard error")
	flag.Parse()
	if err := run(*dir, *out, options{*senses, *glossSenses, *show}); err != nil {
		log.Fatal(err)
	}
}

// options are the generator's choices of which relations to keep.
type options struct {
	senses, glossSenses int
	showGlossKin        bool
}

func run(dir, out string, opt options) error {
	wn, err := readWordNet(dir)
	if err != nil {
		return err
	}
	d := wn.build(opt)
	var raw bytes.Buffer
	if err := format.Encode(&raw, d); err != nil {
		return err
	}
	var zipped bytes.Buffer
	zw, err := gzip.NewWriterLevel(&zipped, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("gzip: %w", err)
	}
	if err := os.WriteFile(out, zipped.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	log.Printf("%d lemmas, %d exceptions, %d related entries, %d broader entries; %d bytes raw, %d gzipped",
		len(d.Lemmas), len(d.Except[0])+len(d.Except[1])+len(d.Except[2])+len(d.Except[3]),
		len(d.Rel), len(d.Broad), raw.Len(), zipped.Len())
	return nil
}

// Parts of speech in format order, with their file names.
var posFiles = [format.NumPOS]string{"noun", "verb", "adj", "adv"}

// posIndex maps a WordNet synset type letter to the format's index.
func posIndex(c byte) (int, bool) {
	switch c {
	case 'n':
		return 0, true
	case 'v':
		return 1, true
	case 'a', 's':
		return 2, true
	case 'r':
		return 3, true
	}
	return 0, false
}

// synKey identifies a synset: its part of speech and byte offset.
type synKey struct {
	pos    int
	offset uint32
}

type indexEntry struct {
	tagged  int
	synsets []synKey // in sense order, most frequent first
}

type pointer struct {
	symbol   string
	target   synKey
	src, tgt int // word numbers, 1-based; 0 for a pointer between synsets
}

type synset struct {
	satellite bool
	instance  bool     // an instance (a named thing), whose members are names
	gloss     string   // definition, without the quoted examples
	words     []string // normalized lemmas; "" for words that the filter drops
	pointers  []pointer
}

type wordNet struct {
	index  map[string]*[format.NumPOS]*indexEntry
	data   map[synKey]*synset
	except [format.NumPOS]map[string][]string
	freq   map[string]*[format.NumPOS]uint32
}

func readWordNet(dir string) (*wordNet, error) {
	wn := &wordNet{
		index: map[string]*[format.NumPOS]*indexEntry{},
		data:  map[synKey]*synset{},
		freq:  map[string]*[format.NumPOS]uint32{},
	}
	for p, name := range posFiles {
		if err := eachLine(filepath.Join(dir, "index."+name), func(line string) error { return wn.indexLine(p, line) }); err != nil {
			return nil, err
		}
		if err := eachLine(filepath.Join(dir, "data."+name), func(line string) error { return wn.dataLine(p, line) }); err != nil {
			return nil, err
		}
		wn.except[p] = map[string][]string{}
		if err := eachLine(filepath.Join(dir, name+".exc"), func(line string) error { return wn.excLine(p, line) }); err != nil {
			return nil, err
		}
	}
	if err := eachLine(filepath.Join(dir, "cntlist.rev"), wn.countLine); err != nil {
		return nil, err
	}
	return wn, nil
}

func eachLine(path string, f func(string) error) error {
	file, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read wordnet: %w", err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == ' ' { // licence header
			continue
		}
		if err := f(line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// normalize lower-cases a WordNet word, drops an adjective marker such as
// "(p)" and joins its words with spaces. It returns "" for words outside the
// kept alphabet: letters, hyphen, apostrophe and the word separator.
func normalize(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	w = strings.ToLower(w)
	letters := 0
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'a' && c <= 'z':
			letters++
		case c == '-' || c == '\'' || c == '_':
		default:
			return ""
		}
	}
	if letters == 0 {
		return ""
	}
	return strings.ReplaceAll(w, "_", " ")
}

var errShort = errors.New("line too short")

func (wn *wordNet) indexLine(p int, line string) error {
	f := strings.Fields(line)
	if len(f) < 6 {
		return errShort
	}
	lemma := normalize(f[0])
	if lemma == "" {
		return nil
	}
	pcnt, err := strconv.Atoi(f[3])
	if err != nil || len(f) < 6+pcnt {
		return fmt.Errorf("bad pointer count %q", f[3])
	}
	rest := f[4+pcnt:]
	nsense, err1 := strconv.Atoi(rest[0])
	tagged, err2 := strconv.Atoi(rest[1])
	if err := errors.Join(err1, err2); err != nil || len(rest) != 2+nsense {
		return fmt.Errorf("bad sense counts in %q", line)
	}
	e := &indexEntry{tagged: tagged}
	for _, o := range rest[2:] {
		off, err := strconv.ParseUint(o, 10, 32)
		if err != nil {
			return fmt.Errorf("bad offset %q: %w", o, err)
		}
		e.synsets = append(e.synsets, synKey{p, uint32(off)})
	}
	entries := wn.index[lemma]
	if entries == nil {
		entries = new([format.NumPOS]*indexEntry)
		wn.index[lemma] = entries
	}
	if entries[p] != nil {
		return fmt.Errorf("lemma %q listed twice", lemma)
	}
	entries[p] = e
	return nil
}

func (wn *wordNet) dataLine(p int, line string) error {
	bar := strings.IndexByte(line, '|')
	if bar < 0 {
		return errors.New("no gloss separator")
	}
	f := strings.Fields(line[:bar])
	if len(f) < 4 {
		return errShort
	}
	off, err := strconv.ParseUint(f[0], 10, 32)
	if err != nil {
		return fmt.Errorf("bad offset: %w", err)
	}
	s := &synset{satellite: f[2] == "s", gloss: definition(line[bar+1:])}
	wcnt, err := strconv.ParseUint(f[3], 16, 8)
	if err != nil || len(f) < 5+2*int(wcnt) {
		return fmt.Errorf("bad word count %q", f[3])
	}
	for i := range int(wcnt) {
		s.words = append(s.words, normalize(f[4+2*i]))
	}
	rest := f[4+2*wcnt:]
	pcnt, err := strconv.Atoi(rest[0])
	if err != nil || len(rest) < 1+4*pcnt {
		return fmt.Errorf("bad pointer count %q", rest[0])
	}
	for i := range pcnt {
		ptr := rest[1+4*i : 5+4*i]
		toff, err := strconv.ParseUint(ptr[1], 10, 32)
		if err != nil {
			return fmt.Errorf("bad pointer offset %q: %w", ptr[1], err)
		}
		tp, ok := posIndex(ptr[2][0])
		if !ok || len(ptr[3]) != 4 {
			return fmt.Errorf("bad pointer %v", ptr)
		}
		st, err := strconv.ParseUint(ptr[3], 16, 16)
		if err != nil {
			return fmt.Errorf("bad pointer words %q: %w", ptr[3], err)
		}
		s.instance = s.instance || ptr[0] == "@i"
		s.pointers = append(s.pointers, pointer{
			symbol: ptr[0], target: synKey{tp, uint32(toff)},
			src: int(st >> 8), tgt: int(st & 0xff),
		})
	}
	wn.data[synKey{p, uint32(off)}] = s
	return nil
}

// definition cuts the quoted examples off a gloss.
func definition(gloss string) string {
	if i := strings.IndexByte(gloss, '"'); i >= 0 {
		gloss = gloss[:i]
	}
	return strings.TrimSpace(gloss)
}

func (wn *wordNet) excLine(p int, line string) error {
	f := strings.Fields(line)
	if len(f) < 2 {
		return errShort
	}
	form := normalize(f[0])
	if form == "" {
		return nil
	}
	for _, b := range f[1:] {
		if b := normalize(b); b != "" && !slices.Contains(wn.except[p][form], b) {
			wn.except[p][form] = append(wn.except[p][form], b)
		}
	}
	return nil
}

// countLine reads cntlist.rev: "lemma%ss_type:lex_filenum:lex_id:head:head_id sense_number tag_cnt".
func (wn *wordNet) countLine(line string) error {
	f := strings.Fields(line)
	if len(f) != 3 {
		return errShort
	}
	pct := strings.IndexByte(f[0], '%')
	if pct < 0 || pct+1 >= len(f[0]) {
		return fmt.Errorf("bad sense key %q", f[0])
	}
	lemma := normalize(f[0][:pct])
	if lemma == "" {
		return nil
	}
	t := f[0][pct+1]
	if t < '1' || t > '5' {
		return fmt.Errorf("bad synset type in %q", f[0])
	}
	p, _ := posIndex("nvars"[t-'1'])
	n, err := strconv.ParseUint(f[2], 10, 32)
	if err != nil {
		return fmt.Errorf("bad count %q: %w", f[2], err)
	}
	c := wn.freq[lemma]
	if c == nil {
		c = new([format.NumPOS]uint32)
		wn.freq[lemma] = c
	}
	c[p] += uint32(n)
	return nil
}

// build assembles the format's data. Related lemmas of a lemma are:
//   - the other members of its first `senses` synsets in each part of speech,
//     except synsets of named instances ("Carry Nation" is no synonym of
//     "nation");
//   - for those synsets that are adjective satellites, the members of the
//     head synset they are similar to;
//   - in every sense, the targets of its lexical derivation (+), pertainym
//     (\) and participle (<) pointers, in both directions;
//   - stem-sharing words of its first definitions (see glossKin).
func (wn *wordNet) build(opt options) *format.Data {
	d := &format.Data{}
	for lemma := range wn.index {
		d.Lemmas = append(d.Lemmas, lemma)
	}
	slices.Sort(d.Lemmas)
	id := make(map[string]uint32, len(d.Lemmas))
	for i, l := range d.Lemmas {
		id[l] = uint32(i)
	}
	d.Readings = make([][format.NumPOS]format.Reading, len(d.Lemmas))
	for i, l := range d.Lemmas {
		for p, e := range wn.index[l] {
			if e == nil {
				continue
			}
			r := &d.Readings[i][p]
			r.Synsets = uint16(len(e.synsets))
			r.Tagged = uint16(e.tagged)
			if c := wn.freq[l]; c != nil {
				r.Freq = c[p]
			}
		}
	}
	for p, m := range wn.except {
		for _, form := range slices.Sorted(maps.Keys(m)) {
			var bases []uint32
			for _, b := range m[form] {
				if i, ok := id[b]; ok && wn.index[b][p] != nil {
					bases = append(bases, i)
				}
			}
			if len(bases) > 0 {
				d.Except[p] = append(d.Except[p], format.Exception{Form: form, Bases: bases})
			}
		}
	}
	rel := wn.related(id, d.Lemmas, opt.senses)
	if n := wn.glossKin(id, d.Lemmas, opt.glossSenses, rel, opt.showGlossKin); n > 0 {
		log.Printf("%d links from definitions", n)
	}
	broad := wn.broader(id, d.Lemmas)
	d.BroadStart = make([]uint32, len(d.Lemmas)+1)
	for i, r := range broad {
		slices.Sort(r)
		r = slices.Compact(r)
		r = slices.DeleteFunc(r, func(x uint32) bool { return x == uint32(i) })
		d.Broad = append(d.Broad, r...)
		d.BroadStart[i+1] = uint32(len(d.Broad))
	}
	d.RelStart = make([]uint32, len(d.Lemmas)+1)
	for i, r := range rel {
		slices.Sort(r)
		r = slices.Compact(r)
		r = slices.DeleteFunc(r, func(x uint32) bool { return x == uint32(i) })
		d.Rel = append(d.Rel, r...)
		d.RelStart[i+1] = uint32(len(d.Rel))
	}
	return d
}

// related collects, per lemma index, the lemmas that WordNet's synsets and
// pointers relate to it (see build); the lists are neither sorted nor unique.
func (wn *wordNet) related(id map[string]uint32, lemmas []string, senses int) [][]uint32 {
	rel := make([][]uint32, len(lemmas))
	add := func(from uint32, words ...string) {
		for _, w := range words {
			if to, ok := id[w]; ok {
				rel[from] = append(rel[from], to)
			}
		}
	}
	for i, l := range lemmas {
		from := uint32(i)
		for _, e := range wn.index[l] {
			if e == nil {
				continue
			}
			for rank, key := range e.synsets {
				s := wn.data[key]
				if s == nil {
					continue
				}
				if rank < senses && !s.instance {
					add(from, s.words...)
					if s.satellite {
						for _, ptr := range s.pointers {
							if ptr.symbol == "&" && wn.data[ptr.target] != nil {
								add(from, wn.data[ptr.target].words...)
							}
						}
					}
				}
				self := slices.Index(s.words, l) + 1
				for _, ptr := range s.pointers {
					if !lexicalKinship(ptr.symbol) || (ptr.src != 0 && ptr.src != self) {
						continue
					}
					t := wn.data[ptr.target]
					if t == nil {
						continue
					}
					for j, w := range t.words {
						if ptr.tgt == 0 || ptr.tgt == j+1 {
							add(from, w)
							if to, ok := id[w]; ok {
								rel[to] = append(rel[to], from)
							}
						}
					}
				}
			}
		}
	}
	return rel
}

// Broader senses: the hypernyms (@) of a noun lemma's first broadSenses
// senses, and theirs, up to broadDepth levels ("truck" → motor vehicle →
// self-propelled vehicle → wheeled vehicle → vehicle).
const (
	broadSenses = 2
	broadDepth  = 4
)

// broader collects, per lemma index, the lemmas of its broader senses;
// the lists are neither sorted nor unique.
func (wn *wordNet) broader(id map[string]uint32, lemmas []string) [][]uint32 {
	out := make([][]uint32, len(lemmas))
	for i, l := range lemmas {
		e := wn.index[l][0]
		if e == nil {
			continue
		}
		frontier := e.synsets[:min(broadSenses, len(e.synsets))]
		for range broadDepth {
			var next []synKey
			for _, key := range frontier {
				s := wn.data[key]
				if s == nil || s.instance {
					continue
				}
				for _, ptr := range s.pointers {
					if ptr.symbol != "@" || wn.data[ptr.target] == nil {
						continue
					}
					next = append(next, ptr.target)
					for _, w := range wn.data[ptr.target].words {
						if to, ok := id[w]; ok {
							out[i] = append(out[i], to)
						}
					}
				}
			}
			frontier = next
		}
	}
	return out
}

// lexicalKinship reports pointers that relate forms of one stem: derivation,
// pertainym (and "derived from adjective" for adverbs) and participle.
func lexicalKinship(symbol string) bool {
	return symbol == "+" || symbol == `\` || symbol == "<"
}
