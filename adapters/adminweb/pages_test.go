package adminweb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/glossary"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/ontology"
)

// TestProposalRules: a meaning is proposed when enough people hold it,
// nobody used another lately, the team does not have it already, and no
// admin set it aside at its present support.
func TestProposalRules(t *testing.T) {
	const day = 24 * time.Hour
	type choice struct {
		who, column string
		ago         time.Duration
		inactive    bool
	}
	net := "orders.net_amount"
	gross := "orders.gross_amount"
	tests := []struct {
		name    string
		choices []choice
		team    string
		people  int
		want    int
	}{
		{"three agree", []choice{{"U1", net, day, false}, {"U2", net, day, false}, {"U3", net, 2 * day, false}}, "", 3, 1},
		{"two are not enough", []choice{{"U1", net, day, false}, {"U2", net, day, false}}, "", 3, 0},
		{"the threshold is configurable", []choice{{"U1", net, day, false}, {"U2", net, day, false}}, "", 2, 1},
		{"someone chose otherwise lately", []choice{{"U1", net, day, false}, {"U2", net, day, false}, {"U3", net, day, false}, {"U4", gross, 10 * day, false}}, "", 3, 0},
		{"someone chose otherwise long ago", []choice{{"U1", net, day, false}, {"U2", net, day, false}, {"U3", net, day, false}, {"U4", gross, 45 * day, false}}, "", 3, 1},
		{"a meaning given up does not count", []choice{{"U1", net, day, false}, {"U2", net, day, false}, {"U3", net, day, true}}, "", 3, 0},
		{"the team has it already", []choice{{"U1", net, day, false}, {"U2", net, day, false}, {"U3", net, day, false}}, net, 3, 0},
		{"the team has another", []choice{{"U1", net, day, false}, {"U2", net, day, false}, {"U3", net, day, false}}, gross, 3, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, kvtest.Targets()[0], func(c *Config) { c.ProposalPeople = tc.people })
			ctx := context.Background()
			now := e.clk.Now()
			for _, c := range tc.choices {
				e.clk.t = now.Add(-c.ago)
				f := learn(t, e.store, "slack:T1:"+c.who, "revenue", c.column, c.column)
				if c.inactive {
					if _, err := e.store.Reject(ctx, f.ID, "slack:T1:"+c.who); err != nil {
						t.Fatal(err)
					}
				}
			}
			e.clk.t = now
			if tc.team != "" {
				f := learn(t, e.store, "slack:T1:UADMIN", "revenue", tc.team, tc.team)
				if _, err := e.store.Promote(ctx, f.ID, ontology.ScopeWorkspace, "slack:T1", ontology.Actor{ID: "a", Admin: true}); err != nil {
					t.Fatal(err)
				}
				if err := e.store.Delete(ctx, f.ID, ontology.Actor{ID: "a", Admin: true}); err != nil {
					t.Fatal(err)
				}
			}
			props, err := e.server.proposals(ctx, mustLoad(t, e, "slack:T1:UADMIN"))
			if err != nil {
				t.Fatal(err)
			}
			if len(props) != tc.want {
				t.Fatalf("%d proposals, want %d: %+v", len(props), tc.want, props)
			}
			if tc.want == 1 && (props[0].Meaning != net || len(props[0].People) < tc.people) {
				t.Errorf("proposal %+v", props[0])
			}
			if tc.want == 1 && tc.team == gross && props[0].Team != gross {
				t.Errorf("the proposal should name the team's present meaning: %+v", props[0])
			}
		})
	}
}

