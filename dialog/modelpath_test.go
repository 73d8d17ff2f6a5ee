package dialog_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/convstore"
	"github.com/clarify-bot/clarify/internal/testwh"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// A small fleet, in no evaluation set: depots, vehicles and their trips.
const fleetSchema = `
CREATE TABLE depots (id INT PRIMARY KEY, name VARCHAR(40), city VARCHAR(40));
CREATE TABLE vehicles (id INT PRIMARY KEY, plate VARCHAR(20), depot_id INT, fuel VARCHAR(20), weight INT, horsepower INT);
CREATE TABLE trips (id INT PRIMARY KEY, vehicle_id INT, driver VARCHAR(40), km INT, status VARCHAR(20));
INSERT INTO depots VALUES (1, 'north yard', 'oslo'), (2, 'harbour', 'bergen');
INSERT INTO vehicles VALUES (1, 'EL1001', 1, 'electric', 1800, 200), (2, 'DI2002', 1, 'diesel', 2600, 180),
  (3, 'DI2003', 2, 'diesel', 3100, 260), (4, 'EL1004', 2, 'electric', 2100, 300);
INSERT INTO trips VALUES (1, 1, 'ann', 120, 'done'), (2, 2, 'bo', 340, 'done'), (3, 3, 'ann', 80, 'late'),
  (4, 4, 'cy', 410, 'done'), (5, 2, 'bo', 60, 'late');
`

// scripted is an engine whose proposals a test writes.
type scripted struct {
	name string
	mu   sync.Mutex
	reqs []dialog.Request
	fn   func(req dialog.Request) *dialog.Proposal
}

func (s *scripted) Name() string { return s.name }

func (s *scripted) Candidates(_ context.Context, req dialog.Request) (*dialog.Proposal, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	return s.fn(req), nil
}

func (s *scripted) last() dialog.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reqs[len(s.reqs)-1]
}

// sampled is a proposal of model samples: each SQL with its votes.
func sampled(votes map[string]float64) *dialog.Proposal {
	p := &dialog.Proposal{}
	n := 0.0
	for sql, v := range votes {
		p.Candidates = append(p.Candidates, dialog.Candidate{SQL: sql, Prior: v, Votes: v})
		n += v
	}
	p.Samples = int(n)
	return p
}

// weighed is a proposal whose priors are not votes (the offline engine's kind).
func weighed(priors map[string]float64) *dialog.Proposal {
	p := &dialog.Proposal{}
	for sql, w := range priors {
		p.Candidates = append(p.Candidates, dialog.Candidate{SQL: sql, Prior: w})
	}
	return p
}

type fleet struct {
	m   *dialog.Manager
	who dialog.Who
	n   int
}

// onEveryTarget runs a test on the embedded warehouse and, with
// MYSQL_TEST_DSN, on a real server.
func onEveryTarget(t *testing.T, test func(t *testing.T, target testwh.Target)) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) { test(t, target) })
	}
}

func newFleet(t *testing.T, target testwh.Target, cfg dialog.Config, engine, pool dialog.Engine) *fleet {
	t.Helper()
	d := testwh.NewDatabase(t, target, fleetSchema)
	db := d.Open(t, warehouse.Config{})
	snap, err := db.TakeSnapshot(context.Background(), warehouse.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	now := func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }
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
	cfg.Warehouse, cfg.Now = "fleet", now
	m, err := dialog.New(cfg, dialog.Deps{Engine: engine, Pool: pool, Exec: db, Catalog: catalog.New(snap, catalog.Options{}), Facts: facts, States: convs})
	if err != nil {
		t.Fatal(err)
	}
	return &fleet{m: m, who: dialog.Who{Platform: "test", Workspace: "w", Channel: "c", User: "ana"}}
}

// ask starts a conversation and returns its conversation id and last reply.
func (f *fleet) ask(t *testing.T, q string) (string, dialog.Reply) {
	t.Helper()
	f.n++
	conv := fmt.Sprintf("c%d", f.n)
	rs, err := f.m.Handle(context.Background(), dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: f.who, Text: q})
	if err != nil || len(rs) == 0 {
		t.Fatalf("%s: %v %v", q, rs, err)
	}
	return conv, rs[len(rs)-1]
}

