package adminweb

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/ontology"
)

// TestVerifyChecksTheQuery: an answer its asker confirmed was checked for
// the asker, whose access level may see more than the workspace: before
// it becomes everyone's verified query it runs through the warehouse's
// guarded, access-checked path like any statement, and one the warehouse
// refuses stays unverified.
func TestVerifyChecksTheQuery(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, nil)
		var ran []string
		e.wh.query = func(statement string) (*warehouse.Result, error) {
			ran = append(ran, statement)
			if strings.Contains(statement, "phone") {
				return nil, &warehouse.Error{Kind: warehouse.KindAccessDenied, Msg: "the warehouse refused access"}
			}
			return &warehouse.Result{}, nil
		}
		ctx := context.Background()
		for _, sql := range []string{"SELECT name, phone FROM patients", "SELECT COUNT(*) FROM patients"} {
			r := ontology.QuestionRecord{Platform: "slack", Workspace: "T1", Channel: "C1", Warehouse: "shop", User: "slack:T1:UBILL",
				Question: "patients " + sql[7:12], Outcome: "confirmed", SQL: []string{sql}}
			if err := e.store.RecordQuestion(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		u, csrf := e.signIn("slack:T1:UADMIN")
		_, body := u.get("/admin/questions?outcome=confirmed")
		buttons := regexp.MustCompile(`/admin/questions/(\d+)/verify`).FindAllString(body, -1)
		if len(buttons) != 2 {
			t.Fatalf("%d verify buttons", len(buttons))
		}
		statuses := map[int]int{}
		for _, b := range buttons {
			st, _, _ := u.post(b, url.Values{"csrf": {csrf}}, u.origin)
			statuses[st]++
		}
		if statuses[http.StatusConflict] != 1 || statuses[http.StatusSeeOther] != 1 {
			t.Fatalf("verify statuses %v, want one refused and one verified", statuses)
		}
		vs, _ := e.store.List(ctx, ontology.Filter{Scope: "workspace", Owner: "slack:T1"})
		if len(vs) != 1 || vs[0].Target.Choice.Expr != "SELECT COUNT(*) FROM patients" {
			t.Fatalf("verified queries: %+v", vs)
		}
		if len(ran) != 2 {
			t.Fatalf("statements checked: %q", ran)
		}
	})
}

// TestNotEnforcedBanner: what the bot found not enforced by a warehouse's
// privileges is on every page an admin sees.
func TestNotEnforcedBanner(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		const warning = `The warehouse "shop" does not enforce its access rules with its own privileges (level default: reads patients.phone).`
		e := newEnv(t, tgt, func(c *Config) { c.Warnings = func() []string { return []string{warning} } })
		u, _ := e.signIn("slack:T1:UADMIN")
		for _, page := range []string{"/admin/phrases", "/admin/questions", "/admin/glossary"} {
			if _, body := u.get(page); !strings.Contains(body, "Not enforced.") || !strings.Contains(body, "level default: reads patients.phone") {
				t.Errorf("%s shows no banner", page)
			}
		}
		if _, body := e.user().get("/admin/phrases"); strings.Contains(body, "patients.phone") {
			t.Error("the banner is shown before sign-in")
		}
	})
}

// protectedWarehouse is a fake warehouse whose access rules protect
// patients.phone.
type protectedWarehouse struct{ fakeWarehouse }

func (protectedWarehouse) Withholds(table, column string) bool {
	return table == "patients" && column == "phone"
}

// TestGlossaryCheckRefusesProtectedValues: the console's glossary check
// refuses a filter that writes values of a column the access rules
// protect, as bot glossary check does: they would reach prompts and
// answers.
func TestGlossaryCheckRefusesProtectedValues(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, func(c *Config) { c.Warehouses = map[string]Warehouse{"shop": protectedWarehouse{}} })
		u, csrf := e.signIn("slack:T1:UADMIN")
		text := "name: desk\nfilters:\n  - name: the director\n    table: patients\n    where: patients.phone = 'zq-555-0100'\n"
		st, body, _ := u.post("/admin/glossary/check", url.Values{"csrf": {csrf}, "text": {text}, "warehouse": {"shop"}}, u.origin)
		if st != http.StatusUnprocessableEntity || !strings.Contains(body, "writes values of patients.phone") {
			t.Fatalf("check: %d\n%s", st, body)
		}
	})
}
