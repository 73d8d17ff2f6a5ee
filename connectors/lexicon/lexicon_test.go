package lexicon

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// MustLexicon returns the process's shared Lexicon (see Default).
func MustLexicon(tb testing.TB) *Lexicon {
	tb.Helper()
	l, err := Default()
	if err != nil {
		tb.Fatalf("load lexicon: %v", err)
	}
	return l
}

// The expectations below were checked against WordNet 3.0's files in
// /usr/share/wordnet (index.*, data.*, *.exc, cntlist.rev).

func TestLemmas(t *testing.T) {
	l := MustLexicon(t)
	tests := []struct {
		word string
		want []string
	}{
		// Regular detachment rules.
		{"operating", []string{"operating", "operate"}}, // "operating" is also an adjective
		{"weighs", []string{"weigh"}},
		{"stations", []string{"stations", "station"}}, // "stations" (of the Cross) is a noun
		{"countries", []string{"country"}},
		{"pounds", []string{"pound"}},
		{"students", []string{"student"}},
		{"largest", []string{"large"}},
		{"buses", []string{"bus"}},
		// Exception lists.
		{"ran", []string{"run"}},
		{"children", []string{"child"}},
		{"paid", []string{"paid", "pay"}}, // "paid" is also an adjective
		{"went", []string{"go"}},
		{"mice", []string{"mouse"}},
		{"criteria", []string{"criterion"}},
		{"data", []string{"data", "datum"}},
		{"bought", []string{"buy"}},
		{"happier", []string{"happy"}},
		{"better", []string{"better", "good", "well"}},
		{"leaves", []string{"leaf", "leave"}},
		{"axes", []string{"ax", "axis", "axe"}},
		{"was", []string{"be"}},
		// Lemmas stay themselves.
		{"league", []string{"league"}},
		{"river", []string{"river"}},
		{"boss", []string{"boss"}}, // no rules for nouns in -ss: not "bos"
		// Accidents of spelling are dropped.
		{"customer", []string{"customer"}},
		{"number", []string{"number"}},
		{"serves", []string{"serve"}},
		// Phrases.
		{"power stations", []string{"power station"}},
		{"Power_Station", []string{"power station"}},
		{"looking up", []string{"look up"}},
		{"ran into", []string{"run into"}},
		// Not in WordNet.
		{"payson", nil},
		{"the", nil},
		{"which", nil},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if got := l.Lemmas(tt.word); !slices.Equal(got, tt.want) {
				t.Errorf("Lemmas(%q) = %q, want %q", tt.word, got, tt.want)
			}
		})
	}
}

func TestNormalisation(t *testing.T) {
	l := MustLexicon(t)
	long := strings.Repeat("a", 200)
	tests := []struct {
		word string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"STATIONS", []string{"stations", "station"}},
		{"  Power \t  Station ", []string{"power station"}},
		{"power__station", []string{"power station"}},
		{"e-mail", []string{"e-mail"}},
		{"café", nil},
		{"ÉCOLE", nil},
		{"naïve", nil},
		{"日本", nil},
		{"abc123", nil},
		{"u.s.", nil},
		{"station?", nil},
		{"'", nil},
		{"-", nil},
		{long, nil},
		{long + " station", nil},
		{"\xff\xfe", nil},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if got := l.Lemmas(tt.word); !slices.Equal(got, tt.want) {
				t.Errorf("Lemmas(%q) = %q, want %q", tt.word, got, tt.want)
			}
			if tt.want == nil {
				if l.Known(tt.word) || l.Parts(tt.word) != 0 || l.Commonness(tt.word) != 0 ||
					l.Senses(tt.word) != nil || l.Related(tt.word) != nil || l.RelatedTo(tt.word, tt.word) {
					t.Errorf("unknown word %q has readings", tt.word)
				}
			}
		})
	}
}

