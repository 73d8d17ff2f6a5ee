package eval

import "testing"

func TestOutcomes(t *testing.T) {
	tests := []struct {
		name string
		r    QuestionResult
		want Outcome
	}{
		{"right", QuestionResult{Correct: true, AnswerSQL: "SELECT 1", Questions: 2}, OutcomeRight},
		{"right, yet said it left a word out", QuestionResult{Correct: true, AnswerSQL: "SELECT 1", Unused: []string{"run"}}, OutcomeRight},
		{"no answer", QuestionResult{Notice: "I couldn't match that question"}, OutcomeAbstained},
		{"wrong, nothing said", QuestionResult{AnswerSQL: "SELECT 1"}, OutcomeSilentWrong},
		{"wrong, left a word out and said so", QuestionResult{AnswerSQL: "SELECT 1", Unused: []string{"active"}}, OutcomeCaveated},
		{"wrong after a question", QuestionResult{AnswerSQL: "SELECT 1", Questions: 1}, OutcomeWrongAfterAsking},
		{"wrong by a remembered choice", QuestionResult{AnswerSQL: "SELECT 1", FactsUsed: 1}, OutcomeWrongAfterAsking},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.outcome(); got != tc.want {
				t.Fatalf("%q, want %q", got, tc.want)
			}
		})
	}
	run := &Run{MaxRounds: 4}
	for _, tc := range tests {
		r := tc.r
		r.Outcome = r.outcome()
		run.Results = append(run.Results, r)
	}
	run.summarise(0)
	n := float64(len(tests))
	if run.SilentWrong != 1/n || run.Caveated != 1/n || run.Abstained != 1/n {
		t.Fatalf("silent %.3f caveated %.3f abstained %.3f", run.SilentWrong, run.Caveated, run.Abstained)
	}
	if run.CaveatedRight != 0.5 {
		t.Fatalf("caveats on %.3f of the right answers, want 0.5 (1 of 2)", run.CaveatedRight)
	}
}
