package glossary

import (
	"errors"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/ontology"
)

// A library's glossary seeds the team's words for its tables and columns.
const librarySynonyms = `
name: library
warehouse: lib
workspaces: [console:local]
synonyms:
  patrons: [readers, borrowers]
  loans.branch: outlet
`

func TestSynonymsBecomeWordFacts(t *testing.T) {
	g, err := Parse("library.yaml", []byte(librarySynonyms))
	if err != nil {
		t.Fatal(err)
	}
	facts, ps := Facts(g, Target{Warehouse: "lib", Workspaces: []string{"console:local"}})
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	want := map[string]string{"readers": "word: patrons", "borrowers": "word: patrons", "outlet": "word: loans.branch"}
	got := map[string]string{}
	for _, f := range facts {
		if f.Kind != ontology.KindWord || f.Scope != ontology.ScopeWorkspace || !f.FromGlossary() {
			t.Errorf("unexpected fact %+v", f)
			continue
		}
		got[f.Phrase] = f.Target.Summary()
	}
	for w, s := range want {
		if got[w] != s {
			t.Errorf("%q: %q, want %q", w, got[w], s)
		}
	}
}

func TestSynonymsProblems(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{"synonyms: [readers]", "synonyms must map"},
		{"synonyms:\n  'patrons; drop': [x]", "must be a table or table.column"},
		{"synonyms:\n  patrons: []", "has no words"},
		{"synonyms:\n  patrons: [readers]\n  loans: [readers]", "already has a meaning"},
	} {
		g, err := Parse("g.yaml", []byte(tt.yaml))
		if err == nil {
			_, ps := Facts(g, Target{Warehouse: "w", Workspaces: []string{"console:local"}})
			if len(ps) > 0 {
				err = ps
			}
		}
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.yaml, err, tt.want)
		}
	}
}
