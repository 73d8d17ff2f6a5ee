package main

import "context"

// buildDiscord wires the Discord adapter (adapters/discord) when Discord is configured.
func buildDiscord(ctx context.Context, cfg Config, deps platformDeps) (platform, error) {
	return nil, nil
}