// TestAcceptDismissAndImpact: the impact re-runs recent questions with the
// proposed meaning and nobody's own; accepting (with edited wording)
// makes it the team's; dismissing hides it until more people choose it.
func TestAcceptDismissAndImpact(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, nil)
		ctx := context.Background()
		e.clk.Advance(-40 * 24 * time.Hour)
		learn(t, e.store, "slack:T1:UDAN", "revenue", "orders.gross_amount", "gross revenue")
		if err := e.store.RecordQuestion(ctx, ontology.QuestionRecord{Platform: "slack", Workspace: "T1", Channel: "C1", User: "slack:T1:UDAN", Warehouse: "shop",
			Question: "What was revenue in 2024?", Outcome: "answered", SQL: []string{"SELECT SUM(gross_amount) FROM orders"}}); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(38 * 24 * time.Hour)
		for _, u := range []string{"U1", "U2", "U3"} {
			learn(t, e.store, "slack:T1:"+u, "revenue", "orders.net_amount", "net revenue")
		}
		if err := e.store.RecordQuestion(ctx, ontology.QuestionRecord{Platform: "slack", Workspace: "T1", Channel: "C1", User: "slack:T1:U1", Warehouse: "shop",
			Question: "revenue by month", Outcome: "answered", SQL: []string{"SELECT net BY month"}}); err != nil {
			t.Fatal(err)
		}
		e.clk.Advance(2 * 24 * time.Hour)
		// The bot answers with the column of whichever revenue fact it is given.
		var seen [][]ontology.Fact
		e.wh.preview = func(q string, facts []ontology.Fact) (Preview, error) {
			seen = append(seen, facts)
			for _, f := range facts {
				if f.Phrase == "revenue" {
					if strings.Contains(q, "month") {
						return Preview{SQL: "SELECT net BY month"}, nil
					}
					return Preview{SQL: "SELECT SUM(" + strings.TrimPrefix(f.Target.Choice.Column, "orders.") + ") FROM orders"}, nil
				}
			}
			return Preview{Asks: "By 'revenue', which do you mean?"}, nil
		}
		e.wh.query = func(stmt string) (*warehouse.Result, error) {
			v := "10"
			if strings.Contains(stmt, "gross") {
				v = "12"
			}
			return &warehouse.Result{Columns: []warehouse.ResultColumn{{Name: "total"}}, Rows: [][]any{{v}}}, nil
		}
		u, csrf := e.signIn("slack:T1:UADMIN")
		props, _ := e.server.proposals(ctx, mustLoad(t, e, "slack:T1:UADMIN"))
		if len(props) != 1 {
			t.Fatalf("proposals: %+v", props)
		}
		st, body := u.get("/admin/proposals/" + props[0].Key)
		if st != http.StatusOK {
			t.Fatalf("impact: %d", st)
		}
		for _, want := range []string{"1 answer changes", "answer changes", "12 → 10", "keeps their own meaning: gross revenue", "same answer"} {
			if !strings.Contains(body, want) {
				t.Errorf("the impact does not say %q", want)
			}
		}
		for _, facts := range seen {
			n := 0
			for _, f := range facts {
				if f.Phrase == "revenue" {
					n++
					if f.Scope != ontology.ScopeWorkspace || f.Target.Choice.Column != "orders.net_amount" {
						t.Errorf("a re-run got revenue = %+v, want only the proposed team meaning", f)
					}
				}
			}
			if n != 1 {
				t.Errorf("a re-run got %d revenue facts, want the proposal alone", n)
			}
		}
		if st, _, _ := u.post("/admin/proposals/"+props[0].Key+"/accept", url.Values{"csrf": {csrf}, "meaning": {"Net revenue (finance)"}}, u.origin); st != http.StatusSeeOther {
			t.Fatalf("accept: %d", st)
		}
		team, _ := e.store.List(ctx, ontology.Filter{Scope: "workspace", Owner: "slack:T1"})
		if len(team) != 1 || team[0].Meaning != "Net revenue (finance)" || team[0].Target.Choice.Column != "orders.net_amount" {
			t.Fatalf("team after accepting: %+v", team)
		}
		hist, _ := e.store.History(ctx, ontology.HistoryFilter{Limit: 2})
		for _, h := range hist {
			if h.Actor != "slack:T1:UADMIN" || !strings.HasPrefix(h.Via, "admin console from 127.0.0.1") {
				t.Errorf("change audited as by %q via %q", h.Actor, h.Via)
			}
		}
		if props, _ := e.server.proposals(ctx, mustLoad(t, e, "slack:T1:UADMIN")); len(props) != 0 {
			t.Errorf("an accepted proposal is still proposed: %+v", props)
		}
	})
}

func TestDismissUntilMorePeople(t *testing.T) {
	e := newEnv(t, kvtest.Targets()[0], nil)
	ctx := context.Background()
	for _, u := range []string{"U1", "U2", "U3"} {
		learn(t, e.store, "slack:T1:"+u, "revenue", "orders.net_amount", "net revenue")
	}
	u, csrf := e.signIn("slack:T1:UADMIN")
	props, _ := e.server.proposals(ctx, mustLoad(t, e, "slack:T1:UADMIN"))
	if st, _, _ := u.post("/admin/proposals/"+props[0].Key+"/dismiss", url.Values{"csrf": {csrf}}, u.origin); st != http.StatusSeeOther {
		t.Fatalf("dismiss: %d", st)
	}
	if props, _ := e.server.proposals(ctx, mustLoad(t, e, "slack:T1:UADMIN")); len(props) != 0 {
		t.Fatalf("a dismissed proposal is still proposed")
	}
	learn(t, e.store, "slack:T1:U4", "revenue", "orders.net_amount", "net revenue")
	if props, _ := e.server.proposals(ctx, mustLoad(t, e, "slack:T1:UADMIN")); len(props) != 1 || len(props[0].People) != 4 {
		t.Fatalf("a fourth person should bring the proposal back: %+v", props)
	}
}

