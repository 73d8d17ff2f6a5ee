package main

import "context"

// buildSlack wires the Slack adapter (adapters/slack) when Slack is configured.
func buildSlack(ctx context.Context, cfg Config, deps platformDeps) (platform, error) {
	return nil, nil
}