func (f *fleet) send(t *testing.T, ev dialog.Event) dialog.Reply {
	t.Helper()
	ev.Who = f.who
	rs, err := f.m.Handle(context.Background(), ev)
	if err != nil || len(rs) == 0 {
		t.Fatalf("%+v: %v %v", ev, rs, err)
	}
	return rs[len(rs)-1]
}

func (f *fleet) trace(t *testing.T, conv string) *dialog.Trace {
	t.Helper()
	tr, err := f.m.Trace(context.Background(), f.who, conv)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

const (
	hydrogenFuel  = "SELECT plate FROM vehicles WHERE fuel = 'hydrogen'"
	hydrogenPlate = "SELECT plate FROM vehicles WHERE plate = 'hydrogen'"
	dieselFuel    = "SELECT plate FROM vehicles WHERE fuel = 'diesel'"
)

func TestEmptyReadingsStayApart(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		eng := &scripted{name: "test", fn: func(dialog.Request) *dialog.Proposal {
			return weighed(map[string]float64{hydrogenFuel: 0.5, hydrogenPlate: 0.4, dieselFuel: 0.1})
		}}
		f := newFleet(t, target, dialog.Config{}, eng, nil)
		conv, r := f.ask(t, "which vehicles run on hydrogen")
		if tr := f.trace(t, conv); tr.Interpretations != 3 {
			t.Fatalf("two readings that both find nothing are two interpretations: got %d", tr.Interpretations)
		}
		if r.Kind != dialog.ReplyClarification {
			t.Fatalf("want a question, got %s", r.Text)
		}
	})
}

func TestAnEmptyAnswerBesideRowsIsAsked(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		for _, tc := range []struct {
			name   string
			priors map[string]float64
			ask    bool
		}{
			{"another reading finds rows", map[string]float64{hydrogenFuel: 0.9, dieselFuel: 0.1}, true},
			{"nothing else", map[string]float64{hydrogenFuel: 1}, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				eng := &scripted{name: "test", fn: func(dialog.Request) *dialog.Proposal { return weighed(tc.priors) }}
				f := newFleet(t, target, dialog.Config{}, eng, nil)
				_, r := f.ask(t, "which vehicles run on hydrogen")
				if asked := r.Kind == dialog.ReplyClarification; asked != tc.ask {
					t.Fatalf("asked %v, want %v: %s", asked, tc.ask, r.Text)
				}
			})
		}
	})
}

const (
	heaviest    = "SELECT plate FROM vehicles ORDER BY weight DESC LIMIT 1"
	strongest   = "SELECT plate FROM vehicles ORDER BY horsepower DESC LIMIT 1"
	lightest    = "SELECT plate FROM vehicles ORDER BY weight ASC LIMIT 1"
	firstPlate  = "SELECT plate FROM vehicles ORDER BY plate LIMIT 1"
	dieselCount = "SELECT COUNT(*) FROM vehicles WHERE fuel = 'diesel'"
)

// history asks n questions whose samples split as votes says, leaving
// each one as it ends (answered, or waiting for an answer).
func history(t *testing.T, f *fleet, n int) {
	t.Helper()
	for i := range n {
		f.ask(t, fmt.Sprintf("history question %d", i))
	}
}

func TestStoppingFollowsTheModelsAgreement(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		probe := map[string]float64{heaviest: 4, strongest: 1}
		for _, tc := range []struct {
			name  string
			votes map[string]float64
			ask   bool
		}{
			// A model whose samples mostly agree: four of five is enough.
			{"a model that agrees with itself", map[string]float64{dieselCount: 5}, false},
			// One whose samples scatter: four of five may be its favourite mistake.
			{"a model that scatters", map[string]float64{heaviest: 2, strongest: 1, lightest: 1, firstPlate: 1}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				eng := &scripted{name: "llm", fn: func(req dialog.Request) *dialog.Proposal {
					if strings.HasPrefix(req.Question, "history") {
						return sampled(tc.votes)
					}
					return sampled(probe)
				}}
				f := newFleet(t, target, dialog.Config{}, eng, nil)
				history(t, f, 30)
				conv, r := f.ask(t, "which is the heaviest vehicle")
				if asked := r.Kind == dialog.ReplyClarification; asked != tc.ask {
					t.Fatalf("asked %v, want %v (first reading %.2f likely): %s", asked, tc.ask, f.trace(t, conv).TopP, r.Text)
				}
			})
		}
	})
}

