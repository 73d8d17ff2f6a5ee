package slack

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/adapters/slack/slackfake"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/dialog/sqlshape"
)

var update = flag.Bool("update", false, "rewrite the golden Block Kit files in testdata/golden")

var conv = ref{Channel: "C0SALES", Thread: "1767100000.000100"}

var revenueQuestion = &dialog.Clarification{
	ID: "q1abcdef", Kind: dialog.AmbColumn, Key: sqlshape.Key(sqlshape.SlotMeasure), Prompt: "By 'revenue', which do you mean?", Phrase: "revenue",
	Options: []dialog.Option{
		{Label: "Net revenue after discounts (excludes shipping)", Example: "e.g. 5.27"},
		{Label: "Gross revenue: order lines plus shipping, before discounts", Example: "e.g. 13.38"},
		{Label: "Line revenue: quantity times unit price, before order discounts and shipping", Example: "e.g. 5.27"},
		{Label: dialog.OtherLabel},
	},
}

var smallAnswer = &dialog.Answer{
	ID:       "a1abcdef",
	Columns:  []string{"region", "revenue"},
	Rows:     [][]string{{"Midwest", "1,204,331.50"}, {"South <&> East", "998,120.00"}, {"West", "NULL"}},
	RowCount: 3,
	Result: &warehouse.Result{
		Columns: []warehouse.ResultColumn{{Name: "region", Type: "VARCHAR"}, {Name: "revenue", Type: "DECIMAL"}},
		Rows:    [][]any{{"Midwest", "1204331.50"}, {"South <&> East", "998120.00"}, {"West", nil}},
	},
	Explanation: "Net revenue after discounts of orders, by region, shipped in 2024.",
	SQL:         "SELECT region, SUM(net_amount) FROM orders GROUP BY region",
	UsedFacts:   []dialog.UsedFact{{FactID: "f1abcdefgh", Phrase: "revenue", Meaning: "net revenue after discounts", Scope: "user"}},
	Notes:       []string{"The date used is when the order left the warehouse."},
}

var learned = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

var somePrefs = &dialog.Prefs{Facts: []dialog.FactView{
	{ID: "f1abcdefgh", Phrase: "revenue", Meaning: "Net revenue after discounts", Kind: "column", Scope: "user", Owner: "slack:T0CLARIFY:U0ANA", Learned: learned, Uses: 3},
	{ID: "f2abcdefgh", Phrase: "2024", Meaning: "When the order left the warehouse", Kind: "column", Scope: "workspace", Owner: "slack:T0CLARIFY", Learned: learned, Uses: 1},
}}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n%s", name, path, got)
	}
}

// asJSON round-trips blocks to the generic JSON Slack receives.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkBlocks(t *testing.T, blocks []slack.Block, max int) {
	t.Helper()
	generic, _ := asJSON(t, blocks).([]any)
	if p := slackfake.CheckBlocks(generic, max); len(p) > 0 {
		t.Fatalf("Block Kit limits broken:\n  %s", strings.Join(p, "\n  "))
	}
}

func checkView(t *testing.T, v any) {
	t.Helper()
	generic, _ := asJSON(t, v).(map[string]any)
	if p := slackfake.CheckView(generic); len(p) > 0 {
		t.Fatalf("Block Kit limits broken:\n  %s", strings.Join(p, "\n  "))
	}
}

// TestBlockKitGolden pins the exact JSON sent for each kind of message and view.
func TestBlockKitGolden(t *testing.T) {
	t.Parallel()
	admin := *somePrefs
	admin.CanAdmin = true
	admin.Subject = "everyone"
	cases := []struct {
		name   string
		blocks []slack.Block
		view   any
	}{
		{name: "clarification", blocks: clarificationMessage(revenueQuestion, conv, "").Blocks},
		{name: "resolved", blocks: resolvedMessage(&dialog.Resolved{ClarificationID: "q1abcdef", Prompt: revenueQuestion.Prompt, Choice: "Net revenue after discounts (excludes shipping)"}, "U0ANA").Blocks},
		{name: "answer", blocks: answerMessage(smallAnswer, conv, "").Blocks},
		{name: "sql", blocks: sqlMessage(smallAnswer.SQL).Blocks},
		{name: "prefs", blocks: prefsMessage(somePrefs, slackfake.TeamID, "", ref{Channel: "C0SALES"}).Blocks},
		{name: "prefs_admin", blocks: prefsMessage(&admin, slackfake.TeamID, "", ref{Channel: "C0SALES"}).Blocks},
		{name: "home", view: homeView(somePrefs, nil, slackfake.TeamID, "")},
		{name: "home_admin", view: homeView(somePrefs, &admin, slackfake.TeamID, "Deleted: 'revenue' = net revenue.")},
		{name: "modal_other", view: otherModal(revenueQuestion.Prompt, ref{Channel: "C0SALES", Thread: "1767100000.000100", ID: "q1abcdef", MessageTS: "1767100000.000900"})},
		{name: "modal_edit", view: editModal("*revenue* → Net revenue after discounts", ref{Fact: "f1abcdefgh", Home: true})},
		{name: "modal_promote", view: promoteModal("*revenue* → Net revenue after discounts", "C0SALES", ref{Fact: "f1abcdefgh", Home: true})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.view != nil {
				checkView(t, tc.view)
				golden(t, tc.name, tc.view)
				return
			}
			checkBlocks(t, tc.blocks, maxMessageBlocks)
			golden(t, tc.name, tc.blocks)
		})
	}
}