// TestConflictsAndSearch: people who ask in one channel with different
// meanings of a phrase flag it; the search finds phrases by meaning.
func TestConflictsAndSearch(t *testing.T) {
	e := newEnv(t, kvtest.Targets()[0], nil)
	ctx := context.Background()
	learn(t, e.store, "slack:T1:U1", "revenue", "orders.net_amount", "net revenue")
	learn(t, e.store, "slack:T1:U2", "revenue", "orders.gross_amount", "gross revenue")
	learn(t, e.store, "slack:T1:U3", "region", "regions.name", "sales region")
	for _, q := range []ontology.QuestionRecord{
		{Platform: "slack", Workspace: "T1", Channel: "CSALES", User: "slack:T1:U1", Warehouse: "shop", Question: "revenue?", Outcome: "answered"},
		{Platform: "slack", Workspace: "T1", Channel: "CSALES", User: "slack:T1:U2", Warehouse: "shop", Question: "revenue!", Outcome: "answered"},
		{Platform: "slack", Workspace: "T1", Channel: "COPS", User: "slack:T1:U3", Warehouse: "shop", Question: "regions", Outcome: "answered"},
	} {
		if err := e.store.RecordQuestion(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	ws := mustLoad(t, e, "slack:T1:UADMIN")
	for _, p := range ws.phrases() {
		switch p.Phrase {
		case "revenue":
			if len(p.Conflicts) != 1 || p.Conflicts[0].Channel != "CSALES" || len(p.Conflicts[0].Meanings) != 2 {
				t.Errorf("revenue conflicts: %+v", p.Conflicts)
			}
		case "region":
			if len(p.Conflicts) != 0 {
				t.Errorf("region has no conflict: %+v", p.Conflicts)
			}
		}
	}
	u, _ := e.signIn("slack:T1:UADMIN")
	_, body := u.get("/admin/phrases?q=gross")
	if !strings.Contains(body, "revenue") || strings.Contains(body, "sales region") {
		t.Errorf("searching 'gross' should find revenue (by its meaning) and not region")
	}
	_, body = u.get("/admin/phrases?conflicts=1")
	if !strings.Contains(body, ">revenue<") || strings.Contains(body, ">region<") {
		t.Errorf("only conflicts: %s", body)
	}
}

// TestHistoryRollBack: a change and a whole glossary load are rolled
// back from the history; a change made again since is not, unless the
// later changes go too.
func TestHistoryRollBack(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, nil)
		ctx := context.Background()
		admin := ontology.Actor{ID: "slack:T1:UADMIN", Admin: true}
		f := learn(t, e.store, "slack:T1:U1", "revenue", "orders.net_amount", "net revenue")
		if _, err := e.store.Edit(ctx, f.ID, nil, "first", admin); err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.Edit(ctx, f.ID, nil, "second", admin); err != nil {
			t.Fatal(err)
		}
		hist, _ := e.store.History(ctx, ontology.HistoryFilter{})
		first := hist[1].Seq
		u, csrf := e.signIn("slack:T1:UADMIN")
		st, body, _ := u.post(fmt.Sprintf("/admin/history/%d/rollback", first), url.Values{"csrf": {csrf}}, u.origin)
		if st != http.StatusConflict || !strings.Contains(body, "changed again") || !strings.Contains(body, "1 later change") {
			t.Fatalf("rolling back an edit edited since: %d\n%s", st, body)
		}
		if st, _, _ := u.post(fmt.Sprintf("/admin/history/%d/rollback", first), url.Values{"csrf": {csrf}, "with_later": {"1"}}, u.origin); st != http.StatusSeeOther {
			t.Fatalf("roll back with the later change: %d", st)
		}
		if got, _ := e.store.Get(ctx, f.ID); got.Meaning != "net revenue" {
			t.Errorf("after the roll back: %q", got.Meaning)
		}

		// A glossary load, rolled back as a whole for this workspace only.
		g := "name: team\nwarehouse: shop\nmeasures:\n  - name: margin\n    expr: SUM(orders.margin)\n"
		gl, err := glossary.Parse("team.yml", []byte(g))
		if err != nil {
			t.Fatal(err)
		}
		facts, _ := glossary.Facts(gl, glossary.Target{Warehouse: "shop", Workspaces: []string{"slack:T1", "slack:T2"}})
		if _, err := e.store.ReplaceSource(ctx, gl.Source(), facts, admin); err != nil {
			t.Fatal(err)
		}
		_, body = u.get("/admin/history")
		m := regexp.MustCompile(`/admin/history/(\d+)/rollback-load`).FindStringSubmatch(body)
		if m == nil || !strings.Contains(body, "2 changes here") {
			t.Fatalf("no load to roll back (2 changes here):\n%s", body)
		}
		if st, _, _ := u.post(m[0], url.Values{"csrf": {csrf}}, u.origin); st != http.StatusSeeOther {
			t.Fatalf("roll back the load: %d", st)
		}
		if left, _ := e.store.List(ctx, ontology.Filter{Owner: "slack:T1", Scope: "workspace"}); len(left) != 0 {
			t.Errorf("the load's facts of this workspace survived: %+v", left)
		}
		if theirs, _ := e.store.List(ctx, ontology.Filter{Owner: "slack:T2", Scope: "workspace"}); len(theirs) != 2 {
			t.Errorf("another workspace's copy of the load was rolled back: %d left", len(theirs))
		}
	})
}

