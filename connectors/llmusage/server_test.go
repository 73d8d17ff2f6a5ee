package llmusage

import (
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// TestOnMySQL runs the store's suite again on a MySQL-protocol server
// (MYSQL_TEST_DSN): mustUsage sees that the test runs under this one.
func TestOnMySQL(t *testing.T) {
	kvtest.SkipWithoutServer(t)
	for _, tc := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"RecordAndReport", TestUsageRecordAndReport},
		{"Budgets", TestUsageBudgets},
		{"PrunesOldRecords", TestUsagePrunesOldRecords},
	} {
		t.Run(tc.name, tc.run)
	}
}

func onServer(tb testing.TB) bool { return strings.HasPrefix(tb.Name(), "TestOnMySQL/") }
