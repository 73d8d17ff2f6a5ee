package ontology

import (
	"fmt"
	"strings"
)

// Identity says who asked and where: a person in a channel of a chat
// platform's workspace. Facts are owned by keys formatted from it:
//
//	workspace  "slack:T0123"
//	channel    "slack:T0123:C0789"
//	person     "slack:T0123:U0456"
//
// This file is the only place that formats or parses such keys. Stored
// facts, audit entries and rate-limit counters hold them, so the format
// must never change.
type Identity struct {
	Platform  string // "slack", "discord", "console"
	Workspace string // Slack team id, Discord guild id ("" for a Discord DM)
	Channel   string
	User      string
}

// keySep separates the parts of a key. Platform and workspace ids never
// contain it; the last part (a user, channel or conversation id) may.
const keySep = ":"

// WorkspaceKey is the owner key of the workspace: "slack:T0123".
func (id Identity) WorkspaceKey() string { return id.Platform + keySep + id.Workspace }

// UserKey is the owner key of the person: "slack:T0123:U0456".
func (id Identity) UserKey() string { return id.InWorkspace(id.User) }

// ChannelKey is the owner key of the channel: "slack:T0123:C0789".
func (id Identity) ChannelKey() string { return id.InWorkspace(id.Channel) }

// InWorkspace is the key of something local to the workspace, such as a
// conversation ("slack:T0123:C0789:1712.5"): ids are only unique within
// their platform and workspace.
func (id Identity) InWorkspace(local string) string { return id.WorkspaceKey() + keySep + local }

// Key is the owner key of the scope's owner.
func (id Identity) Key(s Scope) string {
	switch s {
	case ScopeChannel:
		return id.ChannelKey()
	case ScopeWorkspace:
		return id.WorkspaceKey()
	}
	return id.UserKey()
}

// Owners are the owners whose facts apply to the person's question.
func (id Identity) Owners() Owners {
	return Owners{User: id.UserKey(), Channel: id.ChannelKey(), Workspace: id.WorkspaceKey()}
}

// String is the person's key, for logs.
func (id Identity) String() string { return id.UserKey() }

// Has reports whether key (the workspace's, or one of its channels',
// people's or conversations') belongs to the workspace. "slack:T1" does
// not contain "slack:T12:U1".
func (id Identity) Has(key string) bool {
	ws := id.WorkspaceKey()
	return key == ws || strings.HasPrefix(key, ws+keySep)
}

// Local is the last part of a key inside the workspace: the channel, user
// or conversation id ("U0456"), "" for the workspace itself, and the whole
// key when it belongs to another workspace.
func (id Identity) Local(key string) string {
	if !id.Has(key) {
		return key
	}
	return strings.TrimPrefix(strings.TrimPrefix(key, id.WorkspaceKey()), keySep)
}

// ParseOwner reads the owner key of a fact of scope s: "slack:T0123" for
// a workspace, "slack:T0123:C0789" for a channel (into Channel),
// "slack:T0123:U0456" for a person (into User). The workspace may be empty
// (a Discord DM: "discord::U1"); the platform and the channel or user may
// not.
func ParseOwner(s Scope, key string) (Identity, error) {
	if !s.Valid() {
		return Identity{}, fmt.Errorf("owner key %q: unknown scope %q", key, s)
	}
	parts := strings.SplitN(key, keySep, 3)
	var id Identity
	switch {
	case s == ScopeWorkspace && len(parts) == 2 && parts[0] != "":
		return Identity{Platform: parts[0], Workspace: parts[1]}, nil
	case s != ScopeWorkspace && len(parts) == 3 && parts[0] != "" && parts[2] != "":
		id = Identity{Platform: parts[0], Workspace: parts[1]}
	default:
		want := "platform:workspace:" + string(s)
		if s == ScopeWorkspace {
			want = "platform:workspace"
		}
		return Identity{}, fmt.Errorf("%q is not a %s's key (%s)", key, s, want)
	}
	if s == ScopeChannel {
		id.Channel = parts[2]
	} else {
		id.User = parts[2]
	}
	return id, nil
}
