package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/demodata"
	"github.com/clarify-bot/clarify/connectors/llm/llmtest"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/router"
)

const shopOrders = 400

// shopWarehouse is the demo warehouse under access rules: customers.email
// hidden, products.unit_cost sensitive, asked only in Slack workspace T1.
func shopWarehouse() WarehouseConfig {
	return WarehouseConfig{Name: "shop", Demo: true, DemoOrders: shopOrders, Access: access.Rules{
		Channels:  []string{"slack:T1"},
		Hidden:    []string{"customers.email"},
		Sensitive: []string{"products.unit_cost"},
	}}
}

var ana = dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"}

// hiddenEmails are the values of customers.email in the generated demo.
func hiddenEmails(t *testing.T) []string {
	t.Helper()
	tbl := demodata.Generate(demodata.DefaultSeed, shopOrders).Table("customers")
	col := -1
	for i, c := range tbl.Columns {
		if c == "email" {
			col = i
		}
	}
	if col < 0 || len(tbl.Rows) == 0 {
		t.Fatal("the demo's customers have no email column")
	}
	var out []string
	for _, r := range tbl.Rows {
		out = append(out, r[col].(string))
	}
	return out
}

// converse asks a question and picks the first option of every
// clarification until the bot stops asking; it returns every reply.
func converse(t *testing.T, r *router.Router, who dialog.Who, conv, question string) []dialog.Reply {
	t.Helper()
	ctx := context.Background()
	all, err := r.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: question})
	if err != nil {
		t.Fatalf("%q: %v", question, err)
	}
	for range 8 {
		last := all[len(all)-1]
		if last.Clarification == nil {
			return all
		}
		more, err := r.Handle(ctx, dialog.Event{Kind: dialog.EventChoose, Conversation: conv, Who: who, Target: last.Clarification.ID, Option: 0})
		if err != nil {
			t.Fatalf("%q, choosing: %v", question, err)
		}
		all = append(all, more...)
	}
	t.Fatalf("%q: still asking after 8 rounds", question)
	return nil
}

// shown is everything a person could read in the replies: texts, options
// with their examples, answer cells and the answers' SQL.
func shown(replies []dialog.Reply) string {
	var b strings.Builder
	for _, r := range replies {
		fmt.Fprintln(&b, r.Text)
		if c := r.Clarification; c != nil {
			for _, o := range c.Options {
				fmt.Fprintln(&b, o.Label, o.Example)
			}
		}
		if a := r.Answer; a != nil {
			fmt.Fprintln(&b, a.Columns, a.Rows, a.SQL, a.Explanation)
			if a.Result != nil {
				fmt.Fprintln(&b, a.Result.Rows)
			}
		}
	}
	return b.String()
}

func answerOf(replies []dialog.Reply) *dialog.Answer {
	for _, r := range replies {
		if r.Answer != nil {
			return r.Answer
		}
	}
	return nil
}

// assertNoneShown fails if any value appears in what the person read.
func assertNoneShown(t *testing.T, text string, values []string) {
	t.Helper()
	for _, v := range values {
		if strings.Contains(text, v) {
			t.Fatalf("a hidden value %q was shown:\n%s", v, text)
		}
	}
}

func TestAccessRulesWithTheOfflineEngine(t *testing.T) {
	t.Parallel()
	m, _, _ := startMain(t, Config{Warehouses: []WarehouseConfig{shopWarehouse()}})
	emails := hiddenEmails(t)
	snap := m.slots[0].Current().Catalog.Snapshot()
	if snap.Schema.Table("customers").Column("email") != nil || snap.Profile("customers", "email") != nil {
		t.Fatal("the catalog still has customers.email")
	}
	if p := snap.Profile("products", "unit_cost"); p == nil || p.Min != "" || p.Max != "" || len(p.Samples)+len(p.Top)+len(p.Values) > 0 {
		t.Fatalf("the catalog keeps values of the sensitive products.unit_cost: %+v", p)
	}

	t.Run("list customers never shows their email", func(t *testing.T) {
		for i, q := range []string{"list customers", "list customers and their email addresses", "customer emails in Texas"} {
			replies := converse(t, m.router, ana, fmt.Sprintf("list%d", i), q)
			text := shown(replies)
			assertNoneShown(t, text, emails)
			if strings.Contains(text, "Contact email address") {
				t.Fatalf("%q: the hidden column is offered:\n%s", q, text)
			}
		}
	})
	t.Run("a sensitive column filters and counts", func(t *testing.T) {
		replies := converse(t, m.router, ana, "count", "how many products have a unit cost below 20?")
		a := answerOf(replies)
		if a == nil || len(a.Rows) != 1 || a.Rows[0][0] == "0" || !strings.Contains(a.SQL, "unit_cost <") {
			t.Fatalf("no count over a filter on the sensitive column:\n%s", shown(replies))
		}
	})
	t.Run("a sensitive column's values are refused clearly", func(t *testing.T) {
		replies := converse(t, m.router, ana, "avg", "what is the average unit cost of products?")
		if a := answerOf(replies); a != nil {
			t.Fatalf("answered with the sensitive column's values:\n%s", shown(replies))
		}
		if text := shown(replies); !strings.Contains(text, "This warehouse keeps products.unit_cost sensitive: it can filter and count, but its values can't be shown.") {
			t.Fatalf("the refusal does not say why:\n%s", text)
		}
	})
}

