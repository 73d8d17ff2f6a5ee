package admincmd

import (
	"context"
	"errors"
	"fmt"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
	"github.com/clarify-bot/clarify/internal/tables"
)

// storeFiles maps each store to its bbolt file in a data directory; on a
// server each is a namespace of the same name. The Slack event ids (seen)
// are not copied: they matter for two hours.
var storeFiles = []struct{ ns, file string }{
	{cli.NsOntology, cli.OntologyFile},
	{cli.NsConversations, cli.ConversationsFile},
	{cli.NsUsage, llmusage.File},
}

// runStore is `bot store`: moving the stores between files and a server.
func RunStore(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	usage := []string{
		"usage: bot store copy --from DIR|DSN --to DIR|DSN [--lock-timeout 5s]",
		"  Copies the ontology, conversations and usage records between bbolt files in a",
		"  data directory and a database on a MySQL-protocol server, then checks that every",
		"  bucket has as many keys on both sides. The destination must be empty; stop the bot",
		"  while copying (bbolt files are locked by a running bot).",
	}
	if len(args) == 0 || args[0] != "copy" {
		if len(args) > 0 && cli.IsHelp(args[0]) {
			cli.PrintLines(stdout, usage)
			return cli.ExitOK
		}
		if len(args) > 0 {
			fmt.Fprintf(stderr, "bot store: unknown subcommand %q\n", args[0])
		}
		cli.PrintLines(stderr, usage)
		return cli.ExitUsage
	}
	fset := cli.NewFlagSet("bot store copy", stderr, usage...)
	from := fset.String("from", "", "source: a data directory or a server DSN")
	to := fset.String("to", "", "destination: a data directory or a server DSN")
	wait := fset.Duration("lock-timeout", 5*time.Second, "how long to wait for a bbolt file's lock")
	if code, ok := cli.ParseFlags(fset, args[1:], stdout); !ok {
		return code
	}
	if *from == "" || *to == "" || fset.NArg() > 0 {
		fset.Usage()
		return cli.ExitUsage
	}
	counts, err := copyStores(ctx, *from, *to, *wait)
	if err != nil {
		fmt.Fprintf(stderr, "bot store copy: %v\n", err)
		return cli.ExitFailure
	}
	var rows [][]string
	for _, c := range counts {
		rows = append(rows, []string{c.store, c.bucket, fmt.Sprint(c.keys)})
	}
	fmt.Fprintf(stdout, "Copied %s to %s; the key counts match:\n%s", cli.DescribeStore(*from), cli.DescribeStore(*to), tables.Render([]string{"store", "bucket", "keys"}, rows, tables.Options{}))
	return cli.ExitOK
}

// bucketCount is one verified bucket.
type bucketCount struct {
	store, bucket string
	keys          int
}

// storeEnd is one side of a copy.
type storeEnd struct {
	dir    string
	server *mysqlkv.Server
	wait   time.Duration
}

func openStoreEnd(ctx context.Context, loc string, wait time.Duration) (*storeEnd, error) {
	if !cli.IsStoreDSN(loc) {
		return &storeEnd{dir: loc, wait: wait}, nil
	}
	srv, err := mysqlkv.Open(ctx, loc, mysqlkv.Options{})
	if err != nil {
		return nil, err
	}
	return &storeEnd{server: srv}, nil
}

func (e *storeEnd) Close() error {
	if e.server != nil {
		return e.server.Close()
	}
	return nil
}

