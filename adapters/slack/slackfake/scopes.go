package slackfake

import (
	"net/http"
	"strings"
)

// DefaultScopes are the bot scopes the fake reports as granted, in the
// X-OAuth-Scopes header Slack sends with every Web API answer: those of
// the repository's manifest.yml.
var DefaultScopes = []string{"app_mentions:read", "channels:history", "chat:write", "commands", "files:write", "groups:history", "im:history", "users:read"}

// SetScopes changes the scopes the fake reports as granted (none: an
// empty header).
func (s *Server) SetScopes(scopes ...string) {
	s.mu.Lock()
	s.scopes = append([]string{}, scopes...)
	s.mu.Unlock()
}

// writeScopes sets X-OAuth-Scopes as Slack does for a bot token.
func (s *Server) writeScopes(w http.ResponseWriter) {
	s.mu.Lock()
	scopes := s.scopes
	s.mu.Unlock()
	if scopes == nil {
		scopes = DefaultScopes
	}
	w.Header().Set("X-OAuth-Scopes", strings.Join(scopes, ","))
}
