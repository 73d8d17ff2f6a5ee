package catalog

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// brief renders hits compactly for comparison: "table.column=Value/kind".
func brief(hits []ValueHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s.%s=%s/%s", h.Table, h.Column, h.Value, h.Match)
	}
	return out
}

func TestCatalogSearchValues(t *testing.T) {
	c := mustCatalog(t, Options{})
	tests := []struct {
		phrase string
		want   []string
	}{
		{"texas", []string{
			"customers.state=Texas/case-insensitive",
			"states.name=Texas/case-insensitive",
			"orders.ship_state=TX/abbreviation",
			"states.code=TX/abbreviation",
		}},
		{"Texas", []string{
			"customers.state=Texas/exact",
			"states.name=Texas/exact",
			"orders.ship_state=TX/abbreviation",
			"states.code=TX/abbreviation",
		}},
		{"TX", []string{
			"orders.ship_state=TX/exact",
			"states.code=TX/exact",
			"customers.state=Texas/abbreviation",
			"states.name=Texas/abbreviation",
		}},
		// The alias is looked up case-insensitively too.
		{"tx", []string{
			"orders.ship_state=TX/case-insensitive",
			"states.code=TX/case-insensitive",
			"customers.state=Texas/abbreviation",
			"states.name=Texas/abbreviation",
		}},
		// Two letters: no prefix search, so "California" only by alias.
		{"ca", []string{
			"orders.ship_state=CA/case-insensitive",
			"states.code=CA/case-insensitive",
			"customers.state=California/abbreviation",
			"states.name=California/abbreviation",
		}},
		{"Tex", []string{"customers.state=Texas/prefix", "states.name=Texas/prefix"}},
		{"Texsa", []string{"customers.state=Texas/typo", "states.name=Texas/typo"}},
		{"califonia", []string{"customers.state=California/typo", "states.name=California/typo"}},
		{"new york", []string{"customers.state=New York/case-insensitive", "states.name=New York/case-insensitive"}},
		{"  NEW \t YORK ", []string{"customers.state=New York/case-insensitive", "states.name=New York/case-insensitive"}},
		{"new yrok", []string{"customers.state=New York/typo", "states.name=New York/typo"}},
		{"bay area", []string{"customers.region=Bay Area/case-insensitive"}},
		{"Bay Area", []string{"customers.region=Bay Area/exact"}},
		{"bay", []string{"customers.region=Bay Area/prefix"}},
		{"shiped", []string{"orders.status=shipped/typo"}},
		{"Carla Texeira", []string{"customers.name=Carla Texeira/exact"}},
		// Dates and numbers are not text columns: not in the value index.
		{"2024-01-03", []string{}},
		{"zebra", []string{}},
		{"", []string{}},
		{"   ", []string{}},
		{"🙂", []string{}},
		{"🙂🙂🙂🙂🙂", []string{}},
		{strings.Repeat("texas ", 1700), []string{}},
		{strings.Repeat("x", 10000), []string{}},
	}
	for _, tt := range tests {
		name := tt.phrase
		if len(name) > 20 {
			name = name[:20] + "…"
		}
		t.Run(name, func(t *testing.T) {
			got := brief(c.SearchValues(tt.phrase, 10))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("SearchValues(%q) =\n%q\nwant\n%q", name, got, tt.want)
			}
		})
	}
}

func TestValueIndexOrdering(t *testing.T) {
	b := NewValueIndexBuilder()
	b.Add("t", "exact", "Texas")
	b.Add("t", "lower", "texas")
	b.Add("t", "code", "TX")
	b.Add("t", "long", "Texas Panhandle")
	b.Add("t", "longer", "Texas Hill Country")
	b.Add("t", "typo1", "Texos")
	b.Add("t", "typo1", "Teas")
	b.Add("b", "same", "Texas")  // same value in two columns: table name orders them
	b.Add("t", "exact", "Texas") // duplicates are harmless
	b.AddAlias("TX", "Texas")
	x := b.Build()
	want := []string{
		"b.same=Texas/exact",
		"t.exact=Texas/exact",
		"t.lower=texas/case-insensitive",
		"t.code=TX/abbreviation",
		"t.long=Texas Panhandle/prefix",
		"t.longer=Texas Hill Country/prefix",
		// No typos: "Texas" is a stored value, so "Texos" is not what
		// the user meant.
	}
	tests := []struct {
		name  string
		limit int
		want  []string
	}{
		{"all", 20, want},
		{"cut", 3, want[:3]},
		{"one", 1, want[:1]},
		{"none", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := x.Search("Texas", tt.limit)
			got := brief(hits)
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Search(Texas) =\n%q\nwant\n%q", got, tt.want)
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("score of %v above the hit before it", hits[i])
				}
			}
		})
	}
}

func TestValueIndexTyposAfterPrefixes(t *testing.T) {
	b := NewValueIndexBuilder()
	for _, v := range []string{"Texas City", "Texas", "Texan", "Tema", "Tx"} {
		b.Add("t", "c", v)
	}
	x := b.Build()
	got := brief(x.Search("Texa", 10))
	want := []string{"t.c=Texan/prefix", "t.c=Texas/prefix", "t.c=Texas City/prefix", "t.c=Tema/typo"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Search(Texa) = %q, want %q", got, want)
	}
}

