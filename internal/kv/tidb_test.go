package kv_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
)

// serverDSN is a fresh database on the server of a kvtest target ("" for
// bbolt), so that a test can open it from two pools, as two processes.
func serverDSN(t *testing.T, target string) string {
	t.Helper()
	switch target {
	case "mysql":
		return kvtest.MustDatabaseOn(t, kvtest.EnvDSN, os.Getenv(kvtest.EnvDSN))
	case "tidb":
		return kvtest.MustDatabaseOn(t, kvtest.EnvTiDB, os.Getenv(kvtest.EnvTiDB))
	case "tidb-optimistic":
		return kvtest.Optimistic(t, kvtest.MustDatabaseOn(t, kvtest.EnvTiDB, os.Getenv(kvtest.EnvTiDB)))
	}
	return ""
}

// TestServerOptimisticConflict: in TiDB's optimistic mode a transaction
// whose key another process changed after it read it fails at commit
// with a write conflict; Update runs it again, on the new value, so no
// update is lost. The other process writes from inside the first one's
// transaction, between its read and its commit: the conflict is certain,
// not a matter of timing. (MariaDB has no optimistic mode: its locking
// read would make the other process wait on the first.)
func TestServerOptimisticConflict(t *testing.T) {
	dsn := os.Getenv(kvtest.EnvTiDB)
	if dsn == "" {
		t.Skip(kvtest.EnvTiDB + " not set: optimistic transactions are TiDB's")
	}
	db := kvtest.Optimistic(t, kvtest.MustDatabaseOn(t, kvtest.EnvTiDB, dsn))
	ctx := context.Background()
	open := func(attempts int) kv.DB {
		s, err := mysqlkv.Open(ctx, db, mysqlkv.Options{MaxAttempts: attempts})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s.Namespace("n")
	}
	other := open(0)
	key := []byte("counter")
	get := func(tx kv.Tx) uint64 {
		if v := tx.Bucket(bk).Get(key); v != nil {
			return binary.BigEndian.Uint64(v)
		}
		return 0
	}
	put := func(tx kv.Tx, n uint64) error {
		return tx.Bucket(bk).Put(key, binary.BigEndian.AppendUint64(nil, n))
	}
	// increment adds one, letting the other process add ten between the
	// read and the commit of the first attempt.
	increment := func(s kv.DB) (attempts int, err error) {
		err = s.Update(ctx, func(tx kv.Tx) error {
			attempts++
			n := get(tx)
			if attempts == 1 {
				if err := other.Update(ctx, func(tx kv.Tx) error { return put(tx, get(tx)+10) }); err != nil {
					t.Fatalf("the other process's update: %v", err)
				}
			}
			return put(tx, n+1)
		})
		return attempts, err
	}

	// Without a second attempt the conflict reaches the caller, and it is
	// one the store classes as retryable.
	_, err := increment(open(1))
	var me *mysql.MySQLError
	if !errors.As(err, &me) || !mysqlkv.Retryable(err) {
		t.Fatalf("one attempt over a conflicting write: err = %v, want a retryable conflict", err)
	}
	t.Logf("TiDB's error: %d %s", me.Number, me.Message)

	attempts, err := increment(open(0))
	if err != nil {
		t.Fatalf("Update after a conflict: %v", err)
	}
	if attempts != 2 {
		t.Errorf("ran %d times, want 2 (one conflict, one retry)", attempts)
	}
	var got uint64
	_ = other.View(ctx, func(tx kv.Tx) error { got = get(tx); return nil })
	// 10 (first round, the increment lost) + 10 + 1 (second round).
	if got != 21 {
		t.Errorf("counter = %d, want 21: an update was lost", got)
	}
}
