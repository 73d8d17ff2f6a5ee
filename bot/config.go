package main

import (
	"github.com/clarify-bot/clarify/bot/internal/config"
)

// The configuration (bot/internal/config) under the names this package
// uses: main reads it once, with os.Getenv, and passes it down.
type (
	Config          = config.Config
	StoreConfig     = config.StoreConfig
	HTTPConfig      = config.HTTPConfig
	WarehouseConfig = config.WarehouseConfig
	DialogConfig    = config.DialogConfig
	LLMConfig       = config.LLMConfig
	SlackConfig     = config.SlackConfig
	DiscordConfig   = config.DiscordConfig
	LimitsConfig    = config.LimitsConfig
	AdminConfig     = config.AdminConfig
)

// LoadConfig reads the file at path (if any), the environment through
// getenv, fills defaults and validates (config.Load).
func LoadConfig(path string, getenv func(string) string) (Config, error) {
	return config.Load(path, getenv)
}