func TestSenses(t *testing.T) {
	l := MustLexicon(t)
	tests := []struct {
		word string
		want []Sense
	}{
		// index.noun: "run n 16 ... 16 7", index.verb: "run v 41 ... 41 29";
		// cntlist.rev sums: 29 noun and 268 verb occurrences.
		{"runs", []Sense{
			{Lemma: "run", POS: Noun, Synsets: 16, Tagged: 7, Freq: 29},
			{Lemma: "run", POS: Verb, Synsets: 41, Tagged: 29, Freq: 268},
		}},
		{"league", []Sense{
			{Lemma: "league", POS: Noun, Synsets: 3, Tagged: 2, Freq: 11},
			{Lemma: "league", POS: Verb, Synsets: 1, Tagged: 1, Freq: 1},
		}},
		{"operating", []Sense{
			{Lemma: "operate", POS: Verb, Synsets: 7, Tagged: 5, Freq: 82},
			{Lemma: "operating", POS: Adj, Synsets: 2, Tagged: 1, Freq: 2},
		}},
		{"payson", nil},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if got := l.Senses(tt.word); !slices.Equal(got, tt.want) {
				t.Errorf("Senses(%q) = %+v, want %+v", tt.word, got, tt.want)
			}
		})
	}
}

func TestParts(t *testing.T) {
	l := MustLexicon(t)
	tests := []struct {
		word string
		want POS
	}{
		{"run", Noun | Verb},
		{"ran", Verb},
		{"live", Verb | Adj | Adv},
		{"river", Noun},
		{"locate", Verb},
		{"operational", Adj},
		{"many", Adj},
		{"payson", 0},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got := l.Parts(tt.word)
			if got != tt.want {
				t.Errorf("Parts(%q) = %v, want %v", tt.word, got, tt.want)
			}
			for _, p := range []POS{Noun, Verb, Adj, Adv} {
				if l.Is(tt.word, p) != (tt.want&p != 0) {
					t.Errorf("Is(%q, %v) = %v", tt.word, p, l.Is(tt.word, p))
				}
			}
		})
	}
}

func TestMostlyVerb(t *testing.T) {
	l := MustLexicon(t)
	tests := []struct {
		word string
		want bool
	}{
		{"run", true}, // 268 verb vs 29 noun occurrences
		{"runs", true},
		{"live", true},      // 240 verb vs 9 adjective
		{"lives", false},    // "life" (noun) is as common: 240 verb vs 256 noun
		{"serve", true},     // 214 verb vs 0 noun
		{"contain", true},   // verb only
		{"locate", true},    // verb only
		{"located", true},   // 36 verb vs 20 adjective (satellite)
		{"operating", true}, // 82 verb vs 2 adjective
		{"ran", true},
		{"flow", false},   // SemCor: 35 noun vs 24 verb
		{"border", false}, // SemCor: 7 noun vs 5 verb
		{"river", false},
		{"state", false}, // 192 noun vs 90 verb
		{"customer", false},
		{"payson", false},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if got := l.MostlyVerb(tt.word); got != tt.want {
				t.Errorf("MostlyVerb(%q) = %v (verb share %.2f), want %v", tt.word, got, l.Share(tt.word, Verb), tt.want)
			}
		})
	}
}

func TestShare(t *testing.T) {
	l := MustLexicon(t)
	tests := []struct {
		word string
		p    POS
		want float64
	}{
		{"flow", Verb, 24.0 / 59},
		{"flow", Noun | Verb, 1},
		{"border", Noun, 7.0 / 12},
		{"river", Verb, 0},
		{"payson", Noun, 0},
		// "power station": no SemCor occurrences, so sense counts decide.
		{"power station", Noun, 1},
		// "axe" and "ax": 2 verb senses each, "ax" 1 and "axis" 6 noun
		// senses, and 2+6 noun occurrences: occurrences decide.
		{"axes", Noun, 1},
	}
	for _, tt := range tests {
		t.Run(tt.word+"/"+tt.p.String(), func(t *testing.T) {
			if got := l.Share(tt.word, tt.p); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Share(%q, %v) = %v, want %v", tt.word, tt.p, got, tt.want)
			}
		})
	}
}

