package dialog_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/dialogtest"
	"github.com/clarify-bot/clarify/internal/testwh"
	"github.com/clarify-bot/clarify/ontology"
)

// The same examples on a lending library, a schema in no evaluation set:
// loans come back (or are lost, and never come back), have a loan fee and
// a late fee, and fees are sometimes refunded.

// lendingLibraryDump is the library's schema and rows: 120 loans over 2024 and
// 2025, one in ten lost (no return date), one in seven refunded.
func lendingLibraryDump() string {
	var b strings.Builder
	b.WriteString(`CREATE TABLE members (
  id INT NOT NULL PRIMARY KEY COMMENT 'Member id',
  name VARCHAR(60) NOT NULL COMMENT 'Full name of the member',
  joined_on DATE NOT NULL COMMENT 'Date the member joined the library'
) COMMENT='Library members';
CREATE TABLE loans (
  id INT NOT NULL PRIMARY KEY COMMENT 'Loan id',
  member_id INT NOT NULL COMMENT 'Member who borrowed the book',
  borrowed_on DATE NOT NULL COMMENT 'Date the book was borrowed',
  returned_on DATE NULL COMMENT 'Date the book came back; empty while on loan or when lost',
  status VARCHAR(12) NOT NULL COMMENT 'Loan status: on loan, overdue, returned or lost',
  fee DECIMAL(8,2) NOT NULL COMMENT 'Loan fee charged to the member',
  late_fee DECIMAL(8,2) NOT NULL COMMENT 'Late fee charged when the book came back late',
  KEY idx_loans_member (member_id),
  KEY idx_loans_borrowed (borrowed_on),
  KEY idx_loans_returned (returned_on),
  CONSTRAINT fk_loans_member FOREIGN KEY (member_id) REFERENCES members (id)
) COMMENT='Book loans, one row per loan';
CREATE TABLE refunds (
  id INT NOT NULL PRIMARY KEY COMMENT 'Refund id',
  loan_id INT NOT NULL COMMENT 'Loan refunded',
  amount DECIMAL(8,2) NOT NULL COMMENT 'Amount refunded to the member',
  refunded_on DATE NOT NULL COMMENT 'Date the refund was paid',
  KEY idx_refunds_loan (loan_id),
  CONSTRAINT fk_refunds_loan FOREIGN KEY (loan_id) REFERENCES loans (id)
) COMMENT='Refunds of loan fees';
`)
	names := []string{"Ada Byrne", "Bo Chen", "Cleo Diaz", "Dev Iyer", "Eli Park", "Fay Ngata", "Gus Oduya", "Hana Sato"}
	for i, n := range names {
		fmt.Fprintf(&b, "INSERT INTO members VALUES (%d, '%s', '2023-0%d-10');\n", i+1, n, i%9+1)
	}
	start := time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC)
	refund := 0
	for i := 1; i <= 120; i++ {
		borrowed := start.AddDate(0, 0, i*6)
		status, returned := "returned", "'"+borrowed.AddDate(0, 0, 14+i%9).Format(time.DateOnly)+"'"
		switch i % 10 {
		case 3:
			status, returned = "lost", "NULL"
		case 7:
			status, returned = "overdue", "NULL"
		}
		if i > 112 {
			status, returned = "on loan", "NULL"
		}
		fmt.Fprintf(&b, "INSERT INTO loans VALUES (%d, %d, '%s', %s, '%s', %d.50, %d.00);\n", i, i%len(names)+1, borrowed.Format(time.DateOnly), returned, status, 2+i%4, i%3)
		if i%7 == 0 {
			refund++
			fmt.Fprintf(&b, "INSERT INTO refunds VALUES (%d, %d, 1.25, '%s');\n", refund, i, borrowed.AddDate(0, 0, 30).Format(time.DateOnly))
		}
	}
	return b.String()
}

// library is a manager over the library on the embedded warehouse.
type library struct {
	t     *testing.T
	m     *dialog.Manager
	db    *warehouse.DB
	facts *ontology.Store
	n     int
}

func newLibrary(t *testing.T) *library {
	t.Helper()
	m, wh, facts := managerOver(t, lendingLibraryDump(), "library")
	return &library{t: t, m: m, db: wh, facts: facts}
}

