package eval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/testwh"
)

// tinyQuestions are the tiny dataset's questions.jsonl: ten questions with
// known golds, and two malformed lines (5 and 8).
var tinyQuestions = strings.Join([]string{
	`{"id": "t01", "question": "how many trucks are there", "gold_sql": "SELECT COUNT(*) FROM truck", "ordered": false}`,
	`{"id": "t02", "question": "what is the biggest truck in eastport", "gold_sql": "SELECT TRUCKalias0.TRUCK_NAME FROM truck AS TRUCKalias0 WHERE TRUCKalias0.CAPACITY = ( SELECT MAX( TRUCKalias1.CAPACITY ) FROM truck AS TRUCKalias1 WHERE TRUCKalias1.DEPOT_NAME = \"eastport\" ) AND TRUCKalias0.DEPOT_NAME = \"eastport\"", "ordered": false}`,
	`{"id": "t03", "question": "list the trucks kept in northfield", "gold_sql": "SELECT truck_name FROM truck WHERE depot_name = 'northfield'", "ordered": false}`,
	`{"id": "t04", "question": "list the trucks kept in northfield", "gold_sql": "SELECT truck_name FROM truck WHERE depot_name = 'northfield' ORDER BY capacity", "ordered": true, "user": "bo"}`,
	`{"id": "t05", "question": "which trucks in lakeside have a capacity over`,
	`{"id": "t05", "question": "which trucks in lakeside have a capacity over 10000", "gold_sql": "SELECT truck_name FROM truck WHERE depot_name = 'lakeside' AND capacity > 10000", "ordered": false, "tags": ["empty-gold"]}`,
	`{"id": "t06", "question": "which depot has the largest area", "gold_sql": "SELECT depot_name, area FROM depot WHERE area = (SELECT MAX(area) FROM depot)", "alt_gold_sql": ["SELECT DEPOTalias0.DEPOT_NAME FROM depot AS DEPOTalias0 WHERE DEPOTalias0.AREA = (SELECT MAX(DEPOTalias1.AREA) FROM depot AS DEPOTalias1)"], "ordered": false}`,
	`{"id": "t99", "question": "a question without gold"}`,
	`{"id": "t07", "question": "how many routes are there", "gold_sql": "SELECT COUNT(*) FROM routes", "ordered": false}`,
	`{"id": "t08", "question": "purple monkey dishwasher", "gold_sql": "SELECT 1", "ordered": false}`,
	`{"id": "t09", "question": "what is the longest route", "gold_sql": "SELECT route_name FROM route WHERE length < 1200", "ordered": false, "user": "bo"}`,
	`{"id": "t10", "question": "how large an area is west hill", "gold_sql": "SELECT area FROM depot WHERE depot_name = 'west hill'", "ordered": false}`,
}, "\n") + "\n"