func TestUnsureOfTheOnlyReadingItConfirms(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		widened := 0
		eng := &scripted{name: "llm"}
		eng.fn = func(req dialog.Request) *dialog.Proposal {
			switch {
			case strings.HasPrefix(req.Question, "history"):
				return sampled(map[string]float64{heaviest: 2, strongest: 1, lightest: 1, firstPlate: 1})
			case req.Widen > 0:
				widened++
				return sampled(map[string]float64{strongest: 5})
			}
			return sampled(map[string]float64{heaviest: 5})
		}
		f := newFleet(t, target, dialog.Config{}, eng, nil)
		history(t, f, 30)

		// "Yes, that's it" answers with the reading.
		_, r := f.ask(t, "which is the heaviest vehicle")
		if r.Kind != dialog.ReplyClarification || r.Clarification.Key.Name != "confirm" || len(r.Clarification.Options) != 1 {
			t.Fatalf("want a confirmation, got %s", r.Text)
		}
		if !strings.Contains(r.Clarification.Prompt, "I read this as") || strings.Contains(r.Clarification.Prompt, "ORDER BY") {
			t.Fatalf("the confirmation should say the reading in words: %q", r.Clarification.Prompt)
		}
		a := f.send(t, dialog.Event{Kind: dialog.EventChoose, Conversation: "c31", Target: r.Clarification.ID, Option: 0})
		if a.Kind != dialog.ReplyAnswer || a.Answer.SQL != heaviest {
			t.Fatalf("want the confirmed answer, got %s", a.Text)
		}

		// "None of these" looks again, more widely.
		conv, r := f.ask(t, "which is the heaviest vehicle")
		a = f.send(t, dialog.Event{Kind: dialog.EventOther, Conversation: conv, Target: r.Clarification.ID, Text: "none of these"})
		if widened == 0 || a.Kind == dialog.ReplyAnswer && a.Answer.SQL == heaviest {
			t.Fatalf("after 'none of these' the engine should be asked for other readings (widened %d): %s", widened, a.Text)
		}
	})
}

func TestNeverAskAnswersTheLikeliest(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		eng := &scripted{name: "test", fn: func(dialog.Request) *dialog.Proposal {
			return weighed(map[string]float64{heaviest: 0.55, strongest: 0.45})
		}}
		f := newFleet(t, target, dialog.Config{MaxRounds: dialog.NeverAsk}, eng, nil)
		_, r := f.ask(t, "which is the heaviest vehicle")
		if r.Kind != dialog.ReplyAnswer || r.Answer.SQL != heaviest {
			t.Fatalf("want the likeliest answer without a question, got %s", r.Text)
		}
	})
}

func TestPooledReadingsAreEvidence(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		eng := &scripted{name: "llm", fn: func(dialog.Request) *dialog.Proposal {
			return sampled(map[string]float64{heaviest: 3, strongest: 2})
		}}
		// The offline engine writes the second reading its own way: the same
		// rows, so the same interpretation.
		pool := &scripted{name: "offline", fn: func(dialog.Request) *dialog.Proposal {
			return weighed(map[string]float64{"SELECT v.plate FROM vehicles AS v WHERE v.horsepower = (SELECT MAX(horsepower) FROM vehicles)": 0.8, firstPlate: 0.2})
		}}
		f := newFleet(t, target, dialog.Config{}, eng, pool)
		conv, _ := f.ask(t, "which vehicle is the strongest")
		tr := f.trace(t, conv)
		if tr.TopSQL != strongest {
			t.Fatalf("the reading both engines give should lead: top %q (%.2f)", tr.TopSQL, tr.TopP)
		}
		if len(tr.SQL) != 4 {
			t.Fatalf("the pooled readings join the candidates: %v", tr.SQL)
		}
		if pool.last().Question != "which vehicle is the strongest" {
			t.Fatal("the pooled engine was not asked the question")
		}
	})
}

