package llmusage

import (
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// TestOnMySQL runs the store's suite again on a MySQL-protocol server
// (MYSQL_TEST_DSN): mustUsage sees that the test runs under this one.
func TestOnMySQL(t *testing.T) {
	kvtest.RunOnServer(t, []kvtest.Test{
		{Name: "RecordAndReport", Run: TestUsageRecordAndReport},
		{Name: "Budgets", Run: TestUsageBudgets},
		{Name: "PrunesOldRecords", Run: TestUsagePrunesOldRecords},
	})
}
