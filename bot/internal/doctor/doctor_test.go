package doctor

import (
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
)

func TestManifestBotScopes(t *testing.T) {
	scopes, err := ManifestBotScopes(Env{}.WithDefaults().Manifest)
	if err != nil {
		t.Fatal(err)
	}
	// The fake grants what the embedded manifest asks for; if the manifest
	// changes, the fake's DefaultScopes must follow.
	if strings.Join(scopes, ",") != strings.Join(slackfake.DefaultScopes, ",") {
		t.Fatalf("manifest scopes %v, fake grants %v", scopes, slackfake.DefaultScopes)
	}
	if _, err := ManifestBotScopes([]byte("display_information: {name: x}\n")); err == nil {
		t.Fatal("a manifest without bot scopes should be refused")
	}
}