func TestCommonness(t *testing.T) {
	l := MustLexicon(t)
	t.Run("unknown words score zero", func(t *testing.T) {
		for _, w := range []string{"payson", "the", "", "zzzz"} {
			if got := l.Commonness(w); got != 0 {
				t.Errorf("Commonness(%q) = %v, want 0", w, got)
			}
		}
	})
	t.Run("known words score at least ln 2", func(t *testing.T) {
		for _, w := range []string{"league", "pounds", "power station", "librate"} {
			if got := l.Commonness(w); got < math.Ln2 {
				t.Errorf("Commonness(%q) = %v, want ≥ ln 2", w, got)
			}
		}
	})
	t.Run("formula", func(t *testing.T) {
		// league: 11+1 occurrences, 3+1 senses.
		if got, want := l.Commonness("league"), math.Log(1+12+4); math.Abs(got-want) > 1e-9 {
			t.Errorf("Commonness(league) = %v, want %v", got, want)
		}
	})
	ordered := [][2]string{ // more common first
		{"be", "run"},
		{"run", "country"},
		{"country", "league"},
		{"league", "librate"},
		{"pounds", "league"},
		{"power plant", "power station"},
	}
	for _, p := range ordered {
		t.Run(p[0]+">"+p[1], func(t *testing.T) {
			if a, b := l.Commonness(p[0]), l.Commonness(p[1]); a <= b {
				t.Errorf("Commonness(%q) = %.3f, not above Commonness(%q) = %.3f", p[0], a, p[1], b)
			}
		})
	}
}

func TestKnown(t *testing.T) {
	l := MustLexicon(t)
	for w, want := range map[string]bool{
		"league": true, "pounds": true, "Stations": true, "power plant": true,
		"payson": false, "the": false, "of": false, "": false,
	} {
		if got := l.Known(w); got != want {
			t.Errorf("Known(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestRelated(t *testing.T) {
	l := MustLexicon(t)
	tests := []struct {
		word    string
		want    []string // all must be present
		notWant []string
	}{
		// "operating" (adj) shares a synset with "operational"; "operate"
		// has derivation pointers to "operation" and "operator".
		{"operating", []string{"operational", "operation", "operator", "run", "function"}, []string{"operating", "operate"}},
		{"operate", []string{"operation", "operator", "operating"}, nil},
		{"Operational", []string{"operation", "operating", "operative"}, []string{"operational"}},
		// nation n.1 = {state, nation, country, land, commonwealth, res publica, body politic}.
		{"nation", []string{"country", "state", "land", "national"}, []string{"carry nation"}}, // instance synsets left out
		// pay n.1 = {wage, pay, earnings, remuneration, salary}; pay v → payment by derivation.
		{"pay", []string{"salary", "wage", "earnings", "remuneration", "payment", "payer"}, nil},
		{"paid", []string{"salary", "payment"}, nil},
		{"power station", []string{"power plant", "powerhouse"}, nil},
		{"power_plant", []string{"power station"}, nil},
		// weigh v.1 is defined as "have a certain weight"; WordNet has no derivation pointer.
		{"weigh", []string{"weight", "weigher", "weighing"}, nil},
		{"weight", []string{"weigh", "weighty"}, nil},
		{"weighs", []string{"weight"}, nil},
		{"run", []string{"operate", "runner"}, nil},
		{"customer", []string{"client"}, []string{"custom", "customary"}},
		{"station", nil, []string{"plant", "power plant"}}, // only a hyponym relation, not kept
		{"payson", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			got := l.Related(tt.word)
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("Related(%q) lacks %q: %q", tt.word, w, got)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(got, w) {
					t.Errorf("Related(%q) has %q", tt.word, w)
				}
			}
			if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Errorf("Related(%q) not sorted and unique: %q", tt.word, got)
			}
			for _, w := range got {
				if w != strings.ToLower(w) || strings.Contains(w, "_") {
					t.Errorf("Related(%q) has %q, not lower case with spaces", tt.word, w)
				}
			}
		})
	}
}

