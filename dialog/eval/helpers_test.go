package eval

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/dialog/offline"
	"github.com/clarify-bot/clarify/internal/testwh"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// now is the fixed clock of test managers.
func now() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }

// tinySchema is a small truck fleet of our own: a depot's name appears in
// truck, depot, neighbour_info and route, so "in eastport" needs a
// clarification.
const tinySchema = `
CREATE TABLE depot (
  depot_name varchar(40) NOT NULL,
  flagship varchar(40),
  capacity int,
  area double,
  occupancy double,
  PRIMARY KEY (depot_name)
);
CREATE TABLE truck (
  truck_name varchar(40) NOT NULL,
  depot_name varchar(40) NOT NULL,
  capacity int
);
CREATE TABLE neighbour_info (
  depot_name varchar(40) NOT NULL,
  neighbour varchar(40) NOT NULL
);
CREATE TABLE route (
  route_name varchar(40) NOT NULL,
  length int,
  passes varchar(40) NOT NULL
);
INSERT INTO depot VALUES
  ('eastport', 'atlas', 12700, 11400, 0.24),
  ('northfield', 'falcon', 28500, 26680, 0.53),
  ('southgate', 'ibis', 40600, 15870, 0.91),
  ('west hill', 'kestrel', 3790, 12159, 0.11),
  ('ridgeway', 'lynx', 7600, 6992, 0.43),
  ('lakeside', 'nomad', 980, 9781, 0.05);
INSERT INTO truck VALUES
  ('atlas', 'eastport', 7900), ('bison', 'eastport', 3300), ('comet', 'eastport', 1500),
  ('drake', 'northfield', 16000), ('ember', 'northfield', 9000), ('falcon', 'northfield', 3500),
  ('grizzly', 'southgate', 29000), ('harrier', 'southgate', 8800), ('ibis', 'southgate', 2800),
  ('jaguar', 'west hill', 3300), ('kestrel', 'west hill', 490),
  ('lynx', 'ridgeway', 4000), ('marlin', 'ridgeway', 3600),
  ('nomad', 'lakeside', 470), ('osprey', 'lakeside', 510);
INSERT INTO neighbour_info VALUES
  ('eastport', 'southgate'), ('eastport', 'west hill'), ('southgate', 'eastport'),
  ('west hill', 'eastport'), ('west hill', 'northfield'), ('west hill', 'ridgeway'),
  ('northfield', 'west hill'), ('northfield', 'ridgeway'), ('ridgeway', 'northfield'), ('ridgeway', 'west hill');
INSERT INTO route VALUES
  ('coastal', 2333, 'eastport'), ('coastal', 2333, 'southgate'), ('highland', 3033, 'west hill'),
  ('highland', 3033, 'northfield'), ('valley', 1638, 'northfield'), ('valley', 1638, 'ridgeway'), ('lake loop', 1175, 'lakeside');
`

// tinyEnv is the tiny warehouse with a harness over it.
type tinyEnv struct {
	db      *warehouse.DB
	exec    *countingExec
	snap    *warehouse.Snapshot
	harness *Harness
}

// newTiny loads tinySchema on the target and builds a harness over it.
func newTiny(t *testing.T, target testwh.Target) *tinyEnv {
	t.Helper()
	d := testwh.NewDatabase(t, target, tinySchema)
	db := d.Open(t, warehouse.Config{})
	snap, err := db.TakeSnapshot(context.Background(), warehouse.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ex := &countingExec{next: db}
	return &tinyEnv{db: db, exec: ex, snap: snap, harness: New(ex, snap, Options{})}
}

// countingExec counts the statements the harness runs.
type countingExec struct {
	next Executor
	mu   sync.Mutex
	runs []string
}

func (c *countingExec) Query(ctx context.Context, sql string, lim warehouse.Limits) (*warehouse.Result, error) {
	c.mu.Lock()
	c.runs = append(c.runs, sql)
	c.mu.Unlock()
	return c.next.Query(ctx, sql, lim)
}

func (c *countingExec) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.runs)
}

// mustQuery runs sql on the tiny warehouse.
func (e *tinyEnv) mustQuery(t *testing.T, sql string) *warehouse.Result {
	t.Helper()
	r, err := e.db.Query(context.Background(), sql, warehouse.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return r
}

// gold prepares q's gold, failing the test on problems.
func (e *tinyEnv) gold(t *testing.T, q Question) *Gold {
	t.Helper()
	g, probs := e.harness.PrepareGold(context.Background(), "test", q)
	if len(probs) > 0 || g.Err != nil {
		t.Fatalf("gold of %s: %v %v", q.ID, probs, g.Err)
	}
	return g
}

// manager builds a real dialog manager with the offline engine over the
// tiny warehouse, with stores of its own.
func (e *tinyEnv) manager(t *testing.T, cfg dialog.Config) *dialog.Manager {
	t.Helper()
	dir := t.TempDir()
	facts, err := ontologyfile.Open(filepath.Join(dir, "ontology.db"), ontology.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { facts.Close() })
	convs, err := convstore.Open(filepath.Join(dir, "conversations.db"), convstore.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { convs.Close() })
	cat := catalog.New(e.snap, catalog.Options{})
	cfg.Warehouse, cfg.Now = "tiny", now
	m, err := dialog.New(cfg, dialog.Deps{Engine: offline.New(cat, offline.Options{Now: now}), Exec: e.db, Catalog: cat, Facts: facts, Admin: facts, States: convs})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// fakeDialog is a scripted Dialog.
type fakeDialog struct {
	handle func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)
	trace  func(ctx context.Context, who dialog.Who, conv string) (*dialog.Trace, error)
}

func (f *fakeDialog) Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	return f.handle(ctx, ev)
}

func (f *fakeDialog) Trace(ctx context.Context, who dialog.Who, conv string) (*dialog.Trace, error) {
	if f.trace == nil {
		return nil, errors.New("no such conversation")
	}
	return f.trace(ctx, who, conv)
}
