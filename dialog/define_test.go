package dialog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/internal/logbuf"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// Two people mean different things by "active customers"; each is asked
// once, and from then on their own definition answers without asking,
// also on a related question ("active customers in Ohio").
func TestDefinitionsArePersonal(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	since := dialogtest.Now().AddDate(0, 0, -90).Format("2006-01-02")
	// What each meaning the demo data offers for "active customers" counts.
	counts := map[string]string{
		"Has at least one order in the last 90 days": "SELECT COUNT(*) FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.ordered_at >= '" + since + "')",
		"Has at least one order":                     "SELECT COUNT(*) FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)",
		"Has no orders":                              "SELECT COUNT(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)",
		"Segment is Consumer":                        "SELECT COUNT(*) FROM customers WHERE segment = 'Consumer'",
		"Segment is Small Business":                  "SELECT COUNT(*) FROM customers WHERE segment = 'Small Business'",
		"Segment is Enterprise":                      "SELECT COUNT(*) FROM customers WHERE segment = 'Enterprise'",
		"Signup date in the last 90 days":            "SELECT COUNT(*) FROM customers WHERE signup_date >= '" + since + "'",
	}
	type person struct{ user, pick string }
	people := []*person{{user: "ana"}, {user: "ben"}}
	for _, p := range people {
		c := newChat(t, env, p.user)
		r := c.ask("how many active customers do we have?")
		if r.Kind != dialog.ReplyClarification || r.Clarification.Key != sqlshape.DefineKey("active") || r.Clarification.Prompt != "By 'active', which do you mean?" {
			t.Fatalf("%s: want a question about 'active', got: %s", p.user, r.Text)
		}
		// Each picks a meaning the other did not.
		pick := -1
		for i, o := range r.Clarification.Options {
			if _, known := counts[o.Label]; known && o.Label != people[0].pick {
				pick, p.pick = i, o.Label
				break
			}
		}
		if pick < 0 {
			t.Fatalf("%s: no new meaning offered:\n%s", p.user, r.Text)
		}
		a := mustAnswer(t, c.send(dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: pick})[0])
		if want := scalar(t, env, counts[p.pick]); a.Rows[0][0] != want {
			t.Fatalf("%s (%s): %v, want %s\n%s", p.user, p.pick, a.Rows, want, a.SQL)
		}
		if len(a.Unused) != 0 || !strings.Contains(strings.ToLower(a.Explanation), "'active' meaning "+strings.ToLower(p.pick)) {
			t.Fatalf("%s: the answer should say what 'active' meant and leave nothing out: %q %v", p.user, a.Explanation, a.Unused)
		}
	}
	// Twenty repeats each, on the same and related questions: every one is
	// decided by the person's own definition.
	questions := []string{"how many active customers do we have?", "how many active customers in Ohio?", "number of active customers in Texas"}
	repeats, decided := 0, 0
	for i := range 20 {
		for _, p := range people {
			c := newChat(t, env, p.user)
			c.n = 100 + i
			q := questions[i%len(questions)]
			r := c.ask(q)
			for r.Kind == dialog.ReplyClarification && r.Clarification.Key.Name != sqlshape.SlotDefine {
				r = c.choose(r, "customer") // Ohio/Texas: the customers' state
			}
			repeats++
			if r.Kind != dialog.ReplyAnswer {
				t.Errorf("%s asked again on %q: %s", p.user, q, r.Text)
				continue
			}
			used := false
			for _, f := range r.Answer.UsedFacts {
				used = used || f.Phrase == "active" && f.Definition
			}
			if used && strings.Contains(r.Text, "Using your definition: 'active'") {
				decided++
			}
		}
	}
	if share := float64(decided) / float64(repeats); share < 0.95 {
		t.Fatalf("the definition decided %d of %d repeats (%.0f%%), want at least 95%%", decided, repeats, 100*share)
	}
}

func TestNeverOrderedIsTheAbsenceOfOrders(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	c := newChat(t, env, "ana")
	a := mustAnswer(t, c.ask("how many customers never ordered?"))
	want := scalar(t, env, "SELECT COUNT(*) FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id)")
	if a.Rows[0][0] != want {
		t.Fatalf("%v, want %s\n%s", a.Rows, want, a.SQL)
	}
	if len(a.Unused) != 0 {
		t.Fatalf("nothing should be left out: %v", a.Unused)
	}
}