// open returns one store; (nil, nil) when a source file does not exist.
func (e *storeEnd) open(ns, file string, source bool) (kv.DB, error) {
	if e.server != nil {
		return e.server.Namespace(ns), nil
	}
	path := filepath.Join(e.dir, file)
	db, err := boltkv.Open(path, boltkv.Options{Timeout: e.wait, ReadOnly: source})
	if source && errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, boltkv.ErrLocked) {
		return nil, fmt.Errorf("%s: %w; stop the bot first", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, nil
}

// copyStores copies every bucket of every store and verifies the counts.
func copyStores(ctx context.Context, from, to string, wait time.Duration) ([]bucketCount, error) {
	if from == to {
		return nil, errors.New("--from and --to are the same")
	}
	src, err := openStoreEnd(ctx, from, wait)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	defer src.Close()
	dst, err := openStoreEnd(ctx, to, wait)
	if err != nil {
		return nil, fmt.Errorf("destination: %w", err)
	}
	defer dst.Close()
	var out []bucketCount
	for _, sf := range storeFiles {
		counts, err := copyOneStore(ctx, src, dst, sf.ns, sf.file)
		if err != nil {
			return out, fmt.Errorf("%s: %w", sf.ns, err)
		}
		out = append(out, counts...)
	}
	return out, nil
}

// copyBatch is how many keys one destination transaction writes.
const copyBatch = 500

func copyOneStore(ctx context.Context, src, dst *storeEnd, ns, file string) ([]bucketCount, error) {
	sdb, err := src.open(ns, file, true)
	if err != nil || sdb == nil {
		return nil, err
	}
	defer sdb.Close()
	ddb, err := dst.open(ns, file, false)
	if err != nil {
		return nil, err
	}
	defer ddb.Close()
	if n, err := countKeys(ctx, ddb); err != nil {
		return nil, err
	} else if total(n) > 0 {
		return nil, fmt.Errorf("the destination already holds %d keys; copy only into an empty store", total(n))
	}
	err = sdb.View(ctx, func(stx kv.Tx) error {
		names, err := stx.Buckets()
		if err != nil {
			return err
		}
		for _, name := range names {
			if err := copyBucket(ctx, stx.Bucket(name), ddb, name); err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	want, err := countKeys(ctx, sdb)
	if err != nil {
		return nil, err
	}
	got, err := countKeys(ctx, ddb)
	if err != nil {
		return nil, err
	}
	var out []bucketCount
	names := slices.Sorted(maps.Keys(want))
	for _, name := range names {
		if got[name] != want[name] {
			return nil, fmt.Errorf("bucket %s: %d keys copied, the source has %d", name, got[name], want[name])
		}
		out = append(out, bucketCount{ns, name, want[name]})
	}
	if total(got) != total(want) {
		return nil, fmt.Errorf("%d keys in the destination, the source has %d", total(got), total(want))
	}
	return out, nil
}

// copyBucket copies one bucket's keys and sequence in batches.
func copyBucket(ctx context.Context, b kv.Bucket, dst kv.DB, name []byte) error {
	type pair struct{ k, v []byte }
	batch := make([]pair, 0, copyBatch)
	flush := func(seq uint64, last bool) error {
		if len(batch) == 0 && !last {
			return nil
		}
		err := dst.Update(ctx, func(tx kv.Tx) error {
			db := tx.Bucket(name)
			for _, p := range batch {
				if err := db.Put(p.k, p.v); err != nil {
					return err
				}
			}
			if last && seq > 0 {
				return db.SetSequence(seq)
			}
			return nil
		})
		batch = batch[:0]
		return err
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		// Values are valid only in the source transaction; copy them.
		batch = append(batch, pair{append([]byte(nil), k...), append([]byte{}, v...)})
		if len(batch) == copyBatch {
			if err := flush(0, false); err != nil {
				return err
			}
		}
	}
	return flush(b.Sequence(), true)
}

func countKeys(ctx context.Context, db kv.DB) (map[string]int, error) {
	out := map[string]int{}
	err := db.View(ctx, func(tx kv.Tx) error {
		names, err := tx.Buckets()
		if err != nil {
			return err
		}
		for _, name := range names {
			n := 0
			c := tx.Bucket(name).Cursor()
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				n++
			}
			out[string(name)] = n
		}
		return nil
	})
	return out, err
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