func TestReadingQuestionOffersWholeReadings(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		eng := &scripted{name: "llm", fn: func(dialog.Request) *dialog.Proposal {
			// Each wrong sample differs from the others in a part of its own.
			return sampled(map[string]float64{
				"SELECT driver, SUM(km) FROM trips WHERE status = 'done' GROUP BY driver":                               2,
				"SELECT driver, AVG(km) FROM trips WHERE status = 'done' GROUP BY driver":                               1,
				"SELECT driver, SUM(km) FROM trips WHERE status = 'done' GROUP BY driver ORDER BY SUM(km) DESC LIMIT 1": 1,
				"SELECT vehicle_id, SUM(km) FROM trips WHERE status = 'done' GROUP BY vehicle_id":                       1,
			})
		}}
		f := newFleet(t, target, dialog.Config{}, eng, nil)
		_, r := f.ask(t, "total km of done trips per driver")
		if r.Kind != dialog.ReplyClarification || r.Clarification.Key.Name != "reading" || len(r.Clarification.Options) != dialog.MaxOptions {
			t.Fatalf("want one question over three readings, got %s", r.Text)
		}
		sqlish := regexp.MustCompile(`[a-z_]+\.[a-z_]+|\(|SUM|AVG|WHERE`)
		seen := map[string]bool{}
		for _, o := range r.Clarification.Options {
			if m := sqlish.FindString(o.Label); m != "" {
				t.Errorf("SQL %q in option %q", m, o.Label)
			}
			if seen[o.Label] || o.Label == "" {
				t.Errorf("options must read differently: %q", o.Label)
			}
			seen[o.Label] = true
			if len(o.Readings) == 0 {
				t.Errorf("option %q keeps no reading", o.Label)
			}
		}
	})
}

func TestDifferencesInsideASubqueryAreAsked(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		eng := &scripted{name: "test", fn: func(dialog.Request) *dialog.Proposal {
			return weighed(map[string]float64{
				"SELECT name FROM depots WHERE id IN (SELECT depot_id FROM vehicles WHERE fuel = 'diesel')":   0.6,
				"SELECT name FROM depots WHERE id IN (SELECT depot_id FROM vehicles WHERE horsepower > 250)":  0.25,
				"SELECT name FROM depots WHERE id IN (SELECT depot_id FROM vehicles WHERE fuel = 'electric')": 0.15,
			})
		}}
		f := newFleet(t, target, dialog.Config{}, eng, nil)
		_, r := f.ask(t, "which depots have diesel vehicles")
		if r.Kind != dialog.ReplyClarification || !r.Clarification.Key.Nested() {
			t.Fatalf("want a question about the subquery, got %s", r.Text)
		}
		if strings.Contains(r.Text, "subquery") || strings.Contains(r.Text, "depot_id") {
			t.Fatalf("the question should be worded from the outer question: %s", r.Text)
		}
	})
}

func TestACaveatAnotherReadingAvoidsIsAsked(t *testing.T) {
	t.Parallel()
	onEveryTarget(t, func(t *testing.T, target testwh.Target) {
		const all = "SELECT plate FROM vehicles"
		const north = "SELECT v.plate FROM vehicles v JOIN depots d ON d.id = v.depot_id WHERE d.name = 'north yard'"
		for _, tc := range []struct {
			name   string
			unused []string
			ask    bool
		}{
			{"the likeliest reading leaves 'north' out, another uses it", []string{"north"}, true},
			{"it uses every word", nil, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				eng := &scripted{name: "llm", fn: func(req dialog.Request) *dialog.Proposal {
					if strings.HasPrefix(req.Question, "history") {
						return sampled(map[string]float64{dieselCount: 5})
					}
					p := sampled(map[string]float64{all: 4, north: 1})
					for i := range p.Candidates {
						if p.Candidates[i].SQL == all {
							p.Candidates[i].Unused = tc.unused
						}
					}
					return p
				}}
				f := newFleet(t, target, dialog.Config{}, eng, nil)
				history(t, f, 30)
				_, r := f.ask(t, "plates of the vehicles of the north yard")
				if asked := r.Kind == dialog.ReplyClarification; asked != tc.ask {
					t.Fatalf("asked %v, want %v: %s", asked, tc.ask, r.Text)
				}
			})
		}
	})
}
