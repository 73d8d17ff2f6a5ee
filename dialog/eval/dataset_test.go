package eval

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestEvalParseQuestions(t *testing.T) {
	input := strings.Join([]string{
		`{"id": "q1", "question": "how many trucks?", "gold_sql": "SELECT COUNT(*) FROM truck", "ordered": false, "tags": ["a"]}`,
		``,
		`{"id": "q2", "question": "broken", "gold_sql": "SELECT 1"`,
		`{"id": "q3", "question": "no gold"}`,
		`{"id": "q4", "question": "bad type", "gold_sql": "SELECT 1", "ordered": "yes"}`,
		`{"id": "q1", "question": "again", "gold_sql": "SELECT 2"}`,
		`{"question": "", "gold_sql": ""}`,
		`[1, 2]`,
		`{"id": "q5", "question": "two values", "gold_sql": "SELECT 1"} {"id": "q6"}`,
		`{"id": "q7", "question": "with alternatives", "gold_sql": "SELECT 1", "alt_gold_sql": ["SELECT 1.0"], "user": "ana", "ordered": true, "evidence": "hint"}`,
	}, "\n")
	qs, probs := ParseQuestions("d/questions.jsonl", strings.NewReader(input))
	var ids []string
	for _, q := range qs {
		ids = append(ids, q.ID)
	}
	if want := []string{"q1", "q7"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("questions %v, want %v", ids, want)
	}
	if qs[0].Line != 1 || qs[1].Line != 10 {
		t.Errorf("lines %d, %d; want 1, 10", qs[0].Line, qs[1].Line)
	}
	if q := qs[1]; !q.Ordered || q.User != "ana" || !reflect.DeepEqual(q.Golds(), []string{"SELECT 1", "SELECT 1.0"}) || q.Evidence != "hint" {
		t.Errorf("q7 read as %+v", q)
	}
	want := []string{
		"d/questions.jsonl:3: broken JSON: unexpected EOF",
		"d/questions.jsonl:4: q3: missing field gold_sql",
		"d/questions.jsonl:5: broken JSON: field ordered must be bool, not string",
		"d/questions.jsonl:6: q1: duplicate id (first on line 1)",
		"d/questions.jsonl:7: missing field id, question, gold_sql",
		"d/questions.jsonl:8: broken JSON: the line must be a JSON object, not array",
		"d/questions.jsonl:9: broken JSON: more than one value on the line",
	}
	if len(probs) != len(want) {
		t.Fatalf("%d problems, want %d: %v", len(probs), len(want), probs)
	}
	for i, w := range want {
		if got := probs[i].String(); !strings.HasPrefix(got, w) {
			t.Errorf("problem %d = %q, want prefix %q", i, got, w)
		}
	}
}

func TestEvalLoad(t *testing.T) {
	write := func(t *testing.T, dir, name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const line = `{"id": "q1", "question": "how many?", "gold_sql": "SELECT 1"}` + "\n"
	cases := []struct {
		name      string
		files     map[string]string
		questions int
		schema    bool
		problems  []string
	}{
		{name: "complete", files: map[string]string{SchemaFile: "CREATE TABLE t (a int);", QuestionsFile: line}, questions: 1, schema: true},
		{name: "no schema", files: map[string]string{QuestionsFile: line}, questions: 1, problems: []string{"schema.sql: file missing"}},
		{name: "no questions", files: map[string]string{SchemaFile: "CREATE TABLE t (a int);"}, schema: true, problems: []string{"questions.jsonl: file missing"}},
		{name: "broken line kept going", files: map[string]string{SchemaFile: "", QuestionsFile: "{oops\n" + line}, questions: 1, schema: true, problems: []string{"questions.jsonl:1: broken JSON"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				write(t, dir, name, content)
			}
			d, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Questions) != tc.questions || (d.Schema != nil) != tc.schema {
				t.Fatalf("%d questions, schema %v; want %d, %v", len(d.Questions), d.Schema != nil, tc.questions, tc.schema)
			}
			if len(d.Problems) != len(tc.problems) {
				t.Fatalf("problems %v, want %v", d.Problems, tc.problems)
			}
			for i, p := range tc.problems {
				if got := d.Problems[i].String(); !strings.HasPrefix(got, filepath.Join(dir, p)) {
					t.Errorf("problem %q, want it to start with %q", got, filepath.Join(dir, p))
				}
			}
		})
	}
	t.Run("missing directory", func(t *testing.T) {
		if _, err := Load(filepath.Join(t.TempDir(), "nope")); err == nil {
			t.Fatal("want an error for a missing directory")
		}
	})
}

func TestEvalSelect(t *testing.T) {
	qs := []Question{{ID: "a", Tags: []string{"x"}}, {ID: "b"}, {ID: "c", Tags: []string{"x", "y"}}, {ID: "d", Tags: []string{"x"}}}
	cases := []struct {
		tag   string
		limit int
		want  []string
	}{
		{"", 0, []string{"a", "b", "c", "d"}},
		{"", 2, []string{"a", "b"}},
		{"x", 0, []string{"a", "c", "d"}},
		{"x", 2, []string{"a", "c"}},
		{"y", 5, []string{"c"}},
		{"z", 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.tag+"/"+string(rune('0'+tc.limit)), func(t *testing.T) {
			var got []string
			for _, q := range Select(qs, tc.tag, tc.limit) {
				got = append(got, q.ID)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