const nuclearDump = `
CREATE TABLE nuclear_power_plants (
  Id INT PRIMARY KEY,
  Name VARCHAR(80) COMMENT 'Plant name',
  Country VARCHAR(40) COMMENT 'Country the plant is in',
  Status VARCHAR(40) COMMENT 'Operational status of the plant',
  ReactorModel VARCHAR(40),
  Capacity INT COMMENT 'Net capacity in MWe');
INSERT INTO nuclear_power_plants VALUES
  (1, 'Ohi-3', 'Japan', 'Operational', 'PWR', 1127), (2, 'Ohi-4', 'Japan', 'Operational', 'PWR', 1127),
  (3, 'Shimane-3', 'Japan', 'Under Construction', 'ABWR', 1325), (4, 'Fukushima-1', 'Japan', 'Shutdown', 'BWR', 439),
  (5, 'Monju', 'Japan', 'Shutdown', 'FBR', 246), (6, 'Gravelines-1', 'France', 'Operational', 'PWR', 910),
  (7, 'Flamanville-3', 'France', 'Under Construction', 'EPR', 1630), (8, 'Fessenheim-1', 'France', 'Shutdown', 'PWR', 880),
  (9, 'Kakrapar-3', 'India', 'Operational', 'PHWR', 630), (10, 'Kudankulam-3', 'India', 'Under Construction', 'VVER', 917),
  (11, 'Tarapur-1', 'India', 'Operational', 'BWR', 150), (12, 'Hamaoka-6', 'Japan', 'Planned', 'ABWR', 1400);
`

// "active plants" on a table the engine was not built for: the question is
// built from the status column's values, and the choice is remembered.
func TestTermQuestionFromTheData(t *testing.T) {
	t.Parallel()
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			db := testwh.NewDatabase(t, target, nuclearDump)
			wh := db.Open(t, warehouse.Config{})
			var log logbuf.Buffer
			m := failingManager(t, wh, wh, &log)
			who := dialog.Who{Platform: "test", Workspace: "w", Channel: "c", User: "kenji"}
			send := func(ev dialog.Event) dialog.Reply {
				t.Helper()
				ev.Who = who
				replies, err := m.Handle(context.Background(), ev)
				if err != nil || len(replies) == 0 {
					t.Fatalf("%v %v", replies, err)
				}
				return replies[len(replies)-1]
			}
			r := send(dialog.Event{Kind: dialog.EventMessage, Conversation: "c1", Text: "How many active plants are there in Japan?"})
			if r.Kind != dialog.ReplyClarification || r.Clarification.Key != sqlshape.DefineKey("active") {
				t.Fatalf("want a question about 'active', got: %s", r.Text)
			}
			pick := -1
			for i, o := range r.Clarification.Options {
				if strings.Contains(o.Label, "Status is Operational") && !strings.Contains(o.Label, " or ") {
					pick = i
				}
			}
			if pick < 0 {
				t.Fatalf("no 'Status is Operational' option: %s", r.Text)
			}
			r = send(dialog.Event{Kind: dialog.EventChoose, Conversation: "c1", Target: r.Clarification.ID, Option: pick})
			if r.Kind != dialog.ReplyAnswer || r.Answer.Rows[0][0] != "2" {
				t.Fatalf("want 2 operational plants in Japan, got: %s", r.Text)
			}
			// The same word on another country: no question, the definition says so.
			r = send(dialog.Event{Kind: dialog.EventMessage, Conversation: "c2", Text: "How many active plants are there in India?"})
			if r.Kind != dialog.ReplyAnswer || r.Answer.Rows[0][0] != "2" || !strings.Contains(r.Text, "Using your definition: 'active' = status is Operational") {
				t.Fatalf("want 2 by the remembered definition, got: %s", r.Text)
			}
		})
	}
}

// A word no reading can use is said, not dropped.
func TestLeftOutWordsAreSaid(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	c := newChat(t, env, "ana")
	r := c.ask("list the customers chronologically")
	for r.Kind == dialog.ReplyClarification {
		r = c.choose(r, "customer name")
	}
	a := mustAnswer(t, r)
	if len(a.Unused) == 0 || a.Unused[0] != "chronologically" || !strings.Contains(r.Text, "I did not use 'chronologically'") {
		t.Fatalf("want 'chronologically' reported as left out: %v\n%s", a.Unused, r.Text)
	}
}
