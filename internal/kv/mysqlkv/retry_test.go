package mysqlkv

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"deadlock", &mysql.MySQLError{Number: 1213}, true},
		{"lock wait timeout", &mysql.MySQLError{Number: 1205}, true},
		{"TiDB write conflict", &mysql.MySQLError{Number: 9007}, true},
		{"TiDB select for update conflict", &mysql.MySQLError{Number: 8002}, true},
		{"TiDB transaction retry", &mysql.MySQLError{Number: 8022}, true},
		{"TiDB schema changed", &mysql.MySQLError{Number: 8028}, true},
		{"wrapped at commit", fmt.Errorf("commit: %w", &mysql.MySQLError{Number: 9007}), true},
		{"duplicate key", &mysql.MySQLError{Number: 1062}, false},
		{"no such table", &mysql.MySQLError{Number: 1146}, false},
		{"not a server error", errors.New("connection refused"), false},
		{"nil", nil, false},
	} {
		if got := Retryable(tc.err); got != tc.want {
			t.Errorf("%s: Retryable(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
