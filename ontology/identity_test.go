package ontology

import "testing"

// The keys are stored in facts, audit entries and counters: they must stay
// exactly what the code wrote before Identity (platform + ":" + workspace
// [+ ":" + id]), and parse back to the identity they came from.
func TestIdentityKeys(t *testing.T) {
	old := func(parts ...string) string {
		s := parts[0]
		for _, p := range parts[1:] {
			s += ":" + p
		}
		return s
	}
	for _, tc := range []struct {
		name string
		id   Identity
	}{
		{"slack", Identity{Platform: "slack", Workspace: "T0123", Channel: "C0789", User: "U0456"}},
		{"discord guild", Identity{Platform: "discord", Workspace: "1100223344", Channel: "2200334455", User: "3300445566"}},
		{"discord DM", Identity{Platform: "discord", Workspace: "", Channel: "4400556677", User: "3300445566"}},
		{"console", Identity{Platform: "console", Workspace: "local", Channel: "console", User: "ana"}},
		{"user id with a colon", Identity{Platform: "console", Workspace: "local", Channel: "console", User: "a:b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.id
			want := map[Scope]string{
				ScopeUser:      old(id.Platform, id.Workspace, id.User),
				ScopeChannel:   old(id.Platform, id.Workspace, id.Channel),
				ScopeWorkspace: old(id.Platform, id.Workspace),
			}
			got := id.Owners()
			if got.User != want[ScopeUser] || got.Channel != want[ScopeChannel] || got.Workspace != want[ScopeWorkspace] {
				t.Errorf("Owners() = %+v, want %v", got, want)
			}
			if id.String() != want[ScopeUser] {
				t.Errorf("String() = %q, want %q", id.String(), want[ScopeUser])
			}
			if got, w := id.InWorkspace("C1:1712.5"), old(id.Platform, id.Workspace, "C1:1712.5"); got != w {
				t.Errorf("InWorkspace = %q, want %q", got, w)
			}
			// Each scope's key parses back to the part of the identity it names.
			parts := map[Scope]Identity{
				ScopeUser:      {Platform: id.Platform, Workspace: id.Workspace, User: id.User},
				ScopeChannel:   {Platform: id.Platform, Workspace: id.Workspace, Channel: id.Channel},
				ScopeWorkspace: {Platform: id.Platform, Workspace: id.Workspace},
			}
			for s, key := range want {
				if k := id.Key(s); k != key {
					t.Errorf("Key(%s) = %q, want %q", s, k, key)
				}
				back, err := ParseOwner(s, key)
				if err != nil {
					t.Errorf("ParseOwner(%s, %q): %v", s, key, err)
					continue
				}
				if back != parts[s] {
					t.Errorf("ParseOwner(%s, %q) = %+v, want %+v", s, key, back, parts[s])
				}
				if back.Key(s) != key {
					t.Errorf("ParseOwner(%s, %q).Key = %q", s, key, back.Key(s))
				}
				if !id.Has(key) {
					t.Errorf("Has(%q) = false", key)
				}
			}
			if l := id.Local(want[ScopeUser]); l != id.User {
				t.Errorf("Local(user key) = %q, want %q", l, id.User)
			}
			if l := id.Local(want[ScopeWorkspace]); l != "" {
				t.Errorf("Local(workspace key) = %q, want \"\"", l)
			}
		})
	}
}

func TestParseOwnerRejects(t *testing.T) {
	for _, tc := range []struct {
		scope Scope
		key   string
	}{
		{ScopeUser, ""},
		{ScopeUser, "ana"},
		{ScopeUser, "slack:T1"},
		{ScopeUser, "slack:T1:"},
		{ScopeUser, ":T1:U2"},
		{ScopeChannel, "slack:T1"},
		{ScopeWorkspace, "slack:T1:U2"},
		{ScopeWorkspace, "slack"},
		{Scope("team"), "slack:T1"},
	} {
		if id, err := ParseOwner(tc.scope, tc.key); err == nil {
			t.Errorf("ParseOwner(%s, %q) = %+v, want an error", tc.scope, tc.key, id)
		}
	}
}

func TestIdentityHasOtherWorkspace(t *testing.T) {
	id := Identity{Platform: "slack", Workspace: "T1"}
	for key, want := range map[string]bool{
		"slack:T1": true, "slack:T1:U2": true, "slack:T12:U1": false, "slack:T12": false, "discord:T1:U2": false,
	} {
		if got := id.Has(key); got != want {
			t.Errorf("Has(%q) = %v, want %v", key, got, want)
		}
	}
	if got := id.Local("slack:T12:U1"); got != "slack:T12:U1" {
		t.Errorf("Local of another workspace's key = %q, want it whole", got)
	}
}
