package words

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestEveryFileParses: the embedded files load, each set with a word on
// every line and the same fields throughout, and each file explains itself
// in a comment before its first word.
func TestEveryFileParses(t *testing.T) {
	sets, err := parseAll(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) == 0 {
		t.Fatal("no sets")
	}
	names, _ := files.ReadDir(".")
	for _, f := range names {
		b, err := files.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "# ") {
			t.Errorf("%s: no comment line saying what the file holds", f.Name())
		}
	}
	for _, name := range Names() {
		for _, e := range Entries(name) {
			if e.Word != strings.ToLower(e.Word) {
				t.Errorf("set %q: %q: words are lower case, as the engine compares them", name, e.Word)
			}
		}
	}
}

// TestParseRejects: what parseAll refuses, so the test above can fail.
func TestParseRejects(t *testing.T) {
	for _, tc := range []struct{ name, a, b, want string }{
		{"duplicate word", "# x\nno\tneg\nnot\tneg\nno\tneg\n", "", `"no" is in set "neg" already`},
		{"field count", "# x\nsum\tagg\tSUM\navg\tagg\n", "", `has 0 fields, set "agg" has 1`},
		{"no set", "# x\nlonely\n", "", "want a word and its set"},
		{"set in two files", "# x\nno\tneg\n", "# y\nnot\tneg\n", `set "neg" is already in a.tsv`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"a.tsv": {Data: []byte(tc.a)}}
			if tc.b != "" {
				fsys["b.tsv"] = &fstest.MapFile{Data: []byte(tc.b)}
			}
			_, err := parseAll(fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestLoaders: the typed views of a set agree with its lines.
func TestLoaders(t *testing.T) {
	if s := Superlatives()["cheapest"]; s.Desc || s.Measure != "price" {
		t.Errorf("cheapest: %+v, want lowest by price", s)
	}
	if s := Superlatives()["most"]; !s.Desc || s.Measure != "" {
		t.Errorf("most: %+v, want highest by what is counted", s)
	}
	if m := Measures()["height"]; len(m) == 0 || m[0] != "elevation" {
		t.Errorf("height: %v", m)
	}
	// A copy: changing it changes nothing for the next caller.
	Set("how")["big"] = false
	if !Set("how")["big"] {
		t.Error("a caller's change reached the table")
	}
}
