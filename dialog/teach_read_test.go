package dialog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/ontology"
)

// A clinic of its own: patients (city, insurer) and their visits (a
// department, a date, a fee), from none to six visits each.
func clinicDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE patients (
  id INT NOT NULL PRIMARY KEY COMMENT 'Patient id',
  name VARCHAR(60) NOT NULL COMMENT 'Full name of the patient',
  city VARCHAR(30) NOT NULL COMMENT 'City the patient lives in',
  insurer VARCHAR(30) NOT NULL COMMENT 'Insurance company of the patient'
) COMMENT='Patients of the clinic';
CREATE TABLE visits (
  id INT NOT NULL PRIMARY KEY COMMENT 'Visit id',
  patient_id INT NOT NULL COMMENT 'Patient seen',
  visited_on DATE NOT NULL COMMENT 'Date of the visit',
  department VARCHAR(30) NOT NULL COMMENT 'Department that saw the patient',
  fee DECIMAL(8,2) NOT NULL COMMENT 'Fee charged for the visit',
  CONSTRAINT fk_visits_patient FOREIGN KEY (patient_id) REFERENCES patients (id)
) COMMENT='Visits, one row per visit';
`)
	cities := []string{"Tarn", "Velden", "Orsk", "Pila"}
	insurers := []string{"Aurum Health", "Brightcare", "Civica", "Dunmore Mutual"}
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO patients VALUES (%d, 'Patient %02d', '%s', '%s');\n", i, i, cities[i%len(cities)], insurers[(i*3)%len(insurers)])
	}
	depts := []string{"cardiology", "dermatology", "oncology", "pediatrics"}
	v := 0
	for p := 1; p <= 40; p++ {
		for k := 0; k < p%7; k++ {
			v++
			fmt.Fprintf(&b, "INSERT INTO visits VALUES (%d, %d, '%d-%02d-%02d', '%s', %d.00);\n", v, p, 2024+k%2, 1+(p+k)%12, 1+k*3, depts[(p+k)%len(depts)], 40+(p*k)%90)
		}
	}
	return b.String()
}

// clinic is a manager over the clinic on the embedded warehouse.
func newClinic(t *testing.T) *library {
	t.Helper()
	m, wh, facts := managerOver(t, clinicDump(), "clinic")
	return &library{t: t, m: m, db: wh, facts: facts}
}

// definitionsOf are the owner's remembered definitions of phrase.
func definitionsOf(t *testing.T, facts *ontology.Store, owner, phrase string) []ontology.Fact {
	t.Helper()
	fs, err := facts.List(context.Background(), ontology.Filter{Owner: owner, Phrase: phrase})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestTypedDefinitionIsReadAsAQuestion: a meaning typed under Other… is
// read by the question reader as a condition on the rows the word
// qualifies — a count of related rows, a comparison, a set of values —
// said back in plain words, answered exactly, remembered and used next
// time without asking.
func TestTypedDefinitionIsReadAsAQuestion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, typed, confirm, want string
	}{
		{"a count of related rows", "patients with 4 or more visits", "Patients with at least 4 visits",
			"SELECT COUNT(*) FROM patients WHERE id IN (SELECT patient_id FROM visits GROUP BY patient_id HAVING COUNT(*) >= 4)"},
		{"a count, without the subject's name", "more than 5 visits", "with more than 5 visits",
			"SELECT COUNT(*) FROM patients WHERE id IN (SELECT patient_id FROM visits GROUP BY patient_id HAVING COUNT(*) > 5)"},
		{"a set of values", "insurer is Brightcare or Civica", "'Brightcare' or 'Civica'",
			"SELECT COUNT(*) FROM patients WHERE insurer IN ('Brightcare', 'Civica')"},
		{"a period of related rows", "patients with a visit in 2025", "in 2025",
			"SELECT COUNT(DISTINCT patient_id) FROM visits WHERE YEAR(visited_on) = 2025"},
		{"no related rows", "has no visits", "",
			"SELECT COUNT(*) FROM patients WHERE id NOT IN (SELECT patient_id FROM visits)"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newClinic(t)
			user := fmt.Sprintf("u%d", i)
			r, conv := c.ask(user, "how many regular patients are there?")
			if r.Kind != dialog.ReplyClarification || r.Clarification.Key != sqlshape.DefineKey("regular") {
				t.Fatalf("want a question about 'regular': %s", r.Text)
			}
			rs := c.send(user, conv, dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: tc.typed})
			if rs[0].Resolved == nil || !strings.Contains(rs[0].Resolved.Choice, tc.confirm) {
				t.Fatalf("confirmation should say what was read (%q): %+v %s", tc.confirm, rs[0].Resolved, rs[0].Text)
			}
			want := c.value(tc.want)
			if got := answerValue(t, rs[len(rs)-1]); got != want || want == "0" || want == "40" {
				t.Fatalf("regular patients %s, want %s\n%s", got, want, rs[len(rs)-1].Answer.SQL)
			}
			fs := definitionsOf(t, c.facts, "test:lib:"+user, "regular")
			if len(fs) != 1 || fs[0].Target.Choice.Op != "read" || fs[0].Target.Choice.Items[0] == "" {
				t.Fatalf("the definition should be remembered as read: %+v", fs)
			}
			// Next time it decides, with the same answer.
			r, _ = c.ask(user, "how many regular patients are there?")
			if got := answerValue(t, r); got != want || !strings.Contains(r.Text, "'regular'") {
				t.Fatalf("next time %s, want %s without asking: %s", got, want, r.Text)
			}
		})
	}
}

// TestUnreadableDefinitionIsNotStored: words that read as no condition on
// the rows — a date alone, a word the data does not have — are declined
// plainly, the question stays open, and nothing is remembered.
func TestUnreadableDefinitionIsNotStored(t *testing.T) {
	t.Parallel()
	c := newClinic(t)
	for _, typed := range []string{"2026-06-01", "value", "42"} {
		r, conv := c.ask("ida", "how many regular patients are there?")
		if r.Kind != dialog.ReplyClarification {
			t.Fatalf("want a question: %s", r.Text)
		}
		rs := c.send("ida", conv, dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: typed})
		if len(rs) != 1 || !strings.Contains(rs[0].Text, "couldn't read") || rs[0].Resolved != nil {
			t.Fatalf("%q should be declined, the question left open: %+v", typed, rs)
		}
	}
	if fs := definitionsOf(t, c.facts, "test:lib:ida", "regular"); len(fs) != 0 {
		t.Fatalf("nothing should be remembered: %+v", fs)
	}
}

// TestDemoLoyalCustomers: on the demo, 'loyal' typed as "customers with N
// or more orders" is read as a count of each customer's orders, not as
// "has at least one order", and answers what SQL counts; "loyal means …"
// after an answer reads the same way.
func TestDemoLoyalCustomers(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 3000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("how many loyal customers are there?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key != sqlshape.DefineKey("loyal") {
		t.Fatalf("want a question about 'loyal': %s", r.Text)
	}
	rs := ana.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "customers with 3 or more orders"})
	if rs[0].Resolved == nil || rs[0].Resolved.Choice != "Customers with at least 3 orders (in your words)" {
		t.Fatalf("confirmation: %+v", rs[0].Resolved)
	}
	want := scalar(t, env, "SELECT COUNT(*) FROM (SELECT customer_id FROM orders GROUP BY customer_id HAVING COUNT(*) >= 3) AS c")
	some := scalar(t, env, "SELECT COUNT(DISTINCT customer_id) FROM orders")
	if a := mustAnswer(t, rs[len(rs)-1]); a.Rows[0][0] != want || want == some {
		t.Fatalf("loyal customers %v, want %s (of %s with an order)", a.Rows, want, some)
	}
	if a := mustAnswer(t, ana.ask("how many loyal customers are there?")); a.Rows[0][0] != want {
		t.Fatalf("next time %v, want %s", a.Rows, want)
	}
	// As a follow-up, on someone else.
	ben := newChat(t, env, "ben")
	mustAnswer(t, ben.answerTo(ben.ask("how many loyal customers are there?"), "Leave 'loyal' out"))
	rs = ben.send(dialog.Event{Kind: dialog.EventMessage, Text: "loyal means customers with 3 or more orders"})
	if !strings.Contains(rs[0].Text, "✓ 'loyal' = customers with at least 3 orders") {
		t.Fatalf("the follow-up should be confirmed: %s", rs[0].Text)
	}
	if a := mustAnswer(t, rs[len(rs)-1]); a.Rows[0][0] != want {
		t.Fatalf("after the follow-up %v, want %s", a.Rows, want)
	}
	// On its own, before any question: remembered once read, and used.
	cy := newChat(t, env, "cy")
	rs = cy.send(dialog.Event{Kind: dialog.EventMessage, Conversation: "cy-def", Text: "loyal means customers with 3 or more orders"})
	if len(rs) != 1 || !strings.Contains(rs[0].Text, "✓ 'loyal' = customers with at least 3 orders") {
		t.Fatalf("the definition should be read and confirmed: %+v", rs)
	}
	if a := mustAnswer(t, cy.ask("how many loyal customers are there?")); a.Rows[0][0] != want {
		t.Fatalf("cy's definition %v, want %s", a.Rows, want)
	}
	// About another word while a question waits: remembered, and the
	// question stays open.
	eve := newChat(t, env, "eve")
	r = eve.ask("how many loyal customers are there?")
	rs = eve.send(dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "vip means customers with 3 or more orders"})
	if len(rs) != 2 || !strings.Contains(rs[0].Text, "✓ 'vip' = customers with at least 3 orders") || !strings.Contains(rs[1].Text, "Still waiting") {
		t.Fatalf("the other word should be defined and the question kept: %+v", rs)
	}
	if a := mustAnswer(t, eve.ask("how many vip customers are there?")); a.Rows[0][0] != want {
		t.Fatalf("eve's 'vip' %v, want %s", a.Rows, want)
	}
	// Words it cannot read are said to be unread, and not remembered.
	dee := newChat(t, env, "dee")
	rs = dee.send(dialog.Event{Kind: dialog.EventMessage, Conversation: "dee-def", Text: "loyal means customers with lots"})
	if len(rs) != 1 || !strings.Contains(rs[0].Text, "I couldn't read") {
		t.Fatalf("unreadable words should be declined: %+v", rs)
	}
	if f, err := env.Facts.List(context.Background(), ontology.Filter{Owner: "test:w1:dee"}); err != nil || len(f) != 0 {
		t.Fatalf("nothing should be remembered: %+v %v", f, err)
	}
}

// dateFact is the owner's remembered date column ('dates'), "" for none.
func dateFact(t *testing.T, l *library, owner string) (column string, active bool) {
	t.Helper()
	fs, err := l.facts.List(context.Background(), ontology.Filter{Owner: owner, Phrase: "dates", IncludeInactive: true})
	if err != nil || len(fs) > 1 {
		t.Fatalf("%+v %v", fs, err)
	}
	if len(fs) == 0 {
		return "", false
	}
	return fs[0].Target.Choice.Column, fs[0].Active()
}

// TestNotWhatIMeantTakesBackWhatItTaught: a choice the person then says
// "not what I meant" to is not kept; and a choice that replaced a good
// one, rejected, gives the good one back instead of overwriting it.
func TestNotWhatIMeantTakesBackWhatItTaught(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	// A new choice, rejected: nothing is kept.
	r, conv := l.ask("bo", "how many loans in 2024?")
	r = l.pick("bo", conv, r, "came back")
	a := mustAnswer(t, r)
	if col, _ := dateFact(t, l, "test:lib:bo"); col != "loans.returned_on" {
		t.Fatalf("the pick should be learned while the answer stands: %q", col)
	}
	l.send("bo", conv, dialog.Event{Kind: dialog.EventWrong, Target: a.ID})
	if col, _ := dateFact(t, l, "test:lib:bo"); col != "" {
		t.Fatalf("a choice rejected by its answer should not be kept: %q", col)
	}

	// A good choice, then another made with "change", rejected: the good
	// one is back and decides again.
	r, conv = l.ask("ada", "how many loans in 2024?")
	mustAnswer(t, l.pick("ada", conv, r, "borrowed"))
	r, conv = l.ask("ada", "how many loans in 2025?")
	a = mustAnswer(t, r)
	if len(a.UsedFacts) == 0 {
		t.Fatalf("the date choice should decide: %s", r.Text)
	}
	rs := l.send("ada", conv, dialog.Event{Kind: dialog.EventChange, Target: a.ID, FactID: a.UsedFacts[0].FactID})
	a = mustAnswer(t, l.pick("ada", conv, rs[len(rs)-1], "came back"))
	if col, _ := dateFact(t, l, "test:lib:ada"); col != "loans.returned_on" {
		t.Fatalf("the new choice should be learned while its answer stands: %q", col)
	}
	l.send("ada", conv, dialog.Event{Kind: dialog.EventWrong, Target: a.ID})
	if col, active := dateFact(t, l, "test:lib:ada"); col != "loans.borrowed_on" || !active {
		t.Fatalf("the rejected choice overwrote the good one: %q active %v", col, active)
	}
	r, _ = l.ask("ada", "how many loans in 2025?")
	if a := mustAnswer(t, r); !strings.Contains(a.SQL, "borrowed_on") {
		t.Fatalf("the good choice should decide again: %s", a.SQL)
	}
}

// TestANewQuestionIsNoAnswer: a new question typed while a word is being
// asked about is a new question, and teaches nothing about the word.
func TestANewQuestionIsNoAnswer(t *testing.T) {
	t.Parallel()
	c := newClinic(t)
	r, conv := c.ask("ida", "how many regular patients are there?")
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question: %s", r.Text)
	}
	for _, q := range []string{"how many patients have more than 4 visits?", "list patients in Tarn"} {
		rs := c.send("ida", conv, dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: q})
		if rs[0].Resolved == nil || rs[0].Resolved.Choice != "(a new question was asked)" {
			t.Fatalf("%q should be a new question: %+v", q, rs[0].Resolved)
		}
		r, conv = c.ask("ida", "how many regular patients are there?")
	}
	if fs := definitionsOf(t, c.facts, "test:lib:ida", "regular"); len(fs) != 0 {
		t.Fatalf("a new question should teach nothing about 'regular': %+v", fs)
	}
}

// TestOnlyTheWordsNamingTheThingAreLearned: a verb swept into the phrase
// asked about ("revenue came") is not part of what is remembered.
func TestOnlyTheWordsNamingTheThingAreLearned(t *testing.T) {
	t.Parallel()
	env := dialogtest.New(t, 2000, dialog.Config{})
	ana := newChat(t, env, "ana")
	r := ana.ask("how much revenue came from Texas in 2024?")
	for r.Kind == dialog.ReplyClarification {
		r = ana.choose(r, "")
	}
	fs, err := env.Facts.List(context.Background(), ontology.Filter{Owner: "test:w1:ana"})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if strings.Contains(f.Phrase, "came") {
			t.Fatalf("remembered under words that name nothing: %q", f.Phrase)
		}
	}
	if len(fs) == 0 {
		t.Fatal("the choices should be remembered")
	}
}
