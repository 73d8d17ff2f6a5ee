package console

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/dialog"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// fakeDialog is a Dialog made of a function field.
type fakeDialog struct {
	HandleFunc func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)
}

func (f fakeDialog) Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	return f.HandleFunc(ctx, ev)
}

var _ Dialog = fakeDialog{}

// record wraps h so that every event is appended to *evs.
func record(evs *[]dialog.Event, h func(context.Context, dialog.Event) ([]dialog.Reply, error)) fakeDialog {
	return fakeDialog{HandleFunc: func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
		*evs = append(*evs, ev)
		return h(ctx, ev)
	}}
}

var learned = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// scriptedBot answers like a small manager: questions about revenue get a
// clarification, everything else an answer that used a remembered choice.
func scriptedBot(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	conv := ev.Conversation
	revenue := &dialog.Clarification{
		ID:     "c-" + conv,
		Kind:   dialog.AmbColumn,
		Prompt: "By 'revenue', which do you mean?",
		Phrase: "revenue",
		Options: []dialog.Option{
			{Label: "Net revenue after discounts", Example: "e.g. 1,204.50"},
			{Label: "Gross revenue", Example: "e.g. 1,380.00"},
			{Label: "Sum of order lines"},
		},
		Round: 1, MaxRounds: 2,
	}
	answer := func(expl string) dialog.Reply {
		return dialog.Reply{Kind: dialog.ReplyAnswer, Conversation: conv, Text: expl, Answer: &dialog.Answer{
			ID:          "a-" + conv,
			Columns:     []string{"month", "revenue"},
			Rows:        [][]string{{"2024-01", "120,400.50"}, {"2024-02", "98,001.00"}},
			RowCount:    3,
			Explanation: expl,
			SQL:         "SELECT month, SUM(net) AS revenue\nFROM orders\nGROUP BY month",
			UsedFacts:   []dialog.UsedFact{{FactID: "f-rev", Phrase: "revenue", Meaning: "net revenue after discounts", Scope: "user"}},
			Notes:       []string{"March is not complete yet."},
		}}
	}
	switch ev.Kind {
	case dialog.EventMessage:
		if ev.Text == "what can I ask?" {
			// The manager describes the data (dialog/about.go).
			return []dialog.Reply{{Kind: dialog.ReplyNotice, Conversation: conv, Text: "This warehouse holds 1 subject:\n• Orders — 3 rows: count them, add up revenue, by month."}}, nil
		}
		if strings.Contains(strings.ToLower(ev.Text), "revenue") {
			return []dialog.Reply{{Kind: dialog.ReplyClarification, Conversation: conv, Text: revenue.Prompt, Clarification: revenue}}, nil
		}
		expl := "Net revenue after discounts by month"
		if len(ev.Text) <= 80 {
			expl += " (" + ev.Text + ")"
		}
		return []dialog.Reply{answer(expl + ".")}, nil
	case dialog.EventChoose, dialog.EventOther:
		choice := ev.Text
		if ev.Kind == dialog.EventChoose {
			choice = revenue.Options[ev.Option].Label
		}
		r := answer(choice + " by month in 2024.")
		r.Resolved = &dialog.Resolved{ClarificationID: ev.Target, Prompt: revenue.Prompt, Choice: choice}
		return []dialog.Reply{r}, nil
	case dialog.EventCorrect:
		return []dialog.Reply{{Kind: dialog.ReplyNotice, Text: "Thanks! I'll remember that."}}, nil
	case dialog.EventWrong:
		return []dialog.Reply{{Kind: dialog.ReplyNotice, Text: "Sorry. Let me ask differently."}}, nil
	case dialog.EventShowSQL:
		return []dialog.Reply{{Kind: dialog.ReplySQL, SQL: "SELECT month, SUM(net) AS revenue\nFROM orders\nGROUP BY month"}}, nil
	case dialog.EventChange:
		return []dialog.Reply{{Kind: dialog.ReplyClarification, Conversation: conv, Clarification: revenue}}, nil
	case dialog.EventPrefs:
		return []dialog.Reply{{Kind: dialog.ReplyPrefs, Prefs: &dialog.Prefs{Subject: ev.Who.User, Facts: []dialog.FactView{
			{ID: "f-rev", Phrase: "revenue", Meaning: "net revenue after discounts", Kind: "column", Scope: "user", Learned: learned, Uses: 4},
			{ID: "f-cust", Phrase: "customer", Meaning: "billing account", Kind: "column", Scope: "workspace", Learned: learned, Uses: 12},
		}}}}, nil
	case dialog.EventForget, dialog.EventDeleteFact, dialog.EventPromote:
		return []dialog.Reply{{Kind: dialog.ReplyNotice, Text: "Done."}}, nil
	}
	return nil, fmt.Errorf("unexpected event kind %d", ev.Kind)
}