// makeDataset writes a dataset directory and returns it.
func makeDataset(t testing.TB, schema, questions string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{SchemaFile: schema, QuestionsFile: questions} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// prepare loads the dataset and runs its golds, returning them with every problem.
func (e *tinyEnv) prepare(t *testing.T, d *Dataset) ([]*Gold, []Problem) {
	t.Helper()
	probs := append([]Problem(nil), d.Problems...)
	var golds []*Gold
	for _, q := range d.Questions {
		g, p := e.harness.PrepareGold(context.Background(), d.QuestionsPath(), q)
		golds = append(golds, g)
		probs = append(probs, p...)
	}
	return golds, probs
}

// The tiny dataset through the real manager and offline engine.
func TestEvalRunTiny(t *testing.T) {
	for _, target := range testwh.Targets() {
		t.Run(target.Name, func(t *testing.T) {
			e := newTiny(t, target)
			dir := makeDataset(t, tinySchema, tinyQuestions)
			d, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			golds, probs := e.prepare(t, d)
			if len(golds) != 10 {
				t.Fatalf("%d questions loaded, want 10", len(golds))
			}
			qfile := filepath.Join(dir, QuestionsFile)
			wantProbs := []string{
				qfile + ":5: broken JSON: unexpected EOF",
				qfile + ":8: t99: missing field gold_sql",
				qfile + ":9: t07: gold_sql fails: ",
			}
			if len(probs) != len(wantProbs) {
				t.Fatalf("problems %v, want %d", probs, len(wantProbs))
			}
			for i, w := range wantProbs {
				if !strings.HasPrefix(probs[i].String(), w) {
					t.Errorf("problem %q, want prefix %q", probs[i], w)
				}
			}

			m := e.manager(t, dialog.Config{MaxRounds: 4})
			run, err := e.harness.Run(context.Background(), m, golds, RunConfig{Dataset: "tiny", Engine: "offline", Strategy: dialog.StrategyEIG, MaxRounds: 4})
			if err != nil {
				t.Fatal(err)
			}
			if run.Questions != 10 || len(run.Results) != 10 {
				t.Fatalf("%d questions scored, want 10", run.Questions)
			}
			byID := map[string]QuestionResult{}
			for _, r := range run.Results {
				byID[r.ID] = r
				t.Logf("%s correct=%v failure=%q asked=%d answer=%q notice=%q", r.ID, r.Correct, r.Failure, r.Questions, r.AnswerSQL, r.Notice)
			}
			expect := []struct {
				id      string
				correct bool
				failure FailureKind
			}{
				{"t01", true, ""},
				{"t02", true, ""},
				{"t03", true, ""},
				{"t05", true, ""}, // an empty gold matched by an empty answer
				{"t06", true, ""}, // matched through alt_gold_sql
				{"t07", false, FailExecution},
				{"t08", false, FailNoCandidate},
				{"t09", false, FailGoldMissing},
				{"t10", true, ""},
			}
			for _, x := range expect {
				r := byID[x.id]
				if r.Correct != x.correct || r.Failure != x.failure {
					t.Errorf("%s: correct %v failure %q, want %v %q (answer %q, asked %+v, detail %q)", x.id, r.Correct, r.Failure, x.correct, x.failure, r.AnswerSQL, r.Asked, r.Detail)
				}
			}
			if r := byID["t01"]; r.Questions != 0 || r.Candidates == 0 || r.Engine != "offline" {
				t.Errorf("t01 should be answered at once from a traced candidate: %+v", r)
			}
			if r := byID["t05"]; r.GoldRows != 0 || run.EmptyGolds != 1 {
				t.Errorf("t05 is the one empty gold: %+v, %d empty", r, run.EmptyGolds)
			}
			if r := byID["t07"]; r.Candidates != 0 || r.BotSeconds != 0 || r.GoldRows != -1 {
				t.Errorf("a question whose gold fails must not be asked: %+v", r)
			}
			// The same rows in another order: right unordered (t03), wrong
			// when the gold's order matters (t04) — unless the bot ordered them.
			if r := byID["t04"]; r.Correct && !strings.Contains(strings.ToUpper(r.AnswerSQL), "ORDER BY") {
				t.Errorf("t04 is ordered by capacity ascending; an unordered answer cannot match: %+v", r)
			}
			if r := byID["t09"]; r.GoldAmong != "no" {
				t.Errorf("t09: gold among candidates = %q, want no", r.GoldAmong)
			}
			if r := byID["t10"]; r.Questions == 0 || r.Asked[0].By != BySlot {
				t.Errorf("t10 should need a clarification (which column holds the depot?) that the gold's slots decide: %+v", r)
			}
			checkChoices(t, e, golds, run)
			checkArithmetic(t, run)
		})
	}
}

// checkChoices verifies every answer the simulated user gave against the
// gold, independently of how Answer decided: a slot match is the option
// whose value is the gold's; a result match keeps a reading that
// execution-matches the gold; "none of these" means no option does.
func checkChoices(t *testing.T, e *tinyEnv, golds []*Gold, run *Run) {
	t.Helper()
	byID := map[string]*Gold{}
	for _, g := range golds {
		byID[g.Question.ID] = g
	}
	for _, r := range run.Results {
		g := byID[r.ID]
		for _, ch := range r.Asked {
			slots, _ := e.harness.Slots(g.Question.GoldSQL)
			gold := slots.Get(sqlshape.ParseSlotKey(ch.Key)).String()
			switch ch.By {
			case BySlot:
				if ch.Values[ch.Picked] != gold {
					t.Errorf("%s: picked %q by slot, the gold's %s is %q", r.ID, ch.Values[ch.Picked], ch.Key, gold)
				}
			case ByResult, ByNone:
				for i, v := range ch.Values {
					if v != "" && v == gold && ch.By == ByNone {
						t.Errorf("%s: said none of these though option %d (%q) is the gold's %s", r.ID, i, v, ch.Key)
					}
				}
			default:
				t.Errorf("%s: unknown decision %q", r.ID, ch.By)
			}
		}
	}
}

// checkArithmetic recounts the aggregates from the per-question results.
func checkArithmetic(t *testing.T, run *Run) {
	t.Helper()
	correct, failed, asked := 0, 0, 0
	after := make([]int, run.MaxRounds+1)
	for _, r := range run.Results {
		if r.Questions != len(r.Asked) {
			t.Errorf("%s: %d questions counted, %d answered", r.ID, r.Questions, len(r.Asked))
		}
		if r.Correct {
			correct++
			for k := r.Questions; k <= run.MaxRounds; k++ {
				after[k]++
			}
		} else {
			failed++
		}
		asked += r.Questions
	}
	total := 0
	for _, n := range run.Failures {
		total += n
	}
	if total != failed || run.Correct != correct {
		t.Errorf("failures %v sum to %d, correct %d; recount %d wrong, %d right", run.Failures, total, run.Correct, failed, correct)
	}
	for k, n := range after {
		if want := float64(n) / float64(len(run.Results)); run.AccuracyAfter[k] != want {
			t.Errorf("accuracy after %d = %v, recount %v", k, run.AccuracyAfter[k], want)
		}
	}
	if run.AccuracyAfter[run.MaxRounds] != run.Accuracy {
		t.Errorf("accuracy after %d rounds %v differs from the final %v", run.MaxRounds, run.AccuracyAfter[run.MaxRounds], run.Accuracy)
	}
	if want := float64(asked) / float64(len(run.Results)); run.MeanQuestions != want {
		t.Errorf("mean questions %v, recount %v", run.MeanQuestions, want)
	}
}

// A wrong pick through the real manager: a manager that never asks (Tau
// tiny) answers with its likeliest reading, and the gold is another of its
// own first-round readings, chosen from what the engine proposes today.
func TestEvalRunWrongPick(t *testing.T) {
	e := newTiny(t, testwh.Targets()[0])
	ctx := context.Background()
	const question = "which truck of eastport has the biggest capacity"
	m := e.manager(t, dialog.Config{Tau: 1e-9})
	who := dialog.Who{Platform: "probe", Workspace: "tiny", User: "probe"}
	replies, err := m.Handle(ctx, dialog.Event{Kind: dialog.EventMessage, Conversation: "probe", Who: who, Text: question})
	if err != nil {
		t.Fatal(err)
	}
	var answer *dialog.Answer
	for _, r := range replies {
		if r.Answer != nil {
			answer = r.Answer
		}
	}
	tr, err := m.Trace(ctx, who, "probe")
	if answer == nil || err != nil {
		t.Fatalf("the probe should be answered at once: %v %v", replies, err)
	}
	gold := ""
	for _, sql := range tr.SQL {
		if r, err := e.db.Query(ctx, sql, warehouse.Limits{}); err == nil && !Match(r, answer.Result, false) {
			gold = sql
			break
		}
	}
	if gold == "" {
		t.Fatalf("the engine gave no reading of %q that differs from its answer; pick another question: %q", question, tr.SQL)
	}
	g := e.gold(t, Question{ID: "w1", Question: question, GoldSQL: gold})
	run, err := e.harness.Run(ctx, e.manager(t, dialog.Config{Tau: 1e-9}), []*Gold{g}, RunConfig{Dataset: "tiny", MaxRounds: 4})
	if err != nil {
		t.Fatal(err)
	}
	r := run.Results[0]
	if r.Correct || r.Failure != FailWrongPick || r.GoldAmong != "yes" || r.Questions != 0 {
		t.Fatalf("want a wrong pick without asking, got %+v", r)
	}
}

// script is a fake dialog's behaviour for one question.
type script struct {
	first   []dialog.Reply // replies to the question
	after   []dialog.Reply // replies to every answer
	err     error
	trace   *dialog.Trace
	handled int
	events  []dialog.Event
}

func (s *script) dialog() *fakeDialog {
	return &fakeDialog{
		handle: func(_ context.Context, ev dialog.Event) ([]dialog.Reply, error) {
			s.handled++
			s.events = append(s.events, ev)
			if s.err != nil {
				return nil, s.err
			}
			if ev.Kind == dialog.EventMessage {
				return s.first, nil
			}
			return s.after, nil
		},
		trace: func(context.Context, dialog.Who, string) (*dialog.Trace, error) {
			if s.trace == nil {
				return nil, errors.New("I can't find that conversation any more")
			}
			return s.trace, nil
		},
	}
}

func answerReply(t *testing.T, e *tinyEnv, sql string) dialog.Reply {
	t.Helper()
	r := e.mustQuery(t, sql)
	return dialog.Reply{Kind: dialog.ReplyAnswer, Answer: &dialog.Answer{ID: "a1", SQL: sql, Result: r, RowCount: len(r.Rows)}}
}

func clarification(key string, opts ...rawOpt) dialog.Reply {
	c := clar(key, opts...)
	c.ID = "c1"
	return dialog.Reply{Kind: dialog.ReplyClarification, Clarification: &c}
}

// Each failure kind from scripted dialogs: the classification does not
// depend on what the engine can do today.
func TestEvalFailureKinds(t *testing.T) {
	e := newTiny(t, testwh.Targets()[0])
	const (
		gold  = "SELECT truck_name FROM truck WHERE depot_name = 'northfield'"
		wrong = "SELECT truck_name FROM truck WHERE depot_name = 'eastport'"
		other = "SELECT route_name FROM route"
	)
	notice := dialog.Reply{Kind: dialog.ReplyNotice, Text: "I couldn't match that question to the data."}
	failed := dialog.Reply{Kind: dialog.ReplyNotice, Text: "Every way I found to answer that took too long."}
	cases := []struct {
		name    string
		goldSQL string
		s       *script
		correct bool
		failure FailureKind
		asked   int
		detail  string
		among   string
	}{
		{name: "correct", goldSQL: gold, s: &script{first: []dialog.Reply{answerReply(t, e, gold)}, trace: &dialog.Trace{Candidates: 1, Interpretations: 1}}, correct: true},
		{name: "no candidate", goldSQL: gold, s: &script{first: []dialog.Reply{notice}}, failure: FailNoCandidate},
		{name: "answer failed", goldSQL: gold, s: &script{first: []dialog.Reply{failed}, trace: &dialog.Trace{Candidates: 3, Interpretations: 2}}, failure: FailExecution, detail: "answer failed"},
		{name: "none of these, then no reading left", goldSQL: gold,
			s:       &script{first: []dialog.Reply{clarification("distinct", opt("distinct", other))}, after: []dialog.Reply{notice}, trace: &dialog.Trace{Candidates: 2, Interpretations: 2}},
			failure: FailNoCandidate, asked: 1, detail: "no other reading after"},
		{name: "wrong pick", goldSQL: gold, s: &script{first: []dialog.Reply{answerReply(t, e, wrong)}, trace: &dialog.Trace{Candidates: 2, Interpretations: 2, SQL: []string{wrong, gold}}}, failure: FailWrongPick, among: "yes"},
		{name: "gold not among candidates", goldSQL: gold, s: &script{first: []dialog.Reply{answerReply(t, e, wrong)}, trace: &dialog.Trace{Candidates: 2, Interpretations: 2, SQL: []string{wrong, other, "SELECT broken FROM truck"}}}, failure: FailGoldMissing, among: "no"},
		{name: "gold fails", goldSQL: "SELECT nope FROM truck", s: &script{}, failure: FailExecution, detail: "gold failed"},
		{name: "bot error", goldSQL: gold, s: &script{err: errors.New("disk full")}, failure: FailExecution, detail: "bot error: disk full"},
		{name: "asks forever", goldSQL: gold,
			s:       &script{first: []dialog.Reply{clarification("output", opt("truck.truck_name", gold))}, after: []dialog.Reply{clarification("output", opt("truck.truck_name", gold))}, trace: &dialog.Trace{Candidates: 2, Interpretations: 2}},
			failure: FailNoCandidate, asked: 2 + extraTurns, detail: "still asking"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := e.harness.PrepareGold(context.Background(), "test", Question{ID: "k-" + strings.ReplaceAll(tc.name, " ", "-"), Question: "which trucks are kept in northfield", GoldSQL: tc.goldSQL})
			run, err := e.harness.Run(context.Background(), tc.s.dialog(), []*Gold{g}, RunConfig{Dataset: "fake", MaxRounds: 2})
			if err != nil {
				t.Fatal(err)
			}
			r := run.Results[0]
			if r.Correct != tc.correct || r.Failure != tc.failure || r.Questions != tc.asked || r.GoldAmong != tc.among {
				t.Fatalf("correct %v failure %q asked %d among %q; want %v %q %d %q (%+v)", r.Correct, r.Failure, r.Questions, r.GoldAmong, tc.correct, tc.failure, tc.asked, tc.among, r)
			}
			if !strings.HasPrefix(r.Detail, tc.detail) {
				t.Fatalf("detail %q, want prefix %q", r.Detail, tc.detail)
			}
			if tc.goldSQL != gold && tc.s.handled != 0 {
				t.Fatalf("a question whose gold fails was put to the dialog")
			}
			for _, ev := range tc.s.events {
				if strings.Contains(ev.Text, "SELECT") {
					t.Fatalf("the simulated user typed SQL: %+v", ev)
				}
			}
		})
	}
	t.Run("none of these is typed as free text", func(t *testing.T) {
		s := &script{first: []dialog.Reply{clarification("distinct", opt("distinct", other))}, after: []dialog.Reply{notice}}
		g := e.gold(t, Question{ID: "none-text", GoldSQL: gold})
		if _, err := e.harness.Run(context.Background(), s.dialog(), []*Gold{g}, RunConfig{Dataset: "fake"}); err != nil {
			t.Fatal(err)
		}
		if ev := s.events[1]; ev.Kind != dialog.EventOther || ev.Text != NoneOfThese || ev.Target != "c1" {
			t.Fatalf("answer event %+v", ev)
		}
	})
	t.Run("the gold's meaning is typed when no option has it", func(t *testing.T) {
		s := &script{first: []dialog.Reply{clarification("filteron:northfield", opt("route.passes =", other))}, after: []dialog.Reply{notice}}
		g := e.gold(t, Question{ID: "typed-text", GoldSQL: gold})
		run, err := e.harness.Run(context.Background(), s.dialog(), []*Gold{g}, RunConfig{Dataset: "fake"})
		if err != nil {
			t.Fatal(err)
		}
		if ev := s.events[1]; ev.Kind != dialog.EventOther || ev.Text != "truck depot name" || ev.Target != "c1" {
			t.Fatalf("answer event %+v", ev)
		}
		// The dialog declined the words (a notice, no answer): the user
		// answers the still open question with its options instead.
		if a := run.Results[0].Asked; len(a) != 2 || a[0].By != ByTyped || a[0].Typed != "truck depot name" || a[1].By != ByNone {
			t.Fatalf("asked %+v", a)
		}
		if ev := s.events[2]; ev.Kind != dialog.EventOther || ev.Text != NoneOfThese {
			t.Fatalf("second answer event %+v", ev)
		}
		if run.AnsweredBy[ByTyped] != 1 {
			t.Fatalf("answered by %v", run.AnsweredBy)
		}
	})
}

