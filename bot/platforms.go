package main

import "context"

// platformBuilder builds one adapter from the configuration, or returns
// nil when that platform is not configured.
type platformBuilder func(ctx context.Context, cfg Config, deps platformDeps) (platform, error)

// platformBuilders are the chat platforms serve knows.
func platformBuilders() []platformBuilder {
	return []platformBuilder{buildSlack, buildDiscord}
}