// TestGlossaryPage: a pasted glossary with an error is shown with its
// problem at its line and not loaded; an uploaded good one loads for this
// workspace; the download loads back as the same facts.
func TestGlossaryPage(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, nil)
		ctx := context.Background()
		e.wh.query = func(stmt string) (*warehouse.Result, error) {
			if strings.Contains(stmt, "net_amt") {
				return nil, &warehouse.Error{Kind: warehouse.KindUnknownColumn, Msg: "unknown column", Name: "orders.net_amt"}
			}
			return &warehouse.Result{}, nil
		}
		u, csrf := e.signIn("slack:T1:UADMIN")
		bad := "name: team\nwarehouse: shop\nworkspaces: [\"slack:T1\", \"slack:T9\"]\nmeasures:\n  - name: net revenue\n    expr: SUM(orders.net_amt)\n    synonyms: [turnover]\n"
		st, body, _ := u.post("/admin/glossary/check", url.Values{"csrf": {csrf}, "text": {bad}, "warehouse": {"shop"}}, u.origin)
		if st != http.StatusUnprocessableEntity || !strings.Contains(body, `line 6</a>: measure &#34;net revenue&#34;: unknown column orders.net_amt`) || strings.Contains(body, "/glossary/load") {
			t.Fatalf("a glossary with an error: %d\n%s", st, body)
		}
		if !strings.Contains(body, `<li id="L6" class="bad">`) {
			t.Errorf("line 6 is not marked")
		}
		// Loading it anyway (a forged load form) is refused by the check again.
		if st, _, _ := u.post("/admin/glossary/load", url.Values{"csrf": {csrf}, "text": {bad}, "warehouse": {"shop"}}, u.origin); st != http.StatusUnprocessableEntity {
			t.Fatalf("loading a glossary with an error: %d", st)
		}

		good := strings.Replace(bad, "net_amt", "net_amount", 1)
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField("csrf", csrf)
		_ = mw.WriteField("warehouse", "shop")
		fw, _ := mw.CreateFormFile("file", "team.yml")
		_, _ = io.WriteString(fw, good)
		mw.Close()
		req, _ := http.NewRequest("POST", e.srv.URL+"/admin/glossary/check", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Origin", u.origin)
		resp, err := u.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "No problems") || !strings.Contains(string(b), "also names slack:T9") {
			t.Fatalf("an uploaded good glossary: %d\n%s", resp.StatusCode, b)
		}
		if st, body, _ := u.post("/admin/glossary/load", url.Values{"csrf": {csrf}, "text": {good}, "file_name": {"team.yml"}, "warehouse": {"shop"}}, u.origin); st != http.StatusOK || !strings.Contains(body, "glossary:team loaded for slack:T1: 4 added") {
			t.Fatalf("load: %d\n%s", st, body)
		}
		loaded, _ := e.store.List(ctx, ontology.Filter{Scope: "workspace", IncludeInactive: true})
		for _, f := range loaded {
			if f.Owner != "slack:T1" || f.Source != "glossary:team" {
				t.Errorf("loaded %+v, want facts of slack:T1 only", f)
			}
		}

		// The download loads back as the same facts.
		st, y := u.get("/admin/glossary/download?warehouse=shop")
		if st != http.StatusOK || !strings.Contains(y, "name: team") {
			t.Fatalf("download: %d\n%s", st, y)
		}
		back, err := glossary.Parse("team.yml", []byte(y))
		if err != nil {
			t.Fatalf("the download does not parse: %v\n%s", err, y)
		}
		again, _ := glossary.Facts(back, glossary.Target{Warehouse: "shop", Workspaces: []string{"slack:T1"}})
		if len(again) != len(loaded) {
			t.Fatalf("the download loads back as %d facts, want %d:\n%s", len(again), len(loaded), y)
		}
		st, body, _ = u.post("/admin/glossary/load", url.Values{"csrf": {csrf}, "text": {y}, "file_name": {"download.yml"}, "warehouse": {"shop"}}, u.origin)
		if st != http.StatusOK || !strings.Contains(body, "0 added, 0 updated, 4 unchanged, 0 removed") {
			t.Errorf("re-loading the download should change nothing: %d\n%s", st, body)
		}
	})
}

