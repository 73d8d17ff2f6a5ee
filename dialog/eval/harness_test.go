package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/testwh"
)

func TestEvalCanonValue(t *testing.T) {
	snap := &warehouse.Snapshot{Aliases: []warehouse.ValueAlias{{Table: "depots", CodeColumn: "code", NameColumn: "name", Code: "NF", Name: "Northfield"}}}
	canon := CanonValue(snap)
	cases := map[string]string{"nf": "northfield", "NF": "northfield", "Northfield": "northfield", "lakeside": "lakeside", "2024": "2024", "": ""}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			if got := canon(in); got != want {
				t.Fatalf("canon(%q) = %q, want %q", in, got, want)
			}
		})
	}
	if got := CanonValue(nil)("Lakeside"); got != "lakeside" {
		t.Fatalf("without a snapshot: %q", got)
	}
}

// rawOpt is an option by the canonical form of its meaning and the SQL of
// its readings.
type rawOpt struct {
	value    string
	readings []string
}

func opt(value string, readings ...string) rawOpt { return rawOpt{value: value, readings: readings} }

// clar builds a clarification about key (canonical form) whose options'
// values are parsed from their canonical forms: one part each, "expr op"
// for filters and orderings.
func clar(key string, opts ...rawOpt) dialog.Clarification {
	k := sqlshape.ParseSlotKey(key)
	c := dialog.Clarification{Key: k}
	for _, o := range opts {
		var parts []sqlshape.Part
		if o.value != "" {
			p := sqlshape.Part{Expr: o.value}
			if k.Name == sqlshape.SlotFilterOn || k.Name == sqlshape.SlotOrder {
				i := strings.LastIndexByte(o.value, ' ')
				p = sqlshape.Part{Expr: o.value[:i], Op: o.value[i+1:]}
			}
			parts = []sqlshape.Part{p}
		}
		v := sqlshape.NewValue(k.Name, parts, nil)
		c.Options = append(c.Options, dialog.Option{Label: "option " + o.value, Value: v, Readings: o.readings})
	}
	return c
}

