package discordtest

// identity answers GET /users/@me and GET /oauth2/applications/@me: who
// the token belongs to, as bot doctor asks.
func (f *Fake) identity(p []string) (int, []byte, bool) {
	switch {
	case len(p) == 2 && p[0] == "users" && p[1] == "@me":
		st, b := jsonOK(map[string]any{"id": f.opts.BotID, "username": "Clarify", "discriminator": "0", "bot": true, "global_name": nil, "avatar": nil})
		return st, b, true
	case len(p) == 3 && p[0] == "oauth2" && p[1] == "applications" && p[2] == "@me":
		st, b := jsonOK(map[string]any{"id": f.opts.AppID, "name": "Clarify", "bot_public": false, "bot_require_code_grant": false,
			"bot": map[string]any{"id": f.opts.BotID, "username": "Clarify", "discriminator": "0", "bot": true}})
		return st, b, true
	}
	return 0, nil, false
}
