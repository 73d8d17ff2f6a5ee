package adminweb

import (
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/ontology"
)

// Identity is the signed-in person, as the ontology keys them:
// "platform:workspace:user" ("slack:T0123:U0456", "console:local:ana").
// Keys are formatted by ontology.Identity and parsed here.
type Identity = ontology.Identity

// ParseUser reads a user's owner key. Platform, workspace and user must
// all be present: the console works on one workspace's knowledge, and a
// Discord direct message (no workspace) has none.
func ParseUser(key string) (Identity, error) {
	id, err := ontology.ParseOwner(ontology.ScopeUser, strings.TrimSpace(key))
	if err != nil || id.Workspace == "" {
		return Identity{}, fmt.Errorf("%q is not a person's key (platform:workspace:user, e.g. slack:T0123:U0456)", key)
	}
	return id, nil
}