// managerOver loads dump into a database of its own on the embedded
// warehouse and returns a manager over it (named warehouse), the
// warehouse and the person's facts.
func managerOver(t *testing.T, dump, warehouseName string) (*dialog.Manager, *warehouse.DB, *ontology.Store) {
	t.Helper()
	db := testwh.NewDatabase(t, testwh.Targets()[0], dump)
	wh := db.Open(t, warehouse.Config{})
	snap, err := wh.TakeSnapshot(context.Background(), warehouse.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	facts, convs := dialogtest.Stores(t)
	cat := catalog.New(snap, catalog.Options{})
	m, err := dialog.New(dialog.Config{Warehouse: warehouseName, Now: dialogtest.Now},
		dialog.Deps{Engine: offline.New(cat, offline.Options{Now: dialogtest.Now}), Exec: wh, Catalog: cat, Facts: facts, Admin: facts, States: convs})
	if err != nil {
		t.Fatal(err)
	}
	return m, wh, facts
}

func (l *library) send(user, conv string, ev dialog.Event) []dialog.Reply {
	l.t.Helper()
	ev.Who = dialog.Who{Platform: "test", Workspace: "lib", Channel: "desk", User: user}
	ev.Conversation = conv
	rs, err := l.m.Handle(context.Background(), ev)
	if err != nil || len(rs) == 0 {
		l.t.Fatalf("%+v: %v %v", ev, rs, err)
	}
	return rs
}

// ask starts a conversation; the reply and its conversation.
func (l *library) ask(user, q string) (dialog.Reply, string) {
	l.t.Helper()
	l.n++
	conv := fmt.Sprintf("%s-%d", user, l.n)
	rs := l.send(user, conv, dialog.Event{Kind: dialog.EventMessage, Text: q})
	return rs[len(rs)-1], conv
}

func (l *library) pick(user, conv string, r dialog.Reply, label string) dialog.Reply {
	l.t.Helper()
	if r.Kind != dialog.ReplyClarification {
		l.t.Fatalf("want a question, got %s", r.Text)
	}
	for i, o := range r.Clarification.Options {
		if strings.Contains(strings.ToLower(o.Label), strings.ToLower(label)) {
			rs := l.send(user, conv, dialog.Event{Kind: dialog.EventChoose, Target: r.Clarification.ID, Option: i})
			return rs[len(rs)-1]
		}
	}
	l.t.Fatalf("no option %q in %s", label, r.Text)
	return dialog.Reply{}
}

func (l *library) value(sql string) string {
	l.t.Helper()
	res, err := l.db.Query(context.Background(), sql, warehouse.Limits{})
	if err != nil || len(res.Rows) != 1 {
		l.t.Fatalf("%s: %v", sql, err)
	}
	return fmt.Sprint(res.Rows[0][0])
}

// answerValue is the first cell of an answer, unformatted.
func answerValue(t *testing.T, r dialog.Reply) string {
	t.Helper()
	a := mustAnswer(t, r)
	return fmt.Sprint(a.Result.Rows[0][0])
}

// The return date remembered for 'in 2024' cannot count lost loans, which
// never come back: asked, saying why, for this time only.
func TestLibraryRememberedReturnDateAndLostLoans(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	r, conv := l.ask("ada", "how many loans in 2024?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key.Name != sqlshape.SlotFilterOn {
		t.Fatalf("want a question about the date: %s", r.Text)
	}
	r = l.pick("ada", conv, r, "came back")
	if got, want := answerValue(t, r), l.value("SELECT COUNT(*) FROM loans WHERE YEAR(returned_on) = 2024"); got != want {
		t.Fatalf("loans in 2024 %s, want %s", got, want)
	}

	r, conv = l.ask("ada", "how many lost loans in 2025?")
	if r.Kind != dialog.ReplyClarification || !strings.Contains(r.Clarification.Prompt, "'lost' have no date the book came back") {
		t.Fatalf("want the date asked, saying why: %s", r.Text)
	}
	r = l.pick("ada", conv, r, "borrowed")
	if got, want := answerValue(t, r), l.value("SELECT COUNT(*) FROM loans WHERE status = 'lost' AND YEAR(borrowed_on) = 2025"); got != want || want == "0" {
		t.Fatalf("lost loans %s, want %s", got, want)
	}
	// The usual choice stays, and keeps counting its uses.
	r, _ = l.ask("ada", "how many loans in 2025?")
	if a := mustAnswer(t, r); !strings.Contains(a.SQL, "returned_on") {
		t.Fatalf("the usual return date should decide: %s", a.SQL)
	}
	facts, _ := l.facts.List(context.Background(), ontology.Filter{Owner: "test:lib:ada", Phrase: "dates"})
	if len(facts) != 1 || facts[0].Uses != 1 {
		t.Fatalf("the date choice: %+v", facts)
	}
}

// A fee minus what was refunded, typed under Other…, is the answer, and
// next time the definition decides.
func TestLibraryTypedFeeMinusRefunds(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	r, conv := l.ask("bo", "what were fees in 2024?")
	for r.Kind == dialog.ReplyClarification && r.Clarification.Key.Name != sqlshape.SlotMeasure {
		r = l.pick("bo", conv, r, "borrowed")
	}
	if r.Kind != dialog.ReplyClarification {
		t.Fatalf("want a question about fees: %s", r.Text)
	}
	rs := l.send("bo", conv, dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "sum of fee minus refunds"})
	if rs[0].Resolved == nil || !strings.Contains(rs[0].Resolved.Choice, "minus total amount refunded to the member") {
		t.Fatalf("confirmation: %+v", rs[0])
	}
	r = rs[len(rs)-1]
	for r.Kind == dialog.ReplyClarification {
		r = l.pick("bo", conv, r, "borrowed")
	}
	want := l.value("SELECT SUM(fee) - (SELECT SUM(r.amount) FROM refunds r JOIN loans x ON x.id = r.loan_id WHERE YEAR(x.borrowed_on) = 2024) FROM loans WHERE YEAR(borrowed_on) = 2024")
	if got := answerValue(t, r); got != want {
		t.Fatalf("fees %s, want %s\n%s", got, want, r.Answer.SQL)
	}
	r, _ = l.ask("bo", "what were fees in 2025?")
	if a := mustAnswer(t, r); !strings.Contains(a.SQL, "refunds") {
		t.Fatalf("bo's definition should decide: %s\n%s", r.Text, a.SQL)
	}
}