func TestValueIndexShorterFirst(t *testing.T) {
	b := NewValueIndexBuilder()
	for _, v := range []string{"San Francisco", "San Jose", "San Diego", "Santa Fe", "San Antonio"} {
		b.Add("cities", "name", v)
	}
	x := b.Build()
	got := brief(x.Search("san", 3))
	want := []string{"cities.name=San Jose/prefix", "cities.name=Santa Fe/prefix", "cities.name=San Diego/prefix"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Search(san) = %q, want %q", got, want)
	}
}

func TestValueIndexTypoBudget(t *testing.T) {
	b := NewValueIndexBuilder()
	for _, v := range []string{"Utah", "Ohio", "California", "Massachusetts", "Oregon"} {
		b.Add("states", "name", v)
	}
	x := b.Build()
	tests := []struct {
		phrase string
		want   string // value found as a typo, or "" for none
		dist   int
	}{
		{"utha", "Utah", 1},            // 4 runes: swap allowed
		{"uth", "", 0},                 // 3 runes: no typo search
		{"ohoi", "Ohio", 1},            // swap
		{"orgon", "Oregon", 1},         // deletion
		{"oregoon", "Oregon", 1},       // insertion
		{"orexon", "Oregon", 1},        // substitution
		{"oraxon", "", 0},              // 6 runes: two edits is too many
		{"califrnai", "California", 2}, // 9 runes: two edits allowed
		{"calfrnai", "", 0},            // three edits
		{"masachusets", "Massachusetts", 2},
		{"MASSACHUSETS", "Massachusetts", 1},
	}
	for _, tt := range tests {
		t.Run(tt.phrase, func(t *testing.T) {
			hits := x.Search(tt.phrase, 5)
			var typos []ValueHit
			for _, h := range hits {
				if h.Match == Typo {
					typos = append(typos, h)
				}
			}
			switch {
			case tt.want == "" && len(typos) > 0:
				t.Errorf("Search(%q) found typo %v, want none", tt.phrase, typos)
			case tt.want != "" && (len(typos) != 1 || typos[0].Value != tt.want || typos[0].Distance != tt.dist):
				t.Errorf("Search(%q) typos = %+v, want %s at distance %d", tt.phrase, typos, tt.want, tt.dist)
			}
		})
	}
}

func TestValueIndexEdgeCases(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		phrase string
		want   int
	}{
		{"empty index", nil, "Texas", 0},
		{"long values are not indexed", []string{strings.Repeat("a", 300)}, strings.Repeat("a", 300), 0},
		{"blank values are not indexed", []string{"", "   "}, " ", 0},
		{"unicode case folding", []string{"Ärzte Zürich"}, "ÄRZTE ZÜRICH", 1},
		{"unicode typo", []string{"Ärzte Zürich"}, "Ärzte Zürch", 1},
		{"emoji value", []string{"🙂 happy"}, "🙂 happy", 1},
		{"value with surrounding spaces", []string{" Texas "}, "Texas", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewValueIndexBuilder()
			for _, v := range tt.values {
				b.Add("t", "c", v)
			}
			if got := b.Build().Search(tt.phrase, 10); len(got) != tt.want {
				t.Errorf("Search(%q) = %v, want %d hits", tt.phrase, got, tt.want)
			}
		})
	}
}

func TestValueIndexBuilderResets(t *testing.T) {
	b := NewValueIndexBuilder()
	b.Add("t", "c", "Texas")
	first := b.Build()
	b.Add("t", "c", "Ohio")
	second := b.Build()
	if first.Len() != 1 || second.Len() != 1 {
		t.Fatalf("Len = %d, %d; want 1, 1", first.Len(), second.Len())
	}
	if got := second.Search("Texas", 5); len(got) != 0 {
		t.Errorf("second index found %v from the first build", got)
	}
	if got := first.Search("Ohio", 5); len(got) != 0 {
		t.Errorf("first index found %v added after it was built", got)
	}
}

func TestMatchKindString(t *testing.T) {
	tests := []struct {
		k    MatchKind
		want string
	}{
		{Exact, "exact"}, {CaseInsensitive, "case-insensitive"}, {Abbreviation, "abbreviation"},
		{Prefix, "prefix"}, {Typo, "typo"}, {MatchKind(0), "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.k.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOSADistance(t *testing.T) {
	tests := []struct {
		a, b   string
		budget int
		want   int
	}{
		{"texas", "texas", 2, 0},
		{"texsa", "texas", 2, 1},
		{"texas", "tex", 2, 2},
		{"texas", "te", 2, 3}, // over budget: budget+1
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 1, 2},
		{"", "ab", 2, 2},
		{"ca", "ac", 1, 1},
		{"abcdef", "badcfe", 3, 3},
		{"zürich", "zurich", 1, 1},
	}
	var rows osaRows
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := rows.distance([]rune(tt.a), []rune(tt.b), tt.budget); got != tt.want {
				t.Errorf("distance = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"texas", "texas"},
		{"Texas", "texas"},
		{"  New   York\t", "new york"},
		{"new york", "new york"},
		{"ÄRZTE", "ärzte"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := normalize(tt.in); got != tt.want {
				t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
