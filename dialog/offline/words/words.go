// Package words is the offline engine's closed-class English word
// knowledge: the function words, negations, aggregates, comparisons,
// periods, number words and the like that the engine reads questions with,
// kept as data rather than written into Go.
//
// Each .tsv file holds one kind of word. A line is a word (or a phrase of
// words separated by spaces), the name of the set it belongs to, and any
// fields that set gives its words, separated by tabs; "#" starts a comment
// line and blank lines are skipped. Every file opens with a comment saying
// what its sets mean. Adding a word is one line in its file; the engine
// refers to sets by name (Set("negation")), so no Go changes.
//
// The files are embedded and parsed once, on first use; what the loaders
// return is the caller's own copy.
package words

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed *.tsv
var files embed.FS

// Entry is one line of a word file: its word or phrase and the fields
// after the set's name.
type Entry struct {
	Word   string
	Fields []string
}

// set is the entries of one named set, in file order.
type set struct {
	file    string
	fields  int // fields after the set's name, the same on every line
	entries []Entry
}

var (
	loadOnce sync.Once
	loaded   map[string]*set
	loadErr  error
)

// table parses the embedded files once.
func table() map[string]*set {
	loadOnce.Do(func() { loaded, loadErr = parseAll(files) })
	if loadErr != nil {
		panic(fmt.Sprintf("words: %v", loadErr)) // embedded data: as good as a build error
	}
	return loaded
}

// parseAll reads every .tsv file of fsys into its sets. A set lives in one
// file, its lines all have the same number of fields, and no word is in a
// set twice.
func parseAll(fsys fs.FS) (map[string]*set, error) {
	names, err := fs.Glob(fsys, "*.tsv")
	if err != nil {
		return nil, fmt.Errorf("list word files: %w", err)
	}
	sets := map[string]*set{}
	for _, name := range names {
		if err := parseFile(fsys, name, sets); err != nil {
			return nil, err
		}
	}
	return sets, nil
}

func parseFile(fsys fs.FS, name string, sets map[string]*set) error {
	f, err := fsys.Open(name)
	if err != nil {
		return fmt.Errorf("open %s: %w", name, err)
	}
	defer f.Close()
	seen := map[[2]string]int{} // set and word → line
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		row := strings.Split(line, "\t")
		for i := range row {
			row[i] = strings.TrimSpace(row[i])
		}
		if len(row) < 2 || row[0] == "" || row[1] == "" {
			return fmt.Errorf("%s line %d: want a word and its set, tab-separated", name, n)
		}
		word := strings.Join(strings.Fields(row[0]), " ")
		s := sets[row[1]]
		switch {
		case s == nil:
			s = &set{file: name, fields: len(row) - 2}
			sets[row[1]] = s
		case s.file != name:
			return fmt.Errorf("%s line %d: set %q is already in %s", name, n, row[1], s.file)
		case len(row)-2 != s.fields:
			return fmt.Errorf("%s line %d: %q has %d fields, set %q has %d", name, n, word, len(row)-2, row[1], s.fields)
		}
		if at, dup := seen[[2]string{row[1], word}]; dup {
			return fmt.Errorf("%s line %d: %q is in set %q already (line %d)", name, n, word, row[1], at)
		}
		seen[[2]string{row[1], word}] = n
		s.entries = append(s.entries, Entry{Word: word, Fields: row[2:]})
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	return nil
}

func lookup(name string) *set {
	s := table()[name]
	if s == nil {
		panic(fmt.Sprintf("words: no set %q", name)) // a typo in Go code
	}
	return s
}

// Names lists the sets of the files, sorted, and File says which file
// holds one; for tests that try every set.
func Names() []string {
	var out []string
	for n := range table() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// File is the file (without ".tsv") that holds the set.
func File(name string) string {
	return strings.TrimSuffix(path.Base(lookup(name).file), ".tsv")
}

// Entries are the lines of a set, in file order.
func Entries(name string) []Entry {
	s := lookup(name)
	out := make([]Entry, len(s.entries))
	for i, e := range s.entries {
		out[i] = Entry{Word: e.Word, Fields: append([]string(nil), e.Fields...)}
	}
	return out
}

// List is the words of a set in file order, for sets whose order matters
// (the first match wins).
func List(name string) []string {
	var out []string
	for _, e := range lookup(name).entries {
		out = append(out, e.Word)
	}
	return out
}

// Set is the words of a set.
func Set(name string) map[string]bool {
	out := map[string]bool{}
	for _, e := range lookup(name).entries {
		out[e.Word] = true
	}
	return out
}

// Map is the words of a set with their first field.
func Map(name string) map[string]string {
	out := map[string]string{}
	for _, e := range lookup(name).entries {
		out[e.Word] = e.field(name, 0)
	}
	return out
}

// Numbers is the words of a set with their first field, a number.
func Numbers(name string) map[string]float64 {
	out := map[string]float64{}
	for _, e := range lookup(name).entries {
		v, err := strconv.ParseFloat(e.field(name, 0), 64)
		if err != nil {
			panic(fmt.Sprintf("words: set %q: %q: %v", name, e.Word, err))
		}
		out[e.Word] = v
	}
	return out
}

// Ints is the words of a set with their first field, a whole number.
func Ints(name string) map[string]int {
	out := map[string]int{}
	for w, v := range Numbers(name) {
		if v != float64(int(v)) {
			panic(fmt.Sprintf("words: set %q: %q: %v is not a whole number", name, w, v))
		}
		out[w] = int(v)
	}
	return out
}

// Flags is the words of a set, each true when its first field is yes
// and false when it is no ("highest" in a set of directions).
func Flags(name, yes, no string) map[string]bool {
	out := map[string]bool{}
	for _, e := range lookup(name).entries {
		switch f := e.field(name, 0); f {
		case yes, no:
			out[e.Word] = f == yes
		default:
			panic(fmt.Sprintf("words: set %q: %q: %q, want %s or %s", name, e.Word, f, yes, no))
		}
	}
	return out
}

func (e Entry) field(set string, i int) string {
	if i >= len(e.Fields) {
		panic(fmt.Sprintf("words: set %q has no field %d", set, i+1))
	}
	return e.Fields[i]
}

// Superlative is a ranking word (superlatives.tsv): the direction it ranks
// in and the measure (of measures.tsv) it ranks by when the question names
// none, "" for whatever the question counts.
type Superlative struct {
	Desc    bool
	Measure string
}

// Superlatives are the ranking words by word.
func Superlatives() map[string]Superlative {
	out := map[string]Superlative{}
	for _, e := range Entries("superlative") {
		dir, measure := e.field("superlative", 0), e.field("superlative", 1)
		if dir != "highest" && dir != "lowest" {
			panic(fmt.Sprintf("words: superlative %q: direction %q, want highest or lowest", e.Word, dir))
		}
		if measure == "-" {
			measure = ""
		}
		out[e.Word] = Superlative{Desc: dir == "highest", Measure: measure}
	}
	return out
}

// Measures are the words of the column names that hold each measure,
// likeliest first.
func Measures() map[string][]string {
	out := map[string][]string{}
	for _, e := range Entries("measure") {
		out[e.Word] = strings.Fields(e.field("measure", 0))
	}
	return out
}

// HowAdjectives map "big" of "how big" to the measure it asks for.
func HowAdjectives() map[string]string { return Map("how") }