func TestClarificationButtonsCarryTheConversation(t *testing.T) {
	t.Parallel()
	m := clarificationMessage(revenueQuestion, conv, "text")
	actions := m.Blocks[1].(*slack.ActionBlock)
	if n := len(actions.Elements.ElementSet); n != 4 {
		t.Fatalf("want 3 options + Other…, got %d buttons", n)
	}
	for i, el := range actions.Elements.ElementSet {
		b := el.(*slack.ButtonBlockElement)
		r, err := decodeRef(b.Value)
		if err != nil {
			t.Fatal(err)
		}
		if r.conversation() != "C0SALES:1767100000.000100" || r.ID != "q1abcdef" {
			t.Fatalf("button %d value %s", i, b.Value)
		}
		if i < 3 && (r.Option != i || b.ActionID != indexed(actChoose, i)) {
			t.Fatalf("button %d: option %d action %s", i, r.Option, b.ActionID)
		}
		if utf16Len(b.Text.Text) > maxButtonText {
			t.Fatalf("button text %q too long", b.Text.Text)
		}
	}
	last := actions.Elements.ElementSet[3].(*slack.ButtonBlockElement)
	if last.Text.Text != dialog.OtherLabel || last.ActionID != actOther {
		t.Fatalf("last button %+v", last)
	}
	// The 76-character label is cut on the button, shown whole below.
	third := actions.Elements.ElementSet[2].(*slack.ButtonBlockElement).Text.Text
	if !strings.HasSuffix(third, "…") || !strings.Contains(m.Blocks[2].(*slack.ContextBlock).ContextElements.Elements[2].(*slack.TextBlockObject).Text, "before order discounts and shipping") {
		t.Fatalf("long label: button %q", third)
	}
}

// bigResult builds an answer of rows × cols with a value function.
func bigResult(rows, cols int, colName func(int) string, val func(r, c int) string) *dialog.Answer {
	a := &dialog.Answer{ID: "big", RowCount: rows, Explanation: "A big result.", Result: &warehouse.Result{}}
	for c := range cols {
		a.Columns = append(a.Columns, colName(c))
		a.Result.Columns = append(a.Result.Columns, warehouse.ResultColumn{Name: colName(c), Type: "VARCHAR"})
	}
	for r := range rows {
		row := make([]string, cols)
		typed := make([]any, cols)
		for c := range cols {
			row[c] = val(r, c)
			typed[c] = row[c]
		}
		a.Rows = append(a.Rows, row)
		a.Result.Rows = append(a.Result.Rows, typed)
	}
	return a
}

