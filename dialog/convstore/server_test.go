package convstore

import (
	"testing"

	"github.com/clarify-bot/clarify/internal/kv/kvtest"
)

// TestOnMySQL runs the store's suite again on a MySQL-protocol server
// (MYSQL_TEST_DSN): MustOpen sees that the test runs under this one.
func TestOnMySQL(t *testing.T) {
	kvtest.RunOnServer(t, []kvtest.Test{
		{Name: "RoundTrip", Run: TestRoundTrip},
		{Name: "InvalidID", Run: TestInvalidID},
		{Name: "ExpiryAndSweep", Run: TestExpiryAndSweep},
		{Name: "CanceledContext", Run: TestCanceledContext},
	})
}