// The simulated user's choices on crafted clarifications: by the gold's
// slot value first, by the readings' results where that says nothing, and
// "none of these" when no option agrees.
func TestEvalAnswer(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			e := newTiny(t, target)
			const (
				biggestAliased = `SELECT TRUCKalias0.TRUCK_NAME FROM truck AS TRUCKalias0 WHERE TRUCKalias0.CAPACITY = ( SELECT MAX( TRUCKalias1.CAPACITY ) FROM truck AS TRUCKalias1 WHERE TRUCKalias1.DEPOT_NAME = "eastport" ) AND TRUCKalias0.DEPOT_NAME = "eastport"`
				biggestTop     = "SELECT truck.truck_name FROM truck WHERE truck.depot_name = 'eastport' ORDER BY truck.capacity DESC LIMIT 1"
				biggestAll     = "SELECT truck.truck_name FROM truck WHERE truck.depot_name = 'eastport'"
				biggestNear    = "SELECT DISTINCT truck.truck_name FROM neighbour_info JOIN truck ON truck.depot_name = neighbour_info.depot_name WHERE neighbour_info.neighbour = 'eastport' ORDER BY truck.capacity DESC LIMIT 1"
				biggestNear2   = "SELECT DISTINCT truck.truck_name FROM neighbour_info JOIN truck ON truck.depot_name = neighbour_info.neighbour WHERE neighbour_info.depot_name = 'eastport' ORDER BY truck.capacity DESC LIMIT 1"
				biggestIn      = "SELECT truck_name FROM truck WHERE truck_name IN (SELECT truck_name FROM truck WHERE depot_name = 'eastport' AND capacity > 7000)"
				viaDepot       = "SELECT truck.truck_name FROM truck JOIN depot ON depot.depot_name = truck.depot_name WHERE depot.depot_name = 'eastport' AND truck.capacity > 5000"
				viaTruck       = "SELECT truck_name FROM truck WHERE depot_name = 'eastport' AND capacity > 5000"
				broken         = "SELECT nope FROM truck"
			)
			cases := []struct {
				name string
				gold Question
				c    dialog.Clarification
				want int
				by   string
				// typed is what the user types under Other… (by ByTyped).
				typed string
				// runs is how many readings the user may execute (-1: any).
				runs int
			}{
				{
					name: "slot decides without running anything",
					gold: Question{ID: "slot", GoldSQL: biggestAliased},
					c:    clar("filteron:eastport", opt("neighbour_info.neighbour =", broken), opt("truck.depot_name =", broken), opt("neighbour_info.depot_name =", broken)),
					want: 1, by: BySlot, runs: 0,
				},
				{
					name: "slot literal case and quoting do not matter",
					gold: Question{ID: "slot-case", GoldSQL: `SELECT truck_name FROM truck WHERE depot_name = "Eastport"`},
					c:    clar("filteron:eastport", opt("neighbour_info.neighbour ="), opt("truck.depot_name =")),
					want: 1, by: BySlot, runs: 0,
				},
				{
					name: "gold computes the superlative another way: results decide",
					gold: Question{ID: "limit", GoldSQL: biggestIn},
					// The gold has no LIMIT, which is the second option's
					// value, but only the first keeps the gold's answer.
					c:    clar("limit", opt("1", biggestTop), opt("", biggestAll)),
					want: 0, by: ByResult, runs: -1,
				},
				{
					name: "no option agrees: the gold's column is typed",
					gold: Question{ID: "none", GoldSQL: biggestAliased},
					c:    clar("filteron:eastport", opt("neighbour_info.neighbour =", biggestNear), opt("neighbour_info.depot_name =", biggestNear2)),
					want: -1, by: ByTyped, typed: "truck depot name", runs: -1,
				},
				{
					name: "no option agrees and nothing to type: none of these",
					gold: Question{ID: "none2", GoldSQL: biggestAliased},
					c:    clar("limit", opt("7", biggestNear), opt("9", biggestNear2)),
					want: -1, by: ByNone, runs: -1,
				},
				{
					name: "alternative golds disagree on the slot: results decide",
					gold: Question{ID: "alt", GoldSQL: viaTruck, AltGold: []string{viaDepot}},
					c:    clar("filteron:eastport", opt("truck.depot_name =", biggestAll), opt("depot.depot_name =", viaDepot)),
					want: 1, by: ByResult, runs: -1,
				},
				{
					name: "failing readings are not chosen",
					gold: Question{ID: "fail", GoldSQL: biggestIn},
					c:    clar("order", opt("truck.capacity asc", broken), opt("truck.capacity desc", broken, biggestTop)),
					want: 1, by: ByResult, runs: -1,
				},
				{
					name: "gold lacks the part and no reading matches: the option without it",
					gold: Question{ID: "distinct", GoldSQL: "SELECT truck_name FROM truck WHERE depot_name = 'northfield'"},
					c:    clar("distinct", opt("distinct", biggestTop), opt("", biggestAll)),
					want: 1, by: BySlot, runs: -1,
				},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					g := e.gold(t, tc.gold)
					before := e.exec.count()
					ch := e.harness.Answer(context.Background(), g, &tc.c)
					if ch.Picked != tc.want || ch.By != tc.by || ch.Typed != tc.typed {
						t.Fatalf("picked %d by %s, want %d by %s (%+v)", ch.Picked, ch.By, tc.want, tc.by, ch)
					}
					if ran := e.exec.count() - before; tc.runs >= 0 && ran != tc.runs {
						t.Fatalf("ran %d readings, want %d", ran, tc.runs)
					}
					if len(ch.Options) != len(tc.c.Options) || ch.Key != tc.c.Key.String() {
						t.Fatalf("choice does not record the clarification: %+v", ch)
					}
				})
			}
			t.Run("readings are checked once per question", func(t *testing.T) {
				g := e.gold(t, Question{ID: "cache", GoldSQL: biggestIn})
				c := clar("limit", opt("1", biggestTop), opt("", biggestAll))
				e.harness.Answer(context.Background(), g, &c)
				before := e.exec.count()
				e.harness.Answer(context.Background(), g, &c)
				if ran := e.exec.count() - before; ran != 0 {
					t.Fatalf("ran %d statements again", ran)
				}
			})
		})
	}
}