// TestLimitsForHugeResults renders results that break every naive
// rendering and checks each block against Slack's limits.
func TestLimitsForHugeResults(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Lorem ipsum dolor sit amet, & <consectetur> adipiscing elit. ", 90)[:5000]
	zalgo := "Z" + strings.Repeat("\u0301\u0302\u0303", 2000)
	cases := []struct {
		name     string
		answer   *dialog.Answer
		wantCSV  bool
		wantNote string
	}{
		{"200 columns", bigResult(20, 200, func(c int) string { return fmt.Sprintf("column_%03d", c) }, func(r, c int) string { return fmt.Sprint(r * c) }), true, "columns"},
		{"10,000 rows", bigResult(10000, 3, func(c int) string { return []string{"id", "name", "amount"}[c] }, func(r, c int) string { return fmt.Sprintf("v%d-%d", r, c) }), true, "Showing"},
		{"5,000-character cell", bigResult(3, 2, func(c int) string { return []string{"note", "n"}[c] }, func(r, c int) string {
			if c == 0 {
				return long
			}
			return "1"
		}), true, "cut"},
		{"emoji names", bigResult(5, 4, func(c int) string {
			return []string{"👩‍💻 owner", "🇫🇷 pays", "naïve café ☕", "family 👨‍👩‍👧‍👦"}[c]
		}, func(r, c int) string {
			return []string{"Zoë 🚀", "🇫🇷🇩🇪🇮🇹", "e\u0301clair", "👨‍👩‍👧‍👦👨‍👩‍👧‍👦"}[c]
		}), false, ""},
		{"combining marks", bigResult(2, 1, func(int) string { return "z" }, func(int, int) string { return zalgo }), true, "cut"},
		{"backticks", bigResult(2, 1, func(int) string { return "code" }, func(int, int) string { return "```x```" }), false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := answerMessage(tc.answer, conv, strings.Repeat("x", 50000))
			checkBlocks(t, m.Blocks, maxMessageBlocks)
			if utf16Len(m.Text) > maxFallbackText {
				t.Fatalf("fallback text %d long", utf16Len(m.Text))
			}
			all := string(mustJSON(t, m.Blocks))
			if !utf8.ValidString(all) {
				t.Fatal("invalid UTF-8")
			}
			tables := 0
			for _, b := range m.Blocks {
				if s, ok := b.(*slack.SectionBlock); ok && strings.HasPrefix(s.BlockID, "clarify.table") {
					tables++
					txt := s.Text.Text
					if !strings.HasPrefix(txt, fence) || !strings.HasSuffix(txt, fence) || strings.Count(txt, fence) != 2 {
						t.Fatalf("unbalanced code block: %.200q", txt)
					}
				}
			}
			if tables == 0 || tables > maxTableSection {
				t.Fatalf("%d table sections", tables)
			}
			if (m.CSV != nil) != tc.wantCSV {
				t.Fatalf("CSV attached: %v, want %v", m.CSV != nil, tc.wantCSV)
			}
			if tc.wantNote != "" && !strings.Contains(all, tc.wantNote) {
				t.Fatalf("no note %q in %s", tc.wantNote, all)
			}
			if m.CSV != nil {
				recs, err := csv.NewReader(bytes.NewReader(m.CSV)).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) != len(tc.answer.Result.Rows)+1 || len(recs[0]) != len(tc.answer.Columns) {
					t.Fatalf("CSV has %d records of %d fields", len(recs), len(recs[0]))
				}
				if recs[1][0] != fmt.Sprint(tc.answer.Result.Rows[0][0]) {
					t.Fatalf("CSV value %q, want the whole %q", recs[1][0], tc.answer.Result.Rows[0][0])
				}
			}
		})
	}
}

func TestLimitsForLongQuestionsAndLists(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("revenue 🚀 <b> & ", 400)
	q := &dialog.Clarification{ID: "q", Prompt: long, Options: []dialog.Option{
		{Label: long, Example: long}, {Label: "👨‍👩‍👧‍👦" + long, Example: long}, {Label: "x", Example: ""},
	}}
	checkBlocks(t, clarificationMessage(q, conv, long).Blocks, maxMessageBlocks)
	checkBlocks(t, resolvedMessage(&dialog.Resolved{Prompt: long, Choice: long}, "U1").Blocks, maxMessageBlocks)
	checkBlocks(t, noticeMessage(long+long).Blocks, maxMessageBlocks)
	checkBlocks(t, sqlMessage(strings.Repeat("SELECT a, b, c FROM t WHERE x = '"+long+"'\n", 100)).Blocks, maxMessageBlocks)

	a := *smallAnswer
	a.UsedFacts = nil
	for i := range 30 {
		a.UsedFacts = append(a.UsedFacts, dialog.UsedFact{FactID: fmt.Sprintf("f%d", i), Phrase: long, Meaning: long, Scope: "channel"})
		a.Notes = append(a.Notes, long)
	}
	a.Explanation = long + long
	checkBlocks(t, answerMessage(&a, conv, "").Blocks, maxMessageBlocks)

	p := &dialog.Prefs{CanAdmin: true, Subject: "U0ANA"}
	for i := range 300 {
		p.Facts = append(p.Facts, dialog.FactView{ID: fmt.Sprintf("f%09d", i), Phrase: long, Meaning: long, Scope: "user", Owner: "slack:T0CLARIFY:U0ANA", Learned: learned, Uses: i})
	}
	pm := prefsMessage(p, slackfake.TeamID, "", ref{Channel: "C0SALES"})
	checkBlocks(t, pm.Blocks, maxMessageBlocks)
	if !strings.Contains(string(mustJSON(t, pm.Blocks)), "more") {
		t.Fatal("a cut list must say that there are more")
	}
	checkView(t, homeView(p, p, slackfake.TeamID, long))
	checkView(t, otherModal(long, ref{Channel: "C", Thread: "1.2", ID: "q", MessageTS: "1.3", ResponseURL: strings.Repeat("u", 500)}))
	checkView(t, editModal(long+long, ref{Fact: "f"}))
	checkView(t, promoteModal(long+long, "C0SALES", ref{Fact: "f"}))
}