// TestQuestionsPage: filters by outcome, person and text; a confirmed
// answer becomes a verified query in one click.
func TestQuestionsPage(t *testing.T) {
	onStores(t, func(t *testing.T, tgt kvtest.Target) {
		e := newEnv(t, tgt, nil)
		ctx := context.Background()
		recs := []ontology.QuestionRecord{
			{User: "slack:T1:UANA", Question: "How many orders shipped?", Outcome: "answered", SQL: []string{"SELECT COUNT(*) FROM orders"},
				Steps: []ontology.QuestionStep{{Kind: "clarification", Asked: "By 'shipped'…", Answer: "ship date"}}},
			{User: "slack:T1:UBEN", Question: "list customers chronologically", Outcome: "answered", Unused: []string{"chronologically"}},
			{User: "slack:T1:UBEN", Question: "best customer", Outcome: "failed", Detail: "no reading"},
			{User: "slack:T1:UANA", Question: "How many orders shipped?", Outcome: "confirmed", SQL: []string{"SELECT COUNT(*) FROM orders"}},
		}
		for _, r := range recs {
			r.Platform, r.Workspace, r.Channel, r.Warehouse = "slack", "T1", "C1", "shop"
			if err := e.store.RecordQuestion(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		u, csrf := e.signIn("slack:T1:UADMIN")
		for _, tc := range []struct {
			query string
			want  int
		}{
			// The confirmation is a mark on the answer it confirms, not a
			// second card, unless the filter shows confirmations alone.
			{"", 3}, {"outcome=asked", 1}, {"outcome=caveated", 1}, {"outcome=abstained", 1}, {"outcome=confirmed", 1},
			{"user=UBEN", 2}, {"q=orders", 1}, {"outcome=answered&user=ana", 1},
		} {
			_, body := u.get("/admin/questions?" + tc.query)
			if n := strings.Count(body, `<li class="q"`); n != tc.want {
				t.Errorf("?%s lists %d questions, want %d", tc.query, n, tc.want)
			}
		}
		// The answer shows without expanding its card: its statement,
		// rows and time come before the details, with the confirmed mark.
		_, all := u.get("/admin/questions")
		card := all[strings.Index(all, "How many orders shipped?"):]
		if end := strings.Index(card, `<li class="q"`); end > 0 {
			card = card[:end]
		}
		if i, j := strings.Index(card, "SELECT COUNT(*) FROM orders"), strings.Index(card, "<details>"); i < 0 || j < 0 || i > j {
			t.Errorf("the answer's statement is not on the card before its details:\n%s", card)
		}
		if !strings.Contains(card, "out-confirmed") || !strings.Contains(card, "/verify") {
			t.Errorf("the answer's card lacks the confirmed mark or its verify button:\n%s", card)
		}
		_, body := u.get("/admin/questions?outcome=confirmed")
		m := regexp.MustCompile(`/admin/questions/(\d+)/verify`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no verify button on a confirmed answer")
		}
		if st, _, _ := u.post(m[0], url.Values{"csrf": {csrf}}, u.origin); st != http.StatusSeeOther {
			t.Fatalf("verify: %d", st)
		}
		vs, _ := e.store.List(ctx, ontology.Filter{Scope: "workspace", Owner: "slack:T1"})
		if len(vs) != 1 || vs[0].Kind != ontology.KindQuery || vs[0].VerifiedBy != "UADMIN" || vs[0].Target.Choice.Expr != "SELECT COUNT(*) FROM orders" {
			t.Fatalf("verified query: %+v", vs)
		}
		if _, body := u.get("/admin/questions?outcome=confirmed"); strings.Contains(body, "/verify") || !strings.Contains(body, "verified by UADMIN") {
			t.Errorf("a verified answer still offers verifying")
		}
	})
}