func TestEvalPrepareGold(t *testing.T) {
	e := newTiny(t, testwh.Targets()[0])
	ctx := context.Background()
	cases := []struct {
		name     string
		q        Question
		results  int
		problems []string
		err      bool
	}{
		{name: "runs", q: Question{ID: "ok", Line: 3, GoldSQL: "SELECT COUNT(*) FROM truck"}, results: 1},
		{name: "failing gold", q: Question{ID: "bad", Line: 7, GoldSQL: "SELECT nope FROM truck"}, problems: []string{"q.jsonl:7: bad: gold_sql fails: "}, err: true},
		{name: "failing alternative", q: Question{ID: "alt", Line: 9, GoldSQL: "SELECT 1", AltGold: []string{"SELECT * FROM nowhere"}}, results: 1, problems: []string{"q.jsonl:9: alt: alt_gold_sql[0] fails: "}},
		{name: "write refused", q: Question{ID: "w", Line: 2, GoldSQL: "DELETE FROM truck"}, problems: []string{"q.jsonl:2: w: gold_sql fails: "}, err: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, probs := e.harness.PrepareGold(ctx, "q.jsonl", tc.q)
			if len(g.Results) != tc.results || (g.Err != nil) != tc.err {
				t.Fatalf("%d results, err %v; want %d, err %v", len(g.Results), g.Err, tc.results, tc.err)
			}
			if len(probs) != len(tc.problems) {
				t.Fatalf("problems %v, want %v", probs, tc.problems)
			}
			for i, p := range tc.problems {
				if !strings.HasPrefix(probs[i].String(), p) {
					t.Errorf("problem %q, want prefix %q", probs[i], p)
				}
			}
		})
	}
	if n := e.mustQuery(t, "SELECT COUNT(*) FROM truck").Rows[0][0]; n != int64(15) {
		t.Fatalf("the refused DELETE must not have run: %v trucks", n)
	}
}

func TestEvalLinkingGoldCheck(t *testing.T) {
	e := newTiny(t, testwh.Targets()[0])
	needs, ok := e.harness.Needs("WITH big AS (SELECT depot_name FROM depot WHERE area > 12000) SELECT c.truck_name FROM truck c WHERE c.depot_name IN (SELECT depot_name FROM big)")
	if !ok {
		t.Fatal("gold did not parse")
	}
	for _, want := range []string{"depot.*", "truck.*", "depot.depot_name", "depot.area", "truck.truck_name", "truck.depot_name"} {
		if !slices.Contains(needs, want) {
			t.Errorf("needs %v lack %s", needs, want)
		}
	}
	for _, n := range needs {
		if strings.HasPrefix(n, "big.") {
			t.Errorf("a CTE is not a table of the warehouse: %v", needs)
		}
	}
	g := &Gold{Question: Question{ID: "q", GoldSQL: "SELECT area FROM depot WHERE depot_name = 'northfield'", AltGold: []string{"SELECT s.area FROM depot s JOIN truck c ON c.depot_name = s.depot_name WHERE c.truck_name = 'falcon'"}}}
	if miss, ok := e.harness.MissingFromPrompt(g, []string{"depot.area", "depot.depot_name"}); !ok || len(miss) != 0 {
		t.Fatalf("the prompt shows what the gold reads: missing %v", miss)
	}
	miss, ok := e.harness.MissingFromPrompt(g, []string{"depot.area", "truck.truck_name"})
	if !ok || !slices.Equal(miss, []string{"depot.depot_name"}) {
		t.Fatalf("missing %v, want depot.depot_name", miss)
	}
}
