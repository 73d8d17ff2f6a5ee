package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/clarify-bot/clarify/connectors/lexicon/internal/format"
)

// miniWordNet is a tiny dictionary in WordNet 3.0's file formats, with the
// cases the generator handles: a licence header, lexical and semantic
// pointers across parts of speech, an instance synset, an adjective
// satellite, a definition that names a stem-sharing word, a lemma the
// alphabet filter drops, exception lists and SemCor counts.
var miniWordNet = map[string]string{
	"index.noun": `  1 This software and database is being provided to you, the LICENSEE, by
child n 1 1 @ 1 1 00000700  
country n 1 1 @ 1 1 00000500  
nation n 2 2 @ @i 2 1 00000500 00000600  
operation n 2 2 @ + 2 1 00000100 00000200  
pay n 1 1 @ 1 1 00000300  
salary n 1 1 @ 1 0 00000300  
surgery n 1 1 @ 1 0 00000200  
u.s. n 1 1 @ 1 0 00000800  
wage n 1 1 @ 1 0 00000300  
weight n 1 1 @ 1 1 00000400  
`,
	"data.noun": `  1 This software and database is being provided to you, the LICENSEE, by
00000100 04 n 01 operation 0 001 + 00000100 v 0101 | the act of operating; "the operation of the plant"  
00000200 04 n 02 operation 1 surgery 0 000 | a medical procedure  
00000300 21 n 03 wage 0 pay 0 salary 0 000 | something that remunerates  
00000400 07 n 01 weight 0 000 | the vertical force exerted by a mass  
00000500 14 n 02 nation 0 country 0 000 | a politically organized body of people  
00000600 18 n 02 Nation 0 Carry_Nation 0 001 @i 00000500 n 0000 | a temperance crusader  
00000700 18 n 01 child 0 000 | a young person  
00000800 15 n 01 U.S. 0 000 | a country in North America  
`,
	"index.verb": `operate v 1 1 + 1 1 00000100  
run v 1 1 + 1 0 00000100  
weigh v 1 1 @ 1 1 00000200  
`,
	"data.verb": `00000100 41 v 02 operate 0 run 0 001 + 00000100 n 0101 01 + 08 00 | direct or control  
00000200 42 v 01 weigh 0 000 01 + 08 00 | have a certain weight  
`,
	"index.adj": `operating a 1 1 & 1 1 00000100  
operational a 1 1 & 1 1 00000100  
`,
	"data.adj": `00000100 00 s 02 operational 0 operating(a) 0 000 | being in effect  
`,
	"index.adv": "",
	"data.adv":  "",
	"noun.exc":  "children child\nu.s. us\n",
	"verb.exc":  "ran run\nran rin\n",
	"adj.exc":   "",
	"adv.exc":   "",
	"cntlist.rev": `operate%2:41:00:: 1 82
pay%1:21:00:: 1 14
operating%5:00:00:operational:00 1 2
u.s.%1:15:00:: 1 3
`,
}