// Two statuses meant together are typed; every meaning turned down leaves
// the word out, saying so.
func TestLibraryDefinitions(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	r, conv := l.ask("cleo", "how many active loans are there?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key != sqlshape.DefineKey("active") {
		t.Fatalf("want a question about 'active': %s", r.Text)
	}
	rs := l.send("cleo", conv, dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "status is on loan or overdue"})
	if got, want := answerValue(t, rs[len(rs)-1]), l.value("SELECT COUNT(*) FROM loans WHERE status IN ('on loan', 'overdue')"); got != want {
		t.Fatalf("active loans %s, want %s", got, want)
	}

	r, conv = l.ask("dev", "how many active loans are there?")
	for r.Kind == dialog.ReplyClarification {
		rs := l.send("dev", conv, dialog.Event{Kind: dialog.EventOther, Target: r.Clarification.ID, Text: "none of these"})
		r = rs[len(rs)-1]
	}
	a := mustAnswer(t, r)
	if strings.Contains(a.SQL, "WHERE") || !strings.Contains(r.Text, "'active'") {
		t.Fatalf("every meaning was turned down: the answer should leave 'active' out and say so:\n%s\n%s", r.Text, a.SQL)
	}
}

// A word the person chose to leave out is no caveat on the answer: they
// were asked and know.
func TestLibraryLeftOutByChoiceIsNoCaveat(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	r, conv := l.ask("eli", "how many active loans are there?")
	if r.Kind != dialog.ReplyClarification || r.Clarification.Key != sqlshape.DefineKey("active") {
		t.Fatalf("want a question about 'active': %s", r.Text)
	}
	r = l.pick("eli", conv, r, "leave 'active' out")
	for r.Kind == dialog.ReplyClarification {
		r = l.pick("eli", conv, r, "")
	}
	a := mustAnswer(t, r)
	if got, want := fmt.Sprint(a.Result.Rows[0][0]), l.value("SELECT COUNT(*) FROM loans"); got != want {
		t.Fatalf("all loans %s, want %s", got, want)
	}
	if slices.Contains(a.Unused, "active") || strings.Contains(r.Text, dialog.UnusedNote([]string{"active"})) {
		t.Fatalf("the person chose to leave 'active' out; no caveat wanted:\n%s", r.Text)
	}
}
