package router

import (
	"context"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/dialog"
)

// fakeManager answers every event with a notice naming its warehouse and
// owns the conversations listed.
type fakeManager struct {
	name string
	owns map[string]bool
}

func (f *fakeManager) Handle(_ context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	return []dialog.Reply{{Kind: dialog.ReplyAnswer, Conversation: ev.Conversation, Text: f.name}}, nil
}

func (f *fakeManager) Owns(_ context.Context, _ dialog.Who, conversation string) (bool, error) {
	return f.owns[conversation], nil
}

// warehouse is a started, ready warehouse with a fake manager.
func warehouse(name string, rules access.Rules, owns ...string) Warehouse {
	m := &fakeManager{name: name, owns: map[string]bool{}}
	for _, c := range owns {
		m.owns[c] = true
	}
	return Warehouse{Name: name, Rules: rules, MaxConnections: 4,
		Manager: func(access.Asker) Manager { return m }, Ready: func() bool { return true }}
}

func TestRouter(t *testing.T) {
	who := dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"}
	down := Warehouse{Name: "down", Manager: func(access.Asker) Manager { return nil }, Ready: func() bool { return false }}
	tests := []struct {
		name       string
		warehouses []Warehouse
		steps      []string // messages, in order
		want       string   // the last reply contains this
	}{
		{"the first warehouse by default", []Warehouse{warehouse("shop", access.Rules{}), warehouse("finance", access.Rules{})},
			[]string{"how many orders?"}, "shop"},
		{"a channel's choice", []Warehouse{warehouse("shop", access.Rules{}), warehouse("finance", access.Rules{})},
			[]string{"warehouse finance", "how many orders?"}, "finance"},
		{"an unknown warehouse", []Warehouse{warehouse("shop", access.Rules{}), warehouse("finance", access.Rules{})},
			[]string{"warehouse hr"}, `there is no warehouse called "hr"; the warehouses are: finance, shop`},
		{"the conversation's owner wins", []Warehouse{warehouse("shop", access.Rules{}), warehouse("finance", access.Rules{}, "conv")},
			[]string{"and by month?"}, "finance"},
		{"the first allowed warehouse", []Warehouse{warehouse("shop", access.Rules{Users: []string{"slack:T1:U9"}}), warehouse("finance", access.Rules{})},
			[]string{"how many orders?"}, "finance"},
		{"a channel the rules leave out", []Warehouse{warehouse("shop", access.Rules{Channels: []string{"slack:T1:C9"}})},
			[]string{"how many orders?"}, `This channel can't ask the warehouse "shop"`},
		{"a warehouse that is down", []Warehouse{down}, []string{"how many orders?"}, UnreachableText("down")},
		{"choosing a warehouse that is down", []Warehouse{warehouse("shop", access.Rules{}), down},
			[]string{"warehouse down"}, "It is unreachable right now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			refused := 0
			r := New(tt.warehouses, Options{Refused: func() { refused++ }})
			var last []dialog.Reply
			for _, text := range tt.steps {
				var err error
				last, err = r.Handle(context.Background(), dialog.Event{Kind: dialog.EventMessage, Conversation: "conv", Who: who, Text: text})
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(last) != 1 || !strings.Contains(last[0].Text, tt.want) {
				t.Fatalf("replies %+v, want one containing %q", last, tt.want)
			}
			if denied := strings.Contains(tt.want, "can't ask"); denied != (refused == 1) {
				t.Fatalf("%d refusals counted", refused)
			}
		})
	}
}

// TestRouterPrecheck: the limiter's refusal is passed on and counted.
func TestRouterPrecheck(t *testing.T) {
	refusals := 0
	r := New([]Warehouse{warehouse("shop", access.Rules{})}, Options{
		Limiter:     limiterFunc(func(dialog.Who) string { return "slow down" }),
		RateRefused: func() { refusals++ },
	})
	if got := r.Precheck(context.Background(), dialog.Who{}); got != "slow down" || refusals != 1 {
		t.Fatalf("Precheck %q, %d refusals", got, refusals)
	}
	if got := New(nil, Options{}).Precheck(context.Background(), dialog.Who{}); got != "" {
		t.Fatalf("no limiter: Precheck %q", got)
	}
}

type limiterFunc func(dialog.Who) string

func (f limiterFunc) Precheck(_ context.Context, who dialog.Who) string { return f(who) }