func TestRelatedTo(t *testing.T) {
	l := MustLexicon(t)
	tests := []struct {
		a, b string
		want bool
	}{
		{"operating", "Operational", true},
		{"operating", "operation", true},
		{"operated", "operators", true},
		{"nation", "country", true},
		{"nations", "countries", true},
		{"pay", "salary", true},
		{"paid", "wages", true},
		{"pay", "payment", true},
		{"weigh", "weight", true},
		{"weighs", "weights", true},
		{"power station", "power plant", true},
		{"customer", "client", true},
		{"located", "location", true},
		{"stations", "station", true}, // a shared lemma
		{"ran", "run", true},
		{"station", "plant", false},
		{"customer", "custom", false},
		{"river", "salary", false},
		{"payson", "payson", false},
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.a+"~"+tt.b, func(t *testing.T) {
			if got := l.RelatedTo(tt.a, tt.b); got != tt.want {
				t.Errorf("RelatedTo(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := l.RelatedTo(tt.b, tt.a); got != tt.want {
				t.Errorf("RelatedTo(%q, %q) = %v, want %v (not symmetric)", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

// TestRelatedExcludesOwnLemmas checks the contract over many words, not
// only the examples: no word is related to its own lemmas, and RelatedTo
// agrees with Related.
func TestRelatedExcludesOwnLemmas(t *testing.T) {
	l := MustLexicon(t)
	for i := 0; i < len(l.lemmas); i += 97 {
		w := l.lemmas[i]
		own := l.Lemmas(w)
		if len(own) == 0 || own[0] != w {
			t.Fatalf("Lemmas(%q) = %q, want the lemma itself first", w, own)
		}
		for _, r := range l.Related(w) {
			if slices.Contains(own, r) {
				t.Fatalf("Related(%q) has its own lemma %q", w, r)
			}
			if !l.RelatedTo(w, r) {
				t.Fatalf("RelatedTo(%q, %q) = false, but Related lists it", w, r)
			}
		}
	}
}

func TestDefaultIsShared(t *testing.T) {
	a, errA := Default()
	b, errB := Default()
	if errA != nil || errB != nil || a != b {
		t.Fatalf("Default() = %p, %v and %p, %v; want one value", a, errA, b, errB)
	}
}

// TestConcurrentUse is meant for go test -race: lookups share no state.
func TestConcurrentUse(t *testing.T) {
	l := MustLexicon(t)
	words := []string{"operating", "ran", "power stations", "paid", "customer", "payson"}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				w := words[(g+i)%len(words)]
				l.Lemmas(w)
				l.Related(w)
				l.MostlyVerb(w)
				l.RelatedTo(w, "operation")
			}
		}()
	}
	wg.Wait()
}

func TestPOSString(t *testing.T) {
	tests := map[POS]string{
		0: "none", Noun: "noun", Verb | Adj: "verb|adj", Noun | Verb | Adj | Adv: "noun|verb|adj|adv",
		Adv | 0x20: "adv|POS(0x20)",
	}
	for p, want := range tests {
		if got := p.String(); got != want {
			t.Errorf("POS(%#x).String() = %q, want %q", uint8(p), got, want)
		}
	}
}

func TestBroader(t *testing.T) {
	l := MustLexicon(t)
	tests := []struct {
		a, b string
		want bool
	}{
		{"trucks", "vehicles", true},    // truck → motor vehicle → … → vehicle
		{"chauffeurs", "drivers", true}, // chauffeur → driver
		{"medication", "drug", true},
		{"vehicle", "truck", false}, // only upwards
		{"clients", "customers", false},
		{"zzzz", "vehicle", false},
	}
	for _, tt := range tests {
		if got := l.Broader(tt.a, tt.b); got != tt.want {
			t.Errorf("Broader(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
