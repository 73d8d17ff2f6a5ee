package dialog_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// A small clinic of our own: visits carry a bill amount, and invoices are
// a table of their own. The lexicon relates "bills" to invoices; the
// schema itself says "bill" in visits.bill_amount.
func billingClinicDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE patients (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(60) NOT NULL,
  ward VARCHAR(20) NOT NULL COMMENT 'Ward the patient stays on'
);
CREATE TABLE visits (
  id INT NOT NULL PRIMARY KEY,
  patient_id INT NOT NULL,
  visited_on DATE NOT NULL,
  bill_amount DECIMAL(8,2) NOT NULL,
  CONSTRAINT fk_visits_patient FOREIGN KEY (patient_id) REFERENCES patients (id)
);
CREATE TABLE invoices (
  id INT NOT NULL PRIMARY KEY,
  visit_id INT NOT NULL,
  sent_on DATE NOT NULL,
  status VARCHAR(12) NOT NULL,
  CONSTRAINT fk_invoices_visit FOREIGN KEY (visit_id) REFERENCES visits (id)
);
`)
	wards := []string{"North", "South", "East"}
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO patients VALUES (%d, 'Patient %d', '%s');\n", i, i, wards[i%3])
	}
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO visits VALUES (%d, %d, '2025-%02d-%02d', %d.00);\n", i, i%12+1, i%12+1, i%27+1, 40+i*5)
		if i%2 == 0 {
			fmt.Fprintf(&b, "INSERT INTO invoices VALUES (%d, %d, '2025-%02d-28', '%s');\n", i/2, i, i%12+1, []string{"paid", "open"}[i%4/2])
		}
	}
	return b.String()
}

func newBillingClinic(t *testing.T) (*dialog.Manager, *ontology.Store) {
	t.Helper()
	m, _, facts := managerOver(t, billingClinicDump(), "clinic")
	return m, facts
}

var clinicDesk = dialog.Who{Platform: "test", Workspace: "clinic", Channel: "desk", User: "nurse"}

func askBilling(t *testing.T, m *dialog.Manager, conv, q string) dialog.Reply {
	t.Helper()
	rs, err := m.Handle(context.Background(), dialog.Event{Kind: dialog.EventMessage, Text: q, Who: clinicDesk, Conversation: conv})
	if err != nil || len(rs) == 0 {
		t.Fatalf("%s: %v %v", q, rs, err)
	}
	return rs[len(rs)-1]
}

// A word the readings already read as one of the elements it links to
// ("bill" as visits.bill_amount, a word of its name) is not asked about,
// though the lexicon also relates it to another table (invoices).
func TestWordPlacedByTheReadingsIsNotAsked(t *testing.T) {
	t.Parallel()
	m, _ := newBillingClinic(t)
	r := askBilling(t, m, "c1", "what is the average bill per ward?")
	for n := 0; r.Kind == dialog.ReplyClarification; n++ {
		if r.Clarification.Key.Name == "vocab" {
			t.Fatalf("asked about a word the readings placed: %s", r.Text)
		}
		if n > 3 {
			t.Fatalf("too many questions: %s", r.Text)
		}
		rs, err := m.Handle(context.Background(), dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: 0, Who: clinicDesk, Conversation: "c1"})
		if err != nil || len(rs) == 0 {
			t.Fatal(err)
		}
		r = rs[len(rs)-1]
	}
	a := mustAnswer(t, r)
	if !strings.Contains(a.SQL, "bill_amount") || strings.Contains(a.SQL, "invoices") {
		t.Errorf("answer does not read the bill amount:\n%s", a.SQL)
	}
}

// A remembered meaning does not rewrite a word of the schema's own names:
// "bill" once taken for invoices still reads visits.bill_amount where
// the schema says bill, and the answer does not claim the word.
func TestRememberedWordDoesNotRewriteASchemaWord(t *testing.T) {
	t.Parallel()
	m, facts := newBillingClinic(t)
	_, err := facts.Learn(context.Background(), ontology.Fact{Scope: ontology.ScopeUser, Owner: clinicDesk.Identity().Owners().User, Warehouse: "clinic",
		Phrase: "bill", Kind: ontology.KindWord, Target: ontology.Target{Slot: ontology.SlotWord, Choice: ontology.TableTerm("invoices")}, Meaning: "invoices"})
	if err != nil {
		t.Fatal(err)
	}
	r := askBilling(t, m, "c2", "what is the total bill amount per ward?")
	for n := 0; r.Kind == dialog.ReplyClarification && n < 4; n++ {
		rs, err := m.Handle(context.Background(), dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: 0, Who: clinicDesk, Conversation: "c2"})
		if err != nil || len(rs) == 0 {
			t.Fatal(err)
		}
		r = rs[len(rs)-1]
	}
	a := mustAnswer(t, r)
	if !strings.Contains(a.SQL, "SUM(visits.bill_amount)") {
		t.Errorf("the remembered word rewrote the schema's word:\n%s", a.SQL)
	}
	if strings.Contains(r.Text, "Using your word") {
		t.Errorf("the answer claims a word it did not use: %s", r.Text)
	}
}

// A word that is only a synonym of a table's name ("clients" for
// customers) is asked about even when a reading reads that table for
// another word: here the readings count the customers' orders, grouped
// by the customers' city. Once answered, the question reads customers.
func TestSynonymOfATableIsAsked(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40), city VARCHAR(20));
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, ordered_on DATE, FOREIGN KEY (customer_id) REFERENCES customers(id));
`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "INSERT INTO customers VALUES (%d, 'Customer %d', '%s');\n", i, i, []string{"Porto", "Braga", "Faro"}[i%3])
	}
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "INSERT INTO orders VALUES (%d, %d, '2025-%02d-10');\n", i, 1+i%7, 1+i%12)
	}
	m, _, _ := managerOver(t, b.String(), "shop")
	r := askBilling(t, m, "s1", "count the clients per city")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key.Name != "vocab" {
		t.Fatalf("want a question about 'clients', got %v: %s", r.Kind, r.Text)
	}
	pick := -1
	for i, o := range r.Clarification.Options {
		if strings.Contains(o.Label, "Customers") {
			pick = i
		}
	}
	if pick < 0 {
		t.Fatalf("Customers not offered: %s", r.Text)
	}
	rs, err := m.Handle(context.Background(), dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: pick, Who: clinicDesk, Conversation: "s1"})
	if err != nil || len(rs) == 0 {
		t.Fatal(err)
	}
	a := mustAnswer(t, rs[len(rs)-1])
	if strings.Contains(a.SQL, "orders") || a.RowCount != 3 {
		t.Errorf("clients per city should count customers:\n%s", a.SQL)
	}
}
