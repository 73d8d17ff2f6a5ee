package adminweb

import (
	"fmt"
	"strings"
)

// Identity is a person of a chat workspace, as the ontology keys them:
// "platform:workspace:user" ("slack:T0123:U0456", "console:local:ana").
// Keys are parsed and formatted here and nowhere else in the console.
type Identity struct {
	Platform, Workspace, User string
}

// ParseUser reads a user's owner key. Platform, workspace and user must
// all be present: the console works on one workspace's knowledge, and a
// Discord direct message (no workspace) has none.
func ParseUser(key string) (Identity, error) {
	parts := strings.SplitN(strings.TrimSpace(key), ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return Identity{}, fmt.Errorf("%q is not a person's key (platform:workspace:user, e.g. slack:T0123:U0456)", key)
	}
	return Identity{Platform: parts[0], Workspace: parts[1], User: parts[2]}, nil
}

// Key is the person's owner key.
func (i Identity) Key() string { return i.Platform + ":" + i.Workspace + ":" + i.User }

// WorkspaceKey is the owner key of the person's workspace.
func (i Identity) WorkspaceKey() string { return i.Platform + ":" + i.Workspace }

// ChannelKey is the owner key of a channel of the person's workspace.
func (i Identity) ChannelKey(channel string) string { return i.WorkspaceKey() + ":" + channel }

// Has reports whether an owner key (the workspace, one of its channels or
// people) belongs to the person's workspace. "slack:T1" does not contain
// "slack:T12:U1".
func (i Identity) Has(owner string) bool {
	ws := i.WorkspaceKey()
	return owner == ws || strings.HasPrefix(owner, ws+":")
}

// Local is the last part of an owner key inside the person's workspace:
// the channel or user id ("U0456"), or "" for the workspace itself.
func (i Identity) Local(owner string) string {
	if !i.Has(owner) {
		return owner
	}
	return strings.TrimPrefix(strings.TrimPrefix(owner, i.WorkspaceKey()), ":")
}

func (i Identity) String() string { return i.Key() }