// MustRun runs a console over input and returns the transcript.
func MustRun(tb testing.TB, d Dialog, input string, opts Options) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	tb.Cleanup(cancel)
	var out bytes.Buffer
	if err := New(d, strings.NewReader(input), &out, opts).Run(ctx); err != nil {
		tb.Fatalf("Run: %v\ntranscript:\n%s", err, out.String())
	}
	return out.String()
}

func who() dialog.Who {
	return dialog.Who{Platform: "console", Workspace: "local", Channel: "console", User: "ana"}
}

func TestConsole(t *testing.T) {
	long := strings.Repeat("how much revenue ", 600) // over 10 kB
	long = strings.TrimSpace(strings.ReplaceAll(long, "revenue", "money"))
	cases := []struct {
		name    string
		input   string
		want    []dialog.Event // Who is checked separately
		wantOut []string
		notOut  []string
	}{
		{
			name:  "question, clarification, number, answer table",
			input: "revenue by month in 2024\n2\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue by month in 2024"},
				{Kind: dialog.EventChoose, Conversation: "console-1", Target: "c-console-1", Option: 1},
			},
			wantOut: []string{
				"  1) Net revenue after discounts (e.g. 1,204.50)\n  2) Gross revenue (e.g. 1,380.00)\n  3) Sum of order lines\n  4) Other…\n",
				"✓ By 'revenue', which do you mean? → Gross revenue\n",
				"month    revenue\n-------  ----------\n2024-01  120,400.50\n2024-02   98,001.00\n(showing 2 of 3 rows; 'more' for the next 1, 'all' for the rest, 'csv' for all of them)\n",
				"Using your earlier choice: 'revenue' = net revenue after discounts · type 'change revenue' to change it\n",
				"Note: March is not complete yet.\n",
				"Was this what you meant? 'yes' · 'no' (not what I meant) · 'sql' (show the SQL)\n",
			},
		},
		{
			name:  "text answer to a clarification",
			input: "revenue\nafter refunds\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue"},
				{Kind: dialog.EventOther, Conversation: "console-1", Target: "c-console-1", Text: "after refunds"},
			},
			wantOut: []string{"✓ By 'revenue', which do you mean? → after refunds\n"},
		},
		{
			name:  "number of Other… with text",
			input: "revenue\n4 ship date\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue"},
				{Kind: dialog.EventOther, Conversation: "console-1", Target: "c-console-1", Text: "ship date"},
			},
		},
		{
			name:  "number of Other…, then text",
			input: "revenue\n4\nship date\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue"},
				{Kind: dialog.EventOther, Conversation: "console-1", Target: "c-console-1", Text: "ship date"},
			},
			wantOut: []string{"Type your answer in your own words"},
		},
		{
			name:  "closed option number with words is free text",
			input: "revenue\n2 but only shipped\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue"},
				{Kind: dialog.EventOther, Conversation: "console-1", Target: "c-console-1", Text: "2 but only shipped"},
			},
		},
		{
			name:  "out-of-range number repeats the question",
			input: "revenue\n9\n0\n99999999999999999999\n1.\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue"},
				{Kind: dialog.EventChoose, Conversation: "console-1", Target: "c-console-1", Option: 0},
			},
			wantOut: []string{
				"> 9\nThere's no option 9. Type a number from 1 to 4, or 4 followed by your own words.\nBy 'revenue', which do you mean?\n  1) Net",
				"There's no option 0.",
				"There's no option 99999999999999999999.",
			},
		},
		{
			name:  "skip is sent as the answer: the dialog assumes the likeliest",
			input: "revenue\nskip\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue"},
				{Kind: dialog.EventOther, Conversation: "console-1", Target: "c-console-1", Text: "skip"},
			},
		},
		{
			name:  "cancel drops the question; next line is a new question",
			input: "revenue\ncancel\nand by region\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue"},
				{Kind: dialog.EventMessage, Conversation: "console-2", Text: "and by region"},
			},
			wantOut: []string{"OK, I've dropped that question."},
		},
		{
			name:  "follow-ups keep the conversation, a new question starts one",
			input: "orders by month\nonly 2024\nWhat about refunds\n+ by region\ntop customers\nalso by year\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "orders by month"},
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "only 2024"},
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "What about refunds"},
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "by region"},
				{Kind: dialog.EventMessage, Conversation: "console-2", Text: "top customers"},
				{Kind: dialog.EventMessage, Conversation: "console-2", Text: "also by year"},
			},
		},
		{
			name:  "a follow-up with nothing to follow is a new question",
			input: "and orders by month\n",
			want:  []dialog.Event{{Kind: dialog.EventMessage, Conversation: "console-1", Text: "and orders by month"}},
		},
		{
			name:  "yes, no, sql, change",
			input: "orders\nYes!\ncorrect\nno\nnot what I meant\nsql\nchange 'Revenue'\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "orders"},
				{Kind: dialog.EventCorrect, Conversation: "console-1", Target: "a-console-1"},
				{Kind: dialog.EventCorrect, Conversation: "console-1", Target: "a-console-1"},
				{Kind: dialog.EventWrong, Conversation: "console-1", Target: "a-console-1"},
				{Kind: dialog.EventWrong, Conversation: "console-1", Target: "a-console-1"},
				{Kind: dialog.EventShowSQL, Conversation: "console-1", Target: "a-console-1"},
				{Kind: dialog.EventChange, Conversation: "console-1", Target: "a-console-1", FactID: "f-rev"},
			},
			wantOut: []string{
				"Thanks! I'll remember that.\n",
				"> sql\n    SELECT month, SUM(net) AS revenue\n    FROM orders\n    GROUP BY month\n",
			},
		},
		{
			name:  "yes, no and sql in other words",
			input: "orders\nyep\nnope\nshow me the SQL\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "orders"},
				{Kind: dialog.EventCorrect, Conversation: "console-1", Target: "a-console-1"},
				{Kind: dialog.EventWrong, Conversation: "console-1", Target: "a-console-1"},
				{Kind: dialog.EventShowSQL, Conversation: "console-1", Target: "a-console-1"},
			},
		},
		{
			// After an answer no options are on screen: "1" asks no example.
			name:    "a number after an answer means nothing",
			input:   "orders\n1\n",
			want:    []dialog.Event{{Kind: dialog.EventMessage, Conversation: "console-1", Text: "orders"}},
			wantOut: []string{"There are no options to pick from now. About the answer: 'yes', 'no' or 'sql'; or type a new question.\n"},
			notOut:  []string{"Asking: orders by month"},
		},
		{
			name:    "a number picks an example while the examples are on screen",
			input:   "1\n",
			want:    []dialog.Event{{Kind: dialog.EventMessage, Conversation: "console-1", Text: "orders by month"}},
			wantOut: []string{"Asking: orders by month\n"},
		},
		{
			name:    "change with an unknown phrase",
			input:   "orders\nchange colour\n",
			want:    []dialog.Event{{Kind: dialog.EventMessage, Conversation: "console-1", Text: "orders"}},
			wantOut: []string{"This answer used no earlier choice about 'colour'. You can type 'change revenue'.\n"},
		},
		{
			name:    "feedback before any answer",
			input:   "yes\nsql\nchange revenue\nskip\n",
			wantOut: []string{"There's no answer to refer to yet.", "There's no answer whose choices you could change yet.", "There's no open question to skip."},
		},
		{
			name:  "prefs, delete, forget",
			input: "my preferences\ndelete 2\ndelete 9\ndelete x\nforget \"revenue\"\nforget\n",
			want: []dialog.Event{
				{Kind: dialog.EventPrefs, Conversation: "console-0"},
				{Kind: dialog.EventDeleteFact, Conversation: "console-0", FactID: "f-cust"},
				{Kind: dialog.EventForget, Conversation: "console-0", Text: "revenue"},
			},
			wantOut: []string{
				"Your preferences (2):\n#  phrase    meaning                      scope      learned     uses\n-  --------  ---------------------------  ---------  ----------  ----\n1  revenue   net revenue after discounts  user       2025-03-14     4\n2  customer  billing account              workspace  2025-03-14    12\n",
				"There's no preference 9 in the last list; pick 1 to 2.\n",
				"Type 'prefs' to list your preferences, then 'delete <number>'.\n",
				"Type 'forget' and the phrase",
			},
		},
		{
			name:    "admin without the console is no question",
			input:   "admin\n",
			wantOut: []string{"The admin console is not running in this session.\n"},
		},
		{
			name:  "delete with words is a question, not the prefs command",
			input: "delete all cancelled orders\n",
			want:  []dialog.Event{{Kind: dialog.EventMessage, Conversation: "console-1", Text: "delete all cancelled orders"}},
		},
		{
			name:    "delete before a listing",
			input:   "delete 1\n",
			wantOut: []string{"Type 'prefs' first to see the numbered list"},
		},
		{
			name:  "commands while a clarification is open keep it open",
			input: "revenue\nprefs\nhelp\n3\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "revenue"},
				{Kind: dialog.EventPrefs, Conversation: "console-1"},
				{Kind: dialog.EventChoose, Conversation: "console-1", Target: "c-console-1", Option: 2},
			},
			wantOut: []string{"(Still waiting for your answer to: By 'revenue', which do you mean? — a number, your own words, or 'skip'.)\n"},
		},
		{
			name:  "garbage never crashes",
			input: "\n   \n🎉🎉\n\x1b[31mred\x07\t?\x00\n\xff\xfe bytes\n" + long + "\r\n",
			want: []dialog.Event{
				{Kind: dialog.EventMessage, Conversation: "console-1", Text: "🎉🎉"},
				{Kind: dialog.EventMessage, Conversation: "console-2", Text: "[31mred ?"},
				{Kind: dialog.EventMessage, Conversation: "console-3", Text: "\uFFFD bytes"},
				{Kind: dialog.EventMessage, Conversation: "console-4", Text: long},
			},
			wantOut: []string{"> 🎉🎉\n", "> [31mred ?\n", "… [" + fmt.Sprint(len(long)) + " characters]\n"},
			notOut:  []string{"\x1b", "\x07", long},
		},
		{
			name:  "example number asks the example",
			input: "1\n",
			want:  []dialog.Event{{Kind: dialog.EventMessage, Conversation: "console-1", Text: "orders by month"}},
		},
		{
			name:    "quit ends the session",
			input:   "orders\nquit\nmore orders\n",
			want:    []dialog.Event{{Kind: dialog.EventMessage, Conversation: "console-1", Text: "orders"}},
			wantOut: []string{"> quit\nBye.\n"},
			notOut:  []string{"more orders"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var evs []dialog.Event
			out := MustRun(t, record(&evs, scriptedBot), tc.input, Options{User: "ana", Examples: []string{"orders by month"}})
			for i := range evs {
				if evs[i].Who != who() {
					t.Errorf("event %d: Who = %+v, want %+v", i, evs[i].Who, who())
				}
				evs[i].Who = dialog.Who{}
			}
			if !reflect.DeepEqual(evs, tc.want) {
				t.Errorf("events:\n got %+v\nwant %+v", evs, tc.want)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("transcript lacks %q", w)
				}
			}
			for _, w := range tc.notOut {
				if strings.Contains(out, w) {
					t.Errorf("transcript has %q", w)
				}
			}
			if t.Failed() {
				t.Logf("transcript:\n%s", out)
			}
		})
	}
}

