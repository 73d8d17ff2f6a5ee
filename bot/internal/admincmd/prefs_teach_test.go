package admincmd

import (
	"context"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// Admins review what people taught: answers marked correct are candidates
// to verify, not preferences; the list shows each fact's source and how
// often people said "not what I meant" to it.
func TestPrefsCandidatesSourcesAndRejections(t *testing.T) {
	dir := t.TempDir()
	s, err := ontologyfile.Open(filepath.Join(dir, cli.OntologyFile), ontology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := s.RecordConfirmed(ctx, ontology.ConfirmedAnswer{Owner: "slack:T1:U1", Warehouse: "clinic", Phrase: "how many visit", Question: "How many visits?", SQL: "SELECT COUNT(*) FROM visits"})
	if err != nil {
		t.Fatal(err)
	}
	team := ontology.Fact{Scope: ontology.ScopeWorkspace, Owner: "slack:T1", Warehouse: "clinic", Phrase: "visits", Kind: ontology.KindColumn,
		Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("visits.id")}, Meaning: "Number of visits"}
	if _, err := s.ReplaceSource(ctx, "glossary:clinic", []ontology.Fact{team}, ontology.Actor{ID: "admin", Admin: true}); err != nil {
		t.Fatal(err)
	}
	shared, err := s.List(ctx, ontology.Filter{Owner: "slack:T1"})
	if err != nil || len(shared) != 1 {
		t.Fatal(shared, err)
	}
	if _, err := s.Reject(ctx, shared[0].ID, "slack:T1:U2"); err != nil {
		t.Fatal(err)
	}
	s.Close()

	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"candidates", []string{"candidates"}, []string{c.ID, "How many visits?", "slack:T1:U1", "verify one with"}},
		{"list shows source and rejections", []string{"list"}, []string{"SOURCE", "glossary clinic", "REJECTED", "1 (1 person)"}},
		{"weakened only", []string{"list", "--weakened"}, []string{shared[0].ID, "(1 preference)"}},
		{"show who set it aside", []string{"show", shared[0].ID}, []string{"set aside by:  slack:T1:U2 (1)", "source:        glossary clinic"}},
		{"verify a candidate", []string{"verify", c.ID, "--by", "maria"}, []string{"for slack:T1 as ", "verified by maria"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runPrefsT(t, "", append([]string{"--data", dir}, tt.args...)...)
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Fatalf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	code, out, _ := runPrefsT(t, "", "--data", dir, "candidates")
	if code != cli.ExitOK || !strings.Contains(out, c.ID) {
		t.Fatalf("after verifying: %s", out)
	}
}
