package router

import (
	"context"
	"testing"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/dialog"
)

// TestRouterAccessLevels: events go to the manager of the asker's access
// level, keyed as the rules key people (admins have the role "admin"),
// and the conversation's owner is asked with the asker's level too.
func TestRouterAccessLevels(t *testing.T) {
	rules := access.Rules{Levels: []access.Level{
		{Name: "billing", Roles: []string{"billing"}, SeesAll: true},
		{Name: "admins", Roles: []string{"admin"}, SeesAll: true},
	}}
	managers := map[string]*fakeManager{}
	for _, n := range []string{access.DefaultLevel, "billing", "admins"} {
		managers[n] = &fakeManager{name: n, owns: map[string]bool{"thread": true}}
	}
	var asked []access.Asker
	clinic := Warehouse{Name: "clinic", Rules: rules, MaxConnections: 4, Ready: func() bool { return true },
		Manager: func(a access.Asker) Manager {
			asked = append(asked, a)
			if l, ok := rules.LevelOf(a); ok {
				return managers[l.Name]
			}
			return managers[access.DefaultLevel]
		}}
	r := New([]Warehouse{clinic, warehouse("shop", access.Rules{})}, Options{})
	for _, tc := range []struct {
		name string
		who  dialog.Who
		conv string
		want string
	}{
		{"nobody in particular", dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U1"}, "a", access.DefaultLevel},
		{"a role", dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U2", Roles: "nurse,billing"}, "b", "billing"},
		{"an admin", dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U3", Admin: true}, "c", "admins"},
		{"a thread, owned", dialog.Who{Platform: "slack", Workspace: "T1", Channel: "C1", User: "U2", Roles: "billing"}, "thread", "billing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replies, err := r.Handle(context.Background(), dialog.Event{Kind: dialog.EventMessage, Conversation: tc.conv, Who: tc.who, Text: "total billed?"})
			if err != nil || len(replies) != 1 || replies[0].Text != tc.want {
				t.Fatalf("replies %+v %v, want the %s level's manager", replies, err, tc.want)
			}
			if last := asked[len(asked)-1]; last.User != "slack:T1:"+tc.who.User {
				t.Fatalf("the manager was chosen for %+v", last)
			}
		})
	}
}