func TestClip(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"a longer sentence", 8, "a longe…"},
		{"flags 🇫🇷🇩🇪", 9, "flags…"},
		{"flags 🇫🇷🇩🇪", 11, "flags 🇫🇷…"},
		{"e\u0301e\u0301e\u0301", 4, "e\u0301…"},
		{"👨‍👩‍👧‍👦 family", 6, "…"},
		{"ok 👍🏽 fine", 6, "ok…"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got := clip(tc.in, tc.n)
			if got != tc.want {
				t.Fatalf("clip(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
			if utf16Len(got) > tc.n {
				t.Fatalf("%q is %d units, over %d", got, utf16Len(got), tc.n)
			}
		})
	}
}

func TestEscClipNeverOverflows(t *testing.T) {
	t.Parallel()
	for _, s := range []string{strings.Repeat("&", 100), strings.Repeat("<a>", 50), "plain text", strings.Repeat("🚀&", 40)} {
		for n := 1; n < 60; n++ {
			got := escClip(s, n)
			if utf16Len(got) > n {
				t.Fatalf("escClip(%q, %d) = %q (%d units)", s, n, got, utf16Len(got))
			}
			if strings.ContainsAny(strings.NewReplacer("&amp;", "", "&lt;", "", "&gt;", "").Replace(got), "<>&") {
				t.Fatalf("unescaped: %q", got)
			}
		}
	}
}

func TestPlainText(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"<@U0CLARIFY> what was revenue in 2024?", "what was revenue in 2024?"},
		{"<@U0CLARIFY|clarify> revenue &amp; costs &lt; 5", "revenue & costs < 5"},
		{"prefs <@U0ANA|ana>", "prefs @ana"},
		{"orders in <#C0SALES|sales> <!here>", "orders in #sales @here"},
		{"see <https://example.com/a?b=1|the doc>", "see the doc"},
		{"mail <mailto:a@b.c|a@b.c>", "mail a@b.c"},
	}
	for _, tc := range cases {
		if got := plainText(tc.in, slackfake.BotUserID); got != tc.want {
			t.Errorf("plainText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestUserArgAndActionName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"<@U0ANA|ana>": "U0ANA", "@U0BEN": "U0BEN", "*": "*", "me": "", "": ""} {
		if got := userArg(in); got != want {
			t.Errorf("userArg(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"clarify.choose.2": actChoose, "clarify.other": actOther, "clarify.fact.menu.12": actFactMenu} {
		if got := actionName(in); got != want {
			t.Errorf("actionName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCSVDefusesFormulas(t *testing.T) {
	t.Parallel()
	a := &dialog.Answer{Result: &warehouse.Result{
		Columns: []warehouse.ResultColumn{{Name: "=cmd"}, {Name: "n"}, {Name: "x"}},
		Rows:    [][]any{{"=HYPERLINK(\"http://x\")", int64(-5), nil}, {"@SUM(A1)", "-12.50", 1.5}},
	}}
	recs, err := csv.NewReader(bytes.NewReader(csvFile(a))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"'=cmd", "n", "x"}, {"'=HYPERLINK(\"http://x\")", "-5", ""}, {"'@SUM(A1)", "-12.50", "1.5"}}
	if fmt.Sprint(recs) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", recs, want)
	}
}

// BenchmarkAnswerMessage measures rendering a result into blocks and CSV.
func BenchmarkAnswerMessage(b *testing.B) {
	cases := []struct {
		name string
		a    *dialog.Answer
	}{
		{"20x5", bigResult(20, 5, func(c int) string { return fmt.Sprintf("col%d", c) }, func(r, c int) string { return fmt.Sprint(r * c) })},
		{"10000x20", bigResult(10000, 20, func(c int) string { return fmt.Sprintf("col%d", c) }, func(r, c int) string { return fmt.Sprintf("value %d/%d", r, c) })},
		{"50x200", bigResult(50, 200, func(c int) string { return fmt.Sprintf("column_%03d", c) }, func(r, c int) string { return strings.Repeat("x", c%50) })},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var m message
			for b.Loop() {
				m = answerMessage(tc.a, conv, "")
			}
			raw, err := json.Marshal(m.Blocks)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(m.Blocks)), "blocks")
			b.ReportMetric(float64(len(raw)), "block-bytes")
			b.ReportMetric(float64(len(m.CSV)), "csv-bytes")
		})
	}
}
