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

// tinySchema is a small US-geography warehouse in the style of GeoQuery:
// a state's name appears in city, state and border_info, so "in arizona"
// needs a clarification.
const tinySchema = `
CREATE TABLE state (
  state_name varchar(40) NOT NULL,
  capital varchar(40),
  population int,
  area double,
  density double,
  PRIMARY KEY (state_name)
);
CREATE TABLE city (
  city_name varchar(40) NOT NULL,
  state_name varchar(40) NOT NULL,
  population int
);
CREATE TABLE border_info (
  state_name varchar(40) NOT NULL,
  border varchar(40) NOT NULL
);
CREATE TABLE river (
  river_name varchar(40) NOT NULL,
  length int,
  traverse varchar(40) NOT NULL
);
INSERT INTO state VALUES
  ('arizona', 'phoenix', 2718215, 114000, 23.8),
  ('texas', 'austin', 14229191, 266807, 53.3),
  ('california', 'sacramento', 23667902, 158706, 151.4),
  ('new mexico', 'santa fe', 1302894, 121593, 10.7),
  ('oklahoma', 'oklahoma city', 3025290, 69919, 43.2),
  ('wyoming', 'cheyenne', 469557, 97809, 4.8);
INSERT INTO city VALUES
  ('phoenix', 'arizona', 789704), ('tucson', 'arizona', 330537), ('mesa', 'arizona', 152453),
  ('houston', 'texas', 1595138), ('dallas', 'texas', 904078), ('austin', 'texas', 345496),
  ('los angeles', 'california', 2966850), ('san diego', 'california', 875538), ('sacramento', 'california', 275741),
  ('albuquerque', 'new mexico', 331767), ('santa fe', 'new mexico', 48953),
  ('oklahoma city', 'oklahoma', 404014), ('tulsa', 'oklahoma', 360919),
  ('cheyenne', 'wyoming', 47283), ('casper', 'wyoming', 51016);
INSERT INTO border_info VALUES
  ('arizona', 'california'), ('arizona', 'new mexico'), ('california', 'arizona'),
  ('new mexico', 'arizona'), ('new mexico', 'texas'), ('new mexico', 'oklahoma'),
  ('texas', 'new mexico'), ('texas', 'oklahoma'), ('oklahoma', 'texas'), ('oklahoma', 'new mexico');
INSERT INTO river VALUES
  ('colorado', 2333, 'arizona'), ('colorado', 2333, 'california'), ('rio grande', 3033, 'new mexico'),
  ('rio grande', 3033, 'texas'), ('red', 1638, 'texas'), ('red', 1638, 'oklahoma'), ('green', 1175, 'wyoming');
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