func TestEchoOnlyWhenPiped(t *testing.T) {
	cases := []struct {
		interactive bool
		want        string
	}{
		{false, "You are ana. Type a question, or 'help'.\n\n> orders\nNet revenue"},
		{true, "You are ana. Type a question, or 'help'.\n\n> Net revenue"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint("interactive=", tc.interactive), func(t *testing.T) {
			var evs []dialog.Event
			out := MustRun(t, record(&evs, scriptedBot), "orders\n\n", Options{User: "ana", Interactive: tc.interactive})
			if !strings.Contains(out, tc.want) {
				t.Errorf("transcript lacks %q:\n%s", tc.want, out)
			}
		})
	}
}

func TestHandleFailureApologisesAndContinues(t *testing.T) {
	cases := []struct {
		name    string
		fail    func() ([]dialog.Reply, error)
		wantOut string
		wantLog string
	}{
		{"error", func() ([]dialog.Reply, error) { return nil, errors.New("warehouse: connection refused") }, "Sorry, something went wrong on my side. (reference ", "connection refused"},
		{"panic", func() ([]dialog.Reply, error) { panic("nil map") }, "Sorry, something went wrong on my side. (reference ", "nil map"},
		{"timeout", func() ([]dialog.Reply, error) { return nil, fmt.Errorf("run query: %w", context.DeadlineExceeded) }, "That took too long, so I stopped.", "deadline exceeded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var evs []dialog.Event
			d := record(&evs, func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
				if ev.Text == "boom" {
					return tc.fail()
				}
				return scriptedBot(ctx, ev)
			})
			var logs bytes.Buffer
			out := MustRun(t, d, "boom\norders\n", Options{User: "ana", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if !strings.Contains(out, "> boom\n"+tc.wantOut) {
				t.Errorf("transcript lacks %q after the failing line:\n%s", tc.wantOut, out)
			}
			if strings.Contains(out, tc.wantLog) {
				t.Errorf("transcript shows internal details %q", tc.wantLog)
			}
			if !strings.Contains(logs.String(), tc.wantLog) {
				t.Errorf("log lacks %q:\n%s", tc.wantLog, logs.String())
			}
			if len(evs) != 2 || !strings.Contains(out, "(showing 2 of 3 rows; ") {
				t.Errorf("session did not continue (%d events):\n%s", len(evs), out)
			}
		})
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	cases := []struct {
		name string
		// block is called for the second event; it may wait for ctx.
		block bool
	}{
		{"waiting for input", false},
		{"waiting for the dialog", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			t.Cleanup(func() { pw.Close() })
			got := make(chan dialog.Event, 2)
			d := fakeDialog{HandleFunc: func(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
				got <- ev
				if tc.block {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return scriptedBot(ctx, ev)
			}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out bytes.Buffer
			done := make(chan error, 1)
			go func() { done <- New(d, pr, &out, Options{User: "ana"}).Run(ctx) }()

			if _, err := io.WriteString(pw, "orders\n"); err != nil {
				t.Fatal(err)
			}
			select {
			case <-got:
			case <-time.After(5 * time.Second):
				t.Fatal("the dialog never got the line")
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run = %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return after cancel")
			}
			if strings.Contains(out.String(), "Sorry") || strings.Contains(out.String(), "interrupted") {
				t.Errorf("apologised for a cancellation:\n%s", out.String())
			}
		})
	}
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

type failReader struct{ err error }

func (r failReader) Read([]byte) (int, error) { return 0, r.err }

func TestIOErrors(t *testing.T) {
	errDisk := errors.New("disk on fire")
	cases := []struct {
		name string
		in   io.Reader
		out  io.Writer
	}{
		{"write", strings.NewReader("orders\n"), failWriter{errDisk}},
		{"read", failReader{errDisk}, io.Discard},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var evs []dialog.Event
			err := New(record(&evs, scriptedBot), tc.in, tc.out, Options{}).Run(context.Background())
			if !errors.Is(err, errDisk) {
				t.Errorf("Run = %v, want %v", err, errDisk)
			}
		})
	}
}

func TestVeryLongLineIsCut(t *testing.T) {
	var evs []dialog.Event
	line := strings.Repeat("x", maxLineBytes+1000)
	MustRun(t, record(&evs, scriptedBot), line+"\norders\n", Options{})
	if len(evs) != 2 || len(evs[0].Text) != maxLineBytes || evs[1].Text != "orders" {
		t.Errorf("got %d events, first text %d bytes", len(evs), len(evs[0].Text))
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	cases := []struct {
		name string
		f    *os.File
	}{{"regular file", f}, {"pipe", r}, {"nil", nil}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if IsTerminal(tc.f) {
				t.Errorf("IsTerminal = true")
			}
		})
	}
}