// Who asks: without carrying, every question has a user of its own; with
// it, questions without a user share one and named users keep theirs.
func TestEvalRunUsers(t *testing.T) {
	e := newTiny(t, testwh.Targets()[0])
	qs := []Question{{ID: "a", GoldSQL: "SELECT 1"}, {ID: "b", GoldSQL: "SELECT 1"}, {ID: "c", User: "ana", GoldSQL: "SELECT 1"}, {ID: "d", User: "ana", GoldSQL: "SELECT 1"}}
	var golds []*Gold
	for _, q := range qs {
		golds = append(golds, e.gold(t, q))
	}
	cases := []struct {
		carry bool
		want  []string
	}{
		{false, []string{"q:a", "q:b", "ana/q:c", "ana/q:d"}},
		{true, []string{sharedUser, sharedUser, "ana", "ana"}},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("carry=%v", tc.carry), func(t *testing.T) {
			var users, convs []string
			d := &fakeDialog{handle: func(_ context.Context, ev dialog.Event) ([]dialog.Reply, error) {
				if ev.Who.Platform != "eval" || ev.Who.Workspace != "ds" {
					t.Errorf("who %+v", ev.Who)
				}
				users, convs = append(users, ev.Who.User), append(convs, ev.Conversation)
				return []dialog.Reply{{Kind: dialog.ReplyNotice}}, nil
			}}
			if _, err := e.harness.Run(context.Background(), d, golds, RunConfig{Dataset: "ds", Carry: tc.carry}); err != nil {
				t.Fatal(err)
			}
			if strings.Join(users, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("users %v, want %v", users, tc.want)
			}
			if strings.Join(convs, " ") != "ds/a ds/b ds/c ds/d" {
				t.Fatalf("conversations %v", convs)
			}
		})
	}
}

func TestEvalRunCancelled(t *testing.T) {
	e := newTiny(t, testwh.Targets()[0])
	ctx, cancel := context.WithCancel(context.Background())
	g := e.gold(t, Question{ID: "x", GoldSQL: "SELECT 1"})
	d := &fakeDialog{handle: func(context.Context, dialog.Event) ([]dialog.Reply, error) {
		cancel()
		return []dialog.Reply{{Kind: dialog.ReplyNotice}}, nil
	}}
	run, err := e.harness.Run(ctx, d, []*Gold{g, g, g}, RunConfig{Dataset: "ds"})
	if !errors.Is(err, context.Canceled) || run == nil || len(run.Results) != 1 {
		t.Fatalf("want the first result and context.Canceled, got %v, %v", run, err)
	}
}
