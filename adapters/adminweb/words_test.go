package adminweb

import (
	"context"
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/ontology"
)

// TestWordsAgreedBecomeProposals: when several people taught the same
// word for the same table ("clients" = customers), admins are offered it
// as the team's word; accepting promotes it to the workspace.
func TestWordsAgreedBecomeProposals(t *testing.T) {
	e := newEnv(t, kvtest.Targets()[0], func(c *Config) { c.ProposalPeople = 2 })
	ctx := context.Background()
	for _, who := range []string{"U1", "U2"} {
		if _, err := e.store.Learn(ctx, ontology.Fact{Scope: ontology.ScopeUser, Owner: "slack:T1:" + who, Warehouse: "shop", Phrase: "clients", Kind: ontology.KindWord,
			Target: ontology.Target{Slot: ontology.SlotWord, Choice: ontology.TableTerm("customers")}, Meaning: "customers"}); err != nil {
			t.Fatal(err)
		}
	}
	// A third person's other word is not the same proposal.
	if _, err := e.store.Learn(ctx, ontology.Fact{Scope: ontology.ScopeUser, Owner: "slack:T1:U3", Warehouse: "shop", Phrase: "patrons", Kind: ontology.KindWord,
		Target: ontology.Target{Slot: ontology.SlotWord, Choice: ontology.TableTerm("customers")}, Meaning: "customers"}); err != nil {
		t.Fatal(err)
	}
	props, err := e.server.proposals(ctx, mustLoad(t, e, "slack:T1:UADMIN"))
	if err != nil {
		t.Fatal(err)
	}
	if len(props) != 1 || props[0].Phrase != "clients" || props[0].Kind != string(ontology.KindWord) || props[0].Target != "word: customers" || len(props[0].People) != 2 {
		t.Fatalf("proposals %+v", props)
	}
	nf, err := e.store.Promote(ctx, props[0].fact.ID, ontology.ScopeWorkspace, "slack:T1", ontology.Actor{ID: "a", Admin: true})
	if err != nil || nf.Kind != ontology.KindWord || nf.Scope != ontology.ScopeWorkspace {
		t.Fatalf("promote: %+v %v", nf, err)
	}
}
