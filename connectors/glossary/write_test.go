package glossary

import (
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/ontology"
)

// factKeys are the facts as the dialog uses them: phrase, kind, target
// and meaning, one line each, sorted.
func factKeys(fs []ontology.Fact) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Owner+" | "+f.Phrase+" | "+string(f.Kind)+" | "+f.Target.String()+" | "+f.Meaning)
	}
	slices.Sort(out)
	return out
}

// Writing a glossary's facts back and loading the result gives the same
// facts: the round trip of the admin console's download.
func TestFromFactsRoundTrip(t *testing.T) {
	g, err := Parse(demodata.GlossaryFile, demodata.Glossary)
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Warehouse: "demo", Workspaces: []string{"slack:T1"}}
	facts, ps := Facts(g, target)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	w := FromFacts("demo", "demo", []string{"slack:T1"}, facts)
	if len(w.Left) > 0 || len(w.Approximated) > 0 {
		t.Errorf("a glossary's own facts should all be written exactly: left %v, approximated %v", w.Left, w.Approximated)
	}
	y, err := w.YAML("The demo's team knowledge")
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("download.yml", y)
	if err != nil {
		t.Fatalf("the written glossary does not parse: %v\n%s", err, y)
	}
	again, ps := Facts(back, target)
	if len(ps) > 0 {
		t.Fatalf("the written glossary has problems: %v\n%s", ps, y)
	}
	if want, got := factKeys(facts), factKeys(again); !slices.Equal(want, got) {
		t.Errorf("round trip changed the facts:\nwant %s\n got %s\n%s", strings.Join(want, "\n     "), strings.Join(got, "\n     "), y)
	}
	if back.Name != "demo" || back.Warehouse != "demo" || !slices.Equal(back.Workspaces, []string{"slack:T1"}) {
		t.Errorf("header: %+v", back)
	}
	if !strings.HasPrefix(string(y), "# The demo's team knowledge\n") {
		t.Errorf("no header comment:\n%s", y)
	}
}

// Learned team facts are written where a glossary can say them, and the
// rest is named in the file's header, never silently dropped.
func TestFromFactsSaysWhatItCannotWrite(t *testing.T) {
	ws := "slack:T1"
	learned := ontology.Fact{Scope: ontology.ScopeWorkspace, Owner: ws, Warehouse: "shop", Phrase: "revenue", Kind: ontology.KindColumn,
		Target:  ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.net_amount"), Over: []ontology.Term{ontology.ColumnTerm("orders.gross_amount")}},
		Meaning: "Net revenue after discounts", Confirmations: 1}
	ordering := ontology.Fact{Scope: ontology.ScopeWorkspace, Owner: ws, Warehouse: "shop", Phrase: "best", Kind: ontology.KindOrder,
		Target: ontology.Target{Slot: "order", Choice: ontology.Term{Kind: ontology.TermOrdering, Expr: "SUM(orders.net_amount)", Desc: true}}, Confirmations: 1}
	above := ontology.Fact{Scope: ontology.ScopeWorkspace, Owner: ws, Warehouse: "shop", Phrase: "big", Kind: ontology.KindDefinition,
		Target: ontology.Target{Slot: "definition", Arg: "big", Choice: ontology.Term{Kind: ontology.TermPredicate, Subject: "orders", Column: "orders.net_amount", Op: "above average"}}, Confirmations: 1}
	mine := ontology.Fact{Scope: ontology.ScopeUser, Owner: ws + ":U1", Warehouse: "shop", Phrase: "margin", Kind: ontology.KindColumn,
		Target: ontology.Target{Slot: "measure", Choice: ontology.ColumnTerm("orders.margin")}, Confirmations: 1}
	w := FromFacts("team", "shop", []string{ws}, []ontology.Fact{learned, ordering, above, mine})
	if len(w.Glossary.Measures) != 1 || w.Glossary.Measures[0].Expr != "SUM(orders.net_amount)" || w.Glossary.Measures[0].Name != "revenue" {
		t.Fatalf("measures: %+v", w.Glossary.Measures)
	}
	if len(w.Approximated) != 1 || !strings.Contains(w.Approximated[0], "orders.net_amount") {
		t.Errorf("approximated: %v", w.Approximated)
	}
	if len(w.Left) != 1 || !strings.Contains(w.Left[0], `"big"`) {
		t.Errorf("left: %v (the ordering has no glossary form and is not a definition: it is simply not a glossary entry)", w.Left)
	}
	y, err := w.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(y), "# Not written") || !strings.Contains(string(y), "# Written approximately") {
		t.Errorf("the header does not say what was left out:\n%s", y)
	}
	if _, err := Parse("x.yml", y); err != nil {
		t.Errorf("does not parse: %v\n%s", err, y)
	}
	if strings.Contains(string(y), "margin") {
		t.Errorf("a person's own fact was written as the team's:\n%s", y)
	}
}
