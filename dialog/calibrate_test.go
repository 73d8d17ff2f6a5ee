package dialog

import (
	"math"
	"slices"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

// pointPrior is a prior that knows the model's accuracy is q.
func pointPrior(q float64) [qGrid]float64 {
	var p [qGrid]float64
	best, bi := 2.0, 0
	for i := range p {
		if d := math.Abs(qAt(i) - q); d < best {
			best, bi = d, i
		}
	}
	p[bi] = 1
	return p
}

func TestEwens(t *testing.T) {
	t.Parallel()
	// With concentration a, the second sample repeats the first with
	// probability 1/(1+a).
	if got, want := ewens([]float64{2}), 1/(1+errorSpread); math.Abs(got-want) > 1e-12 {
		t.Fatalf("ewens(2) = %v, want %v", got, want)
	}
	if got, want := ewens([]float64{1, 1}), errorSpread/(1+errorSpread); math.Abs(got-want) > 1e-12 {
		t.Fatalf("ewens(1,1) = %v, want %v", got, want)
	}
	if ewens(nil) != 1 {
		t.Fatal("no samples: probability 1")
	}
}

func TestVoteBeliefDependsOnTheModel(t *testing.T) {
	t.Parallel()
	// Four of five samples agree. From a model right on 90% of its
	// samples that is near certain; from one right on 35% it is not,
	// because its mistakes repeat.
	strong := voteBelief([]float64{4, 1}, nil, pointPrior(0.9))
	weak := voteBelief([]float64{4, 1}, nil, pointPrior(0.35))
	if strong[0] < 0.97 {
		t.Errorf("strong model: P(top) = %.3f, want > 0.97", strong[0])
	}
	if weak[0] > 0.75 || weak[0] < 0.4 {
		t.Errorf("weak model: P(top) = %.3f, want between 0.4 and 0.75", weak[0])
	}
	for _, b := range [][]float64{strong, weak} {
		var s float64
		for _, p := range b {
			s += p
		}
		if math.Abs(s-1) > 1e-9 {
			t.Fatalf("belief sums to %v", s)
		}
	}
}

func TestCalibratorLearnsTheModelFromAgreement(t *testing.T) {
	t.Parallel()
	var strong, weak calibrator
	start := strong.accuracy()
	for range 40 {
		// A good model: mostly unanimous, sometimes one stray sample.
		strong.observe([]float64{5}, nil)
		strong.observe([]float64{4, 1}, nil)
		// A poor one: the votes scatter.
		weak.observe([]float64{2, 1, 1, 1}, nil)
		weak.observe([]float64{2, 2, 1}, nil)
	}
	if s, w := strong.accuracy(), weak.accuracy(); !(s > start && start > w) {
		t.Fatalf("learned accuracy: strong %.2f, prior %.2f, weak %.2f", s, start, w)
	}
	// The same split reads differently after each history.
	s := voteBelief([]float64{4, 1}, nil, strong.prior())
	w := voteBelief([]float64{4, 1}, nil, weak.prior())
	if s[0] < 0.9 || w[0] > s[0]-0.1 {
		t.Fatalf("P(top of 4/1): after a strong model %.3f, after a weak one %.3f", s[0], w[0])
	}
	// One sample says nothing about agreement.
	var c calibrator
	c.observe([]float64{1}, nil)
	if c.seen != 0 {
		t.Fatal("a single sample was learned from")
	}
}

func TestBeliefWeighsEvidence(t *testing.T) {
	t.Parallel()
	prior := pointPrior(0.5)
	base, _ := belief([]groupEvidence{{votes: 3}, {votes: 2}}, nil, prior)
	// The offline engine's reading landing in the second interpretation
	// lifts it.
	lifted, _ := belief([]groupEvidence{{votes: 3}, {votes: 2, offline: 1}}, nil, prior)
	if lifted[1] <= base[1] || lifted[1] <= lifted[0] {
		t.Errorf("offline agreement: %v → %v", base, lifted)
	}
	// A reading that leaves a word of the question out loses to one that
	// uses it, even with more votes.
	costly, _ := belief([]groupEvidence{{votes: 3, unexplained: 2}, {votes: 2}}, nil, prior)
	if costly[0] >= costly[1] {
		t.Errorf("unexplained words: %v", costly)
	}
	// An interpretation only the offline engine proposes stands for part
	// of "none of the samples".
	p, none := belief([]groupEvidence{{votes: 5}, {offline: 1}}, nil, pointPrior(0.3))
	_, noneAlone := belief([]groupEvidence{{votes: 5}}, nil, pointPrior(0.3))
	if p[1] <= 0 || none >= noneAlone {
		t.Errorf("offline-only reading: p %v none %.3f (alone %.3f)", p, none, noneAlone)
	}
	if math.Abs(p[0]+p[1]+none-1) > 1e-9 {
		t.Errorf("belief does not sum to 1: %v + %v", p, none)
	}
}

func TestEmptyResultAndReadingKey(t *testing.T) {
	t.Parallel()
	empty := &warehouse.Result{}
	nulls := &warehouse.Result{Rows: [][]any{{nil, nil}}}
	rows := &warehouse.Result{Rows: [][]any{{nil, int64(3)}}}
	if !emptyResult(empty) || !emptyResult(nulls) || emptyResult(rows) {
		t.Fatal("emptyResult")
	}
	a := sqlshape.Slots{sqlshape.Key(sqlshape.SlotOutput): sqlshape.NewValue(sqlshape.SlotOutput, []sqlshape.Part{{Expr: "trips.id"}}, nil)}
	b := sqlshape.Slots{sqlshape.Key(sqlshape.SlotOutput): sqlshape.NewValue(sqlshape.SlotOutput, []sqlshape.Part{{Expr: "trips.driver"}}, nil)}
	a2 := sqlshape.Slots{sqlshape.Key(sqlshape.SlotOutput): sqlshape.NewValue(sqlshape.SlotOutput, []sqlshape.Part{{Expr: "trips.id"}}, nil),
		sqlshape.Key(sqlshape.SlotLimit): sqlshape.NewValue(sqlshape.SlotLimit, nil, nil)}
	if readingKey(a) == readingKey(b) || readingKey(a) != readingKey(a2) {
		t.Fatal("readingKey: different readings must differ, empty slots must not count")
	}
}

// TestSQLLiterals: the values a reading compares with, read as the server
// reads the statement. Rows marked "was" show what the hand-written
// scanner listed before, which split a literal at a doubled or escaped
// quote and read strings inside quoted names and comments.
func TestSQLLiterals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, sql string
		want      []string
	}{
		{"strings and numbers in order", "SELECT name FROM t WHERE town = 'Ashby' AND pop > 1000.5 LIMIT 3", []string{"ashby", "1000.5", "3"}},
		{"double quotes", `SELECT * FROM t WHERE depot = "North Yard" AND x > 0.25`, []string{"north yard", "0.25"}},
		{"the other quote inside", `SELECT * FROM t WHERE a = 'say "hi"'`, []string{`say "hi"`}},
		{"empty literal", "SELECT * FROM t WHERE a = '' AND b = 2", []string{"", "2"}},
		{"unterminated", "SELECT * FROM t WHERE a = 'abc", []string{"abc"}},
		{"digits inside names are not numbers", "SELECT t1.c2, 3d FROM t1 WHERE d >= CURRENT_DATE - INTERVAL 30 DAY", []string{"30"}},
		// was "o", "brien", "2"
		{"doubled quote", "SELECT * FROM t WHERE a = 'O''Brien' AND b = 2", []string{"o'brien", "2"}},
		// was `o\`, " and b = 2"
		{"escaped quote", `SELECT * FROM t WHERE a = 'O\'Brien' AND b = 2`, []string{"o'brien", "2"}},
		// was `c:\\`, "2"
		{"escaped backslash", `SELECT * FROM t WHERE a = 'C:\\' AND b = 2`, []string{`c:\`, "2"}},
		// was "neil`, `2019` from t where x = ", ""
		{"quoted names hold none", "SELECT `o'neil`, `2019` FROM t WHERE x = 'A'", []string{"a"}},
		// was "1", "10", "t\n, ", " /* 5 */ # ", ""
		{"comments hold none", "SELECT 1 -- top 10 isn't\n, 'x' /* 5 */ # 'y'", []string{"1", "x"}},
		{"none", "SELECT name FROM t", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sqlLiterals(tc.sql); !slices.Equal(got, tc.want) {
				t.Errorf("sqlLiterals(%q) = %q, want %q", tc.sql, got, tc.want)
			}
		})
	}
}

// BenchmarkBelief measures the calibrated belief of one round: five
// samples in four interpretations and three pooled offline readings.
func BenchmarkBelief(b *testing.B) {
	var c calibrator
	for range 50 {
		c.observe([]float64{3, 1, 1}, nil)
	}
	groups := []groupEvidence{{votes: 2}, {votes: 1, offline: 0.5}, {votes: 1, unexplained: 1}, {votes: 1}, {offline: 0.3}, {offline: 0.2}}
	b.ReportAllocs()
	for b.Loop() {
		belief(groups, []float64{1}, c.prior())
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/round")
}