func TestParseNumber(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		rest string
		ok   bool
	}{
		{"2", 2, "", true},
		{" 2. ", 2, "", true},
		{"2)", 2, "", true},
		{"#3", 3, "", true},
		{"4 ship date", 4, "ship date", true},
		{"4: ship date", 4, "ship date", true},
		{"4 - ship date", 4, "ship date", true},
		{"2.5", 0, "", false},
		{"3rd", 0, "", false},
		{"2024-01", 0, "", false},
		{"ship", 0, "", false},
		{"99999999999999999999", -1, "", true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			n, rest, _, ok := parseNumber(tc.in)
			if n != tc.n || rest != tc.rest || ok != tc.ok {
				t.Errorf("parseNumber(%q) = %d, %q, %v; want %d, %q, %v", tc.in, n, rest, ok, tc.n, tc.rest, tc.ok)
			}
		})
	}
}

// TestGoldenSession runs one full piped session; -update rewrites the golden file.
func TestGoldenSession(t *testing.T) {
	input := strings.Join([]string{
		"revenue by month in 2024",
		"7",
		"1",
		"sql",
		"only 2024",
		"yes",
		"change revenue",
		"4 gross minus refunds",
		"my preferences",
		"delete 2",
		"revenue per region",
		"cancel",
		"help",
		"quit",
	}, "\n") + "\n"
	var evs []dialog.Event
	out := MustRun(t, record(&evs, scriptedBot), input, Options{
		User:     "ana",
		Banner:   "Clarify demo — embedded warehouse, offline engine",
		Examples: []string{"revenue by month in 2024", "top 5 customers by orders"},
	})
	golden := filepath.Join("testdata", "session.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if out != string(want) {
		t.Errorf("transcript differs from %s (run with -update to accept):\n--- got\n%s\n--- want\n%s", golden, out, want)
	}
}
