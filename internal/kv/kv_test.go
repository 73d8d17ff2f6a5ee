package kv_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/kvtest"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
)

// The contract both implementations keep, run on each.
func TestContract(t *testing.T) {
	for _, target := range kvtest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				run  func(t *testing.T, db kv.DB)
			}{
				{"get put delete", testGetPutDelete},
				{"rollback", testRollback},
				{"cursor order", testCursor},
				{"sequences and buckets", testSequences},
				{"prepare and migrate", testPrepare},
			} {
				t.Run(tc.name, func(t *testing.T) { tc.run(t, target.Open(t)) })
			}
		})
	}
}

var bk = []byte("b")

func testGetPutDelete(t *testing.T, db kv.DB) {
	ctx := context.Background()
	err := db.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bk)
		if err := b.Put([]byte("k1"), []byte("v1")); err != nil {
			return err
		}
		if err := b.Put([]byte("empty"), nil); err != nil {
			return err
		}
		// A transaction reads its own writes.
		if got := b.Get([]byte("k1")); string(got) != "v1" {
			return fmt.Errorf("own write: got %q", got)
		}
		return b.Put([]byte("k1"), []byte("v2"))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bk)
		if got := b.Get([]byte("k1")); string(got) != "v2" {
			t.Errorf("k1 = %q, want v2", got)
		}
		if got := b.Get([]byte("empty")); got == nil || len(got) != 0 {
			t.Errorf("an empty value must read as present and empty, got %#v", got)
		}
		if got := b.Get([]byte("missing")); got != nil {
			t.Errorf("missing = %q, want nil", got)
		}
		if got := tx.Bucket([]byte("nobucket")).Get([]byte("k1")); got != nil {
			t.Errorf("missing bucket read %q", got)
		}
		if err := b.Put([]byte("x"), []byte("y")); err == nil {
			t.Error("Put in a read-only transaction succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(ctx, func(tx kv.Tx) error { return tx.Bucket(bk).Delete([]byte("k1")) })
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(ctx, func(tx kv.Tx) error {
		if got := tx.Bucket(bk).Get([]byte("k1")); got != nil {
			t.Errorf("deleted key reads %q", got)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testRollback(t *testing.T, db kv.DB) {
	ctx := context.Background()
	boom := errors.New("boom")
	err := db.Update(ctx, func(tx kv.Tx) error {
		if err := tx.Bucket(bk).Put([]byte("k"), []byte("v")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want fn's error", err)
	}
	_ = db.View(ctx, func(tx kv.Tx) error {
		if got := tx.Bucket(bk).Get([]byte("k")); got != nil {
			t.Errorf("a rolled back write is visible: %q", got)
		}
		return nil
	})
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.Update(cctx, func(kv.Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Update on a cancelled context = %v", err)
	}
}

func testCursor(t *testing.T, db kv.DB) {
	ctx := context.Background()
	// Enough keys to cross a server cursor's batches, with bytes that
	// sort differently as text than as bytes.
	var keys [][]byte
	for i := range 300 {
		keys = append(keys, binary.BigEndian.AppendUint16([]byte{byte(i % 3 * 0x7f)}, uint16(i)))
	}
	keys = append(keys, []byte{0x00}, []byte{0xff, 0xff, 0xff}, []byte("a\x00b"), []byte("a"))
	err := db.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bk)
		for i, k := range keys {
			if err := b.Put(k, []byte{byte(i)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(keys)
	slices.SortFunc(want, bytes.Compare)
	want = slices.CompactFunc(want, bytes.Equal)
	for _, write := range []bool{false, true} {
		run := db.View
		if write {
			run = db.Update
		}
		err = run(ctx, func(tx kv.Tx) error {
			c := tx.Bucket(bk).Cursor()
			var fwd, back [][]byte
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				fwd = append(fwd, bytes.Clone(k))
			}
			for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
				back = append(back, bytes.Clone(k))
			}
			if !slices.EqualFunc(fwd, want, bytes.Equal) {
				t.Errorf("write=%v: forward order differs: %d keys, want %d", write, len(fwd), len(want))
			}
			slices.Reverse(back)
			if !slices.EqualFunc(back, want, bytes.Equal) {
				t.Errorf("write=%v: backward order differs", write)
			}
			// Seek lands on the first key at or after the target.
			if k, _ := c.Seek([]byte("a\x00")); !bytes.Equal(k, []byte("a\x00b")) {
				t.Errorf("Seek(a\\0) = %q", k)
			}
			if k, _ := c.Next(); k == nil || bytes.Compare(k, []byte("a\x00b")) <= 0 {
				t.Errorf("Next after Seek = %q", k)
			}
			// Turning round.
			if k, _ := c.Prev(); !bytes.Equal(k, []byte("a\x00b")) {
				t.Errorf("Prev after Next = %q, want a\\0b", k)
			}
			if k, _ := c.Seek([]byte{0xff, 0xff, 0xff, 0}); k != nil {
				t.Errorf("Seek past the end = %q", k)
			}
			n := 0
			err := tx.Bucket(bk).ForEach(func(k, v []byte) error { n++; return nil })
			if n != len(want) {
				t.Errorf("ForEach saw %d keys, want %d", n, len(want))
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func testSequences(t *testing.T, db kv.DB) {
	ctx := context.Background()
	err := db.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket([]byte("seq"))
		for want := uint64(1); want <= 3; want++ {
			got, err := b.NextSequence()
			if err != nil {
				return err
			}
			if got != want {
				t.Errorf("NextSequence = %d, want %d", got, want)
			}
		}
		if err := tx.Bucket([]byte("other")).SetSequence(41); err != nil {
			return err
		}
		return tx.Bucket([]byte("data")).Put([]byte("k"), []byte("v"))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(ctx, func(tx kv.Tx) error {
		if got := tx.Bucket([]byte("other")).Sequence(); got != 41 {
			t.Errorf("Sequence = %d, want 41", got)
		}
		names, err := tx.Buckets()
		var got []string
		for _, n := range names {
			got = append(got, string(n))
		}
		slices.Sort(got)
		for _, want := range []string{"data", "other", "seq"} {
			if !slices.Contains(got, want) {
				t.Errorf("Buckets = %q, missing %s", got, want)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testPrepare(t *testing.T, db kv.DB) {
	ctx := context.Background()
	if err := kv.Prepare(ctx, db, "1", nil, []byte("x")); err != nil {
		t.Fatal(err)
	}
	ran := 0
	migs := []kv.Migration{{From: "1", To: "2", Run: func(tx kv.Tx) error {
		ran++
		return tx.Bucket([]byte("x")).Put([]byte("migrated"), []byte("yes"))
	}}}
	if err := kv.Prepare(ctx, db, "2", migs); err != nil {
		t.Fatal(err)
	}
	if ran == 0 {
		t.Error("the migration did not run")
	}
	if err := kv.CheckVersion(ctx, db, "2"); err != nil {
		t.Error(err)
	}
	// An older build refuses what a newer one wrote.
	if err := kv.Prepare(ctx, db, "1", nil); !errors.Is(err, kv.ErrSchemaNewer) {
		t.Errorf("Prepare of an older build = %v, want ErrSchemaNewer", err)
	}
	if err := kv.CheckVersion(ctx, db, "1"); !errors.Is(err, kv.ErrSchemaNewer) {
		t.Errorf("CheckVersion of an older build = %v, want ErrSchemaNewer", err)
	}
}

// Concurrent read-modify-write transactions lose no update: in one
// process for bbolt, and from two connection pools (two processes) on a
// server.
func TestNoLostUpdate(t *testing.T) {
	const workers, each = 4, 15
	for _, target := range kvtest.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			var dbs []kv.DB
			if dsn := serverDSN(t, target.Name); dsn != "" {
				dbs = []kv.DB{kvtest.MustServerOn(t, dsn).Namespace("n"), kvtest.MustServerOn(t, dsn).Namespace("n")}
			} else {
				db := target.Open(t)
				dbs = []kv.DB{db, db}
			}
			ctx := context.Background()
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for w := range workers {
				wg.Go(func() {
					db := dbs[w%len(dbs)]
					for range each {
						err := db.Update(ctx, func(tx kv.Tx) error {
							b := tx.Bucket(bk)
							var n uint64
							if v := b.Get([]byte("counter")); v != nil {
								n = binary.BigEndian.Uint64(v)
							}
							return b.Put([]byte("counter"), binary.BigEndian.AppendUint64(nil, n+1))
						})
						if err != nil {
							errs <- err
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			_ = dbs[0].View(ctx, func(tx kv.Tx) error {
				if got := binary.BigEndian.Uint64(tx.Bucket(bk).Get([]byte("counter"))); got != workers*each {
					t.Errorf("counter = %d, want %d", got, workers*each)
				}
				return nil
			})
		})
	}
}

func TestServerLock(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	a, b := kvtest.MustServerOn(t, dsn), kvtest.MustServerOn(t, dsn)
	ctx := context.Background()
	unlock, err := a.Lock(ctx, "conv:1")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	if _, err := b.Lock(short, "conv:1"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second holder got the lock: %v", err)
	}
	other, err := b.Lock(ctx, "conv:2")
	if err != nil {
		t.Fatalf("an unrelated key is blocked: %v", err)
	}
	other()
	got := make(chan error, 1)
	go func() {
		u, err := b.Lock(ctx, "conv:1")
		if err == nil {
			u()
		}
		got <- err
	}()
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the lock was not handed over after unlock")
	}
}

// TestServerLeaseOfDeadHolder: a process that dies holding a lock (its
// pool closed, so it cannot renew) is seen as gone once its lease runs
// out, and another process takes the lock then, not before.
func TestServerLeaseOfDeadHolder(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	ctx := context.Background()
	dead, err := mysqlkv.Open(ctx, dsn, mysqlkv.Options{LeaseTTL: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	live := kvtest.MustServerOn(t, dsn)
	if _, err := dead.Lock(ctx, "replica:a"); err != nil {
		t.Fatal(err)
	}
	if held, err := live.Held(ctx, "replica:a"); err != nil || !held {
		t.Fatalf("a fresh lease is not held: %v %v", held, err)
	}
	dead.Close() // the holder dies: no renewal, no release
	start := time.Now()
	u, err := live.Lock(ctx, "replica:a")
	if err != nil {
		t.Fatal(err)
	}
	defer u()
	if waited := time.Since(start); waited > 10*time.Second {
		t.Fatalf("took %s to take over a 1s lease", waited)
	}
	if held, err := live.Held(ctx, "replica:b"); err != nil || held {
		t.Fatalf("a lease nobody took is held: %v %v", held, err)
	}
}

// TestServerClaim: one statement claims a key; a claim of an unexpired
// key fails, of an expired one succeeds; DeleteBelow drops expired keys.
func TestServerClaim(t *testing.T) {
	ns := kvtest.MustServer(t).Namespace("claims")
	c, ok := ns.(interface {
		Claim(ctx context.Context, bucket, key, value, floor []byte) (bool, error)
		DeleteBelow(ctx context.Context, bucket, ceiling []byte, limit int) (int, error)
	})
	if !ok {
		t.Fatal("a server namespace does not claim")
	}
	ctx := context.Background()
	b := []byte("seen")
	steps := []struct {
		key, value, floor string
		want              bool
	}{
		{"k", "5", "1", true},
		{"k", "6", "2", false}, // holds 5 ≥ 2: not expired
		{"k", "9", "7", true},  // 5 < 7: expired, taken again
		{"k", "9", "7", false},
	}
	for i, st := range steps {
		got, err := c.Claim(ctx, b, []byte(st.key), []byte(st.value), []byte(st.floor))
		if err != nil || got != st.want {
			t.Fatalf("step %d: %v %v, want %v", i, got, err, st.want)
		}
	}
	if n, err := c.DeleteBelow(ctx, b, []byte("9"), 10); err != nil || n != 0 {
		t.Fatalf("deleted %d (%v) below 9", n, err)
	}
	if n, err := c.DeleteBelow(ctx, b, []byte("a"), 10); err != nil || n != 1 {
		t.Fatalf("deleted %d (%v) below a", n, err)
	}
}

func TestServerSchema(t *testing.T) {
	dsn := kvtest.MustDatabase(t)
	s := kvtest.MustServerOn(t, dsn)
	ctx := context.Background()
	// Opening twice is idempotent.
	kvtest.MustServerOn(t, dsn)
	if err := s.Namespace("n").Update(ctx, func(tx kv.Tx) error {
		return tx.Bucket(bk).Put(bytes.Repeat([]byte("k"), mysqlkv.MaxKeyLen+1), []byte("v"))
	}); !errors.Is(err, kv.ErrKeyTooLong) {
		t.Errorf("an overlong key: %v", err)
	}
	kvtest.Exec(t, dsn, "UPDATE clarify_schema SET version = 99")
	if _, err := mysqlkv.Open(ctx, dsn, mysqlkv.Options{}); !errors.Is(err, kv.ErrSchemaNewer) {
		t.Errorf("opening tables of a newer build = %v, want ErrSchemaNewer", err)
	}
}