func TestAccessRulesWhoMayAsk(t *testing.T) {
	t.Parallel()
	m, _, _ := startMain(t, Config{Warehouses: []WarehouseConfig{shopWarehouse()}})
	ctx := context.Background()
	elsewhere := dialog.Who{Platform: "slack", Workspace: "T2", Channel: "C7", User: "U1"}
	const refusal = `This channel can't ask the warehouse "shop". Ask an admin to add it.`
	for _, text := range []string{"how many orders are there?", "warehouse shop"} {
		replies, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "x-" + text, Who: elsewhere, Text: text})
		if err != nil || len(replies) != 1 || !strings.Contains(replies[0].Text, refusal) || replies[0].Answer != nil {
			t.Fatalf("%q from a channel not allowed: %+v %v", text, replies, err)
		}
	}
	if a := answerOf(converse(t, m.router, ana, "ok", "how many orders are there?")); a == nil {
		t.Fatal("an allowed channel got no answer")
	}
}

// TestPreferencesOutsideTheAllowedChannels: the App Home and direct
// messages are no channel the rules list; a person may still see their own
// preferences there (issue 24: "couldn't read your preferences"), but a
// person the rules do not let ask may not.
func TestPreferencesOutsideTheAllowedChannels(t *testing.T) {
	t.Parallel()
	wc := shopWarehouse()
	wc.Access.Channels = []string{"slack:T1:C1"}
	wc.Access.Users = []string{"slack:T1:U1"}
	m, _, _ := startMain(t, Config{Warehouses: []WarehouseConfig{wc}})
	ctx := context.Background()
	home := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "D42", User: "U1"}
	replies, err := m.router.Handle(ctx, dialog.Event{Kind: dialog.EventPrefs, Who: home})
	if err != nil || len(replies) != 1 || replies[0].Kind != dialog.ReplyPrefs || replies[0].Prefs == nil {
		t.Fatalf("own preferences in the App Home: %+v %v", replies, err)
	}
	stranger := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "D43", User: "U9"}
	replies, err = m.router.Handle(ctx, dialog.Event{Kind: dialog.EventPrefs, Who: stranger})
	if err != nil || len(replies) != 1 || replies[0].Kind == dialog.ReplyPrefs || !strings.Contains(replies[0].Text, "You can't ask the warehouse") {
		t.Fatalf("a person the rules do not allow: %+v %v", replies, err)
	}
	// A question in the same place is still refused: it reads data.
	replies, err = m.router.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "dm", Who: home, Text: "how many orders are there?"})
	if err != nil || len(replies) != 1 || replies[0].Answer != nil || !strings.Contains(replies[0].Text, "This channel can't ask") {
		t.Fatalf("a question outside the allowed channels: %+v %v", replies, err)
	}
}

func TestAccessRulesWithAModel(t *testing.T) {
	t.Parallel()
	emails := hiddenEmails(t)
	cases := []struct {
		name, question, modelSQL string
		// repairSays is what the repair prompt must quote: the refusal the
		// model's statement met.
		repairSays string
	}{
		{"hidden column", "list customers with their email", "SELECT name, email FROM customers ORDER BY name", "email"},
		{"sensitive column", "what does each product cost us?", "SELECT name, unit_cost FROM products ORDER BY name", "keeps products.unit_cost sensitive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			srv.Fallback(sqlSamples(tc.modelSQL))
			m, _, _ := startMain(t, Config{
				Warehouses: []WarehouseConfig{shopWarehouse()},
				LLM:        LLMConfig{APIKey: "sk-test", BaseURL: srv.URL, Model: "gpt-4o-mini", Samples: 2},
			})
			replies := converse(t, m.router, ana, "q", tc.question)
			text := shown(replies)
			assertNoneShown(t, text, emails)
			if a := answerOf(replies); a != nil {
				for _, c := range a.Columns {
					if c == "unit_cost" || c == "email" && strings.Contains(a.SQL, "customers.email") {
						t.Fatalf("the answer shows %s:\n%s", c, text)
					}
				}
			}
			calls := srv.Calls()
			repaired := false
			for _, c := range calls {
				raw := string(c.Raw)
				if strings.Contains(raw, "Contact email address") || strings.Contains(raw, "customers.email") && !strings.Contains(c.System(), "fixes") {
					t.Fatalf("a prompt names the hidden column:\n%s", c.Summary())
				}
				assertNoneShown(t, raw, emails)
				if strings.Contains(c.System(), "fixes") && strings.Contains(c.User(), tc.repairSays) {
					repaired = true
				}
			}
			if !repaired {
				t.Fatalf("no repair prompt quoted the refusal %q; calls: %d", tc.repairSays, len(calls))
			}
		})
	}
}
