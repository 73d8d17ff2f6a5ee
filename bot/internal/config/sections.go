package config

import (
	"strings"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/admincmd"
	"github.com/clarify-bot/clarify/bot/internal/adminweb"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/enforce"
	"github.com/clarify-bot/clarify/connectors/access"
)

// AuditConfig is the configuration's audit section.
type AuditConfig struct {
	// QuestionRetention is how long question records are kept ("90d",
	// "720h"); 0 keeps them forever. Unset means DefaultQuestionRetention.
	// Fact changes and glossary loads are always kept.
	QuestionRetention *Age `yaml:"question_retention"`
}

// DefaultQuestionRetention keeps a quarter of questions: enough to answer
// "who asked what last month", short enough not to become a data archive.
const DefaultQuestionRetention = Age(90 * 24 * time.Hour)

// Retention is the configured retention of question records (0: forever).
func (a AuditConfig) Retention() time.Duration {
	if a.QuestionRetention == nil {
		return time.Duration(DefaultQuestionRetention)
	}
	return time.Duration(*a.QuestionRetention)
}

// Age is a duration written as Go writes them or in days ("90d").
type Age = admincmd.Age

// AdminConfig is the admin console's section (bot/internal/adminweb).
type AdminConfig = adminweb.Config

// A warehouse's access levels (access.levels in the configuration) each
// run on an account of their own: a question runs on the account of its
// asker's level, so that what a level hides is refused by the server's
// privileges, not only by the checker. The warehouse's own dsn and rules
// are the default level.

// LevelAccount is one level of a warehouse as the bot runs it.
type LevelAccount = cli.Account

// Accounts lists the default level, then the configured ones.
func (w WarehouseConfig) Accounts() []LevelAccount {
	return enforce.Accounts(w.DSN, w.Demo, w.Access)
}

// ForLevel is the warehouse as one of its levels runs it: the level's
// account and rules, the rest shared.
func (w WarehouseConfig) ForLevel(a LevelAccount) WarehouseConfig {
	out := w
	out.DSN, out.Access = a.DSN, a.Rules
	return out
}

// LevelOf is the level a person asking here runs on.
func (w WarehouseConfig) LevelOf(a access.Asker) LevelAccount {
	return cli.LevelOf(w.Access, w.Accounts(), a)
}

// validateLevels checks the levels' accounts (enforce.ValidateLevels).
func (w WarehouseConfig) validateLevels() []error {
	return enforce.ValidateLevels(w.Name, w.DSN, w.Demo, w.Access)
}

// LevelComponent names a level in logs and /healthz: "shop", "shop@hr".
func LevelComponent(warehouseName, level string) string {
	if level == "" || level == access.DefaultLevel {
		return warehouseName
	}
	return warehouseName + "@" + strings.ToLower(level)
}