func writeMini(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range miniWordNet {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readOutput(t *testing.T, path string) *format.Data {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	d, err := format.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGenerateMini(t *testing.T) {
	dir := writeMini(t)
	out := filepath.Join(t.TempDir(), "lexicon.bin.gz")
	if err := run(dir, out, options{senses: 5, glossSenses: 2}); err != nil {
		t.Fatalf("run: %v", err)
	}
	d := readOutput(t, out)

	wantLemmas := []string{"child", "country", "nation", "operate", "operating", "operation", "operational",
		"pay", "run", "salary", "surgery", "wage", "weigh", "weight"}
	if !slices.Equal(d.Lemmas, wantLemmas) {
		t.Fatalf("lemmas = %q, want %q (u.s. filtered out)", d.Lemmas, wantLemmas)
	}
	id := func(s string) uint32 { return uint32(slices.Index(d.Lemmas, s)) }
	related := func(s string) []string {
		var out []string
		for _, r := range d.Rel[d.RelStart[id(s)]:d.RelStart[id(s)+1]] {
			out = append(out, d.Lemmas[r])
		}
		return out
	}

	t.Run("readings", func(t *testing.T) {
		tests := []struct {
			lemma string
			pos   int
			want  format.Reading
		}{
			{"operation", 0, format.Reading{Synsets: 2, Tagged: 1}},
			{"operate", 1, format.Reading{Synsets: 1, Tagged: 1, Freq: 82}},
			{"pay", 0, format.Reading{Synsets: 1, Tagged: 1, Freq: 14}},
			{"operating", 2, format.Reading{Synsets: 1, Tagged: 1, Freq: 2}}, // satellite key 5 counts as adjective
			{"operating", 0, format.Reading{}},
		}
		for _, tt := range tests {
			if got := d.Readings[id(tt.lemma)][tt.pos]; got != tt.want {
				t.Errorf("reading of %s/%d = %+v, want %+v", tt.lemma, tt.pos, got, tt.want)
			}
		}
	})
	t.Run("exceptions keep only bases in the index", func(t *testing.T) {
		want := [format.NumPOS][]format.Exception{
			{{Form: "children", Bases: []uint32{id("child")}}},
			{{Form: "ran", Bases: []uint32{id("run")}}},
		}
		if !equalExceptions(d.Except, want) {
			t.Errorf("exceptions = %+v, want %+v", d.Except, want)
		}
	})
	t.Run("related", func(t *testing.T) {
		tests := map[string][]string{
			"operate":     {"operation", "run"},   // derivation, synonym
			"operation":   {"operate", "surgery"}, // derivation back, synonym of sense 2
			"operating":   {"operational"},        // adjective synset
			"nation":      {"country"},            // not "carry nation": instance synset
			"pay":         {"salary", "wage"},     // synonyms
			"weigh":       {"weight"},             // from the definition
			"weight":      {"weigh"},              // and back
			"run":         {"operate"},
			"child":       nil,
			"operational": {"operating"},
			"salary":      {"pay", "wage"},
			"surgery":     {"operation"},
			"country":     {"nation"},
			"wage":        {"pay", "salary"},
		}
		for lemma, want := range tests {
			if got := related(lemma); !slices.Equal(got, want) {
				t.Errorf("related(%s) = %q, want %q", lemma, got, want)
			}
		}
	})
}

func equalExceptions(a, b [format.NumPOS][]format.Exception) bool {
	for p := range a {
		if !slices.EqualFunc(a[p], b[p], func(x, y format.Exception) bool {
			return x.Form == y.Form && slices.Equal(x.Bases, y.Bases)
		}) {
			return false
		}
	}
	return true
}

func TestGenerateIsDeterministic(t *testing.T) {
	dir := writeMini(t)
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a.gz"), filepath.Join(tmp, "b.gz")
	for _, out := range []string{a, b} {
		if err := run(dir, out, options{senses: 5, glossSenses: 2}); err != nil {
			t.Fatal(err)
		}
	}
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if !bytes.Equal(x, y) {
		t.Error("two runs on the same input differ")
	}
}

func TestGenerateReportsMissingFiles(t *testing.T) {
	if err := run(t.TempDir(), filepath.Join(t.TempDir(), "x.gz"), options{senses: 5}); err == nil {
		t.Error("run on an empty directory succeeded")
	}
}

// TestEmbeddedDataIsCurrent regenerates the package's data from the
// installed WordNet, when there is one, and compares it with the committed
// file, so that a change to the generator cannot go unregenerated.
func TestEmbeddedDataIsCurrent(t *testing.T) {
	const wordnet = "/usr/share/wordnet"
	if _, err := os.Stat(filepath.Join(wordnet, "index.noun")); err != nil {
		t.Skip("WordNet is not installed (apt-get install wordnet-base)")
	}
	if testing.Short() {
		t.Skip("regenerating takes seconds")
	}
	out := filepath.Join(t.TempDir(), "lexicon.bin.gz")
	if err := run(wordnet, out, options{senses: 5, glossSenses: 2}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	want, err := os.ReadFile("../../lexicon.bin.gz")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("lexicon.bin.gz is stale: run go generate ./connectors/lexicon")
	}
}

func TestNormalize(t *testing.T) {
	tests := map[string]string{
		"Carry_Nation":  "carry nation",
		"operating(a)":  "operating",
		"e-mail":        "e-mail",
		"o'clock":       "o'clock",
		"u.s.":          "",
		"1-hitter":      "",
		"-":             "",
		"power_station": "power station",
	}
	for in, want := range tests {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStemKin(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"weigh", "weight", true},
		{"operate", "operation", true},
		{"enlarged", "enlargement", true},
		{"accept", "acceptance", true},
		{"pay", "payment", false},  // stem too short to trust
		{"road", "roadbed", false}, // a compound, not a suffix
		{"short", "shorthorn", false},
		{"serbia", "serb", false}, // "ia" is no derivational suffix here
		{"weigh", "weigh", false}, // no suffix
		// Spelling alone relates these; what keeps them apart is that
		// neither word's definition uses the other.
		{"country", "count", true},
	}
	for _, tt := range tests {
		if got := stemKin(tt.a, tt.b); got != tt.want {
			t.Errorf("stemKin(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
