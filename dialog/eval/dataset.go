// Package eval measures how well the dialog answers questions with known
// gold SQL: each question goes through the real dialog manager, a simulated
// user answers its clarifications from the gold query, and the final answer
// is compared with the gold result by execution match, round by round.
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// File names inside a dataset directory (see shared/eval/README.md).
const (
	SchemaFile    = "schema.sql"
	QuestionsFile = "questions.jsonl"
)

// Question is one line of questions.jsonl.
type Question struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	GoldSQL  string   `json:"gold_sql"`
	Ordered  bool     `json:"ordered"`
	Source   string   `json:"source,omitempty"`
	AltGold  []string `json:"alt_gold_sql,omitempty"`
	User     string   `json:"user,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Evidence string   `json:"evidence,omitempty"`
	// Line is the 1-based line of questions.jsonl the question came from.
	Line int `json:"line"`
}

// Golds are the gold query and its equivalent alternatives.
func (q Question) Golds() []string {
	return append([]string{q.GoldSQL}, q.AltGold...)
}

// HasTag reports whether the question carries tag.
func (q Question) HasTag(tag string) bool {
	for _, t := range q.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// Problem is something wrong with a dataset, located as precisely as known.
type Problem struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"` // 0 when it concerns the whole file
	ID     string `json:"id,omitempty"`   // the question, when known
	Reason string `json:"reason"`
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	if p.ID != "" {
		return fmt.Sprintf("%s: %s: %s", loc, p.ID, p.Reason)
	}
	return loc + ": " + p.Reason
}

// Dataset is a loaded dataset directory.
type Dataset struct {
	Name string `json:"name"`
	Dir  string `json:"dir"`
	// Schema is the content of schema.sql; nil when the file is missing.
	Schema    []byte     `json:"-"`
	Questions []Question `json:"-"`
	Problems  []Problem  `json:"problems,omitempty"`
}

// QuestionsPath is where the dataset's questions were read from.
func (d *Dataset) QuestionsPath() string { return filepath.Join(d.Dir, QuestionsFile) }

// Load reads a dataset directory. Missing files and malformed lines become
// Problems and the rest is kept, so that one bad line does not stop a run;
// an error means the directory itself cannot be read.
func Load(dir string) (*Dataset, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("dataset %s: not a directory", dir)
	}
	d := &Dataset{Name: filepath.Base(filepath.Clean(dir)), Dir: dir}
	schemaPath := filepath.Join(dir, SchemaFile)
	d.Schema, err = os.ReadFile(schemaPath)
	if err != nil {
		d.Schema = nil
		d.Problems = append(d.Problems, Problem{File: schemaPath, Reason: fileReason(err)})
	}
	qPath := d.QuestionsPath()
	f, err := os.Open(qPath)
	if err != nil {
		d.Problems = append(d.Problems, Problem{File: qPath, Reason: fileReason(err)})
		return d, nil
	}
	defer f.Close()
	qs, probs := ParseQuestions(qPath, f)
	d.Questions = qs
	d.Problems = append(d.Problems, probs...)
	return d, nil
}

func fileReason(err error) string {
	if errors.Is(err, os.ErrNotExist) {
		return "file missing"
	}
	return err.Error()
}

// maxLine bounds one line of questions.jsonl.
const maxLine = 4 << 20

// ParseQuestions reads questions.jsonl from r; file names the source in
// problems. Blank lines are skipped; a line that is not a JSON object, lacks
// id, question or gold_sql, or repeats an id is reported and skipped.
func ParseQuestions(file string, r io.Reader) ([]Question, []Problem) {
	var qs []Question
	var probs []Problem
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var q Question
		dec := json.NewDecoder(bytes.NewReader(raw))
		if err := dec.Decode(&q); err != nil {
			probs = append(probs, Problem{File: file, Line: line, Reason: "broken JSON: " + jsonReason(err)})
			continue
		}
		if dec.More() {
			probs = append(probs, Problem{File: file, Line: line, Reason: "broken JSON: more than one value on the line"})
			continue
		}
		q.Line = line
		var missing []string
		if strings.TrimSpace(q.ID) == "" {
			missing = append(missing, "id")
		}
		if strings.TrimSpace(q.Question) == "" {
			missing = append(missing, "question")
		}
		if strings.TrimSpace(q.GoldSQL) == "" {
			missing = append(missing, "gold_sql")
		}
		if len(missing) > 0 {
			probs = append(probs, Problem{File: file, Line: line, ID: q.ID, Reason: "missing field " + strings.Join(missing, ", ")})
			continue
		}
		if prev, dup := seen[q.ID]; dup {
			probs = append(probs, Problem{File: file, Line: line, ID: q.ID, Reason: fmt.Sprintf("duplicate id (first on line %d)", prev)})
			continue
		}
		seen[q.ID] = line
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		probs = append(probs, Problem{File: file, Line: line + 1, Reason: "cannot read: " + err.Error()})
	}
	return qs, probs
}

func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Sprintf("the line must be a JSON object, not %s", te.Value)
		}
		return fmt.Sprintf("field %s must be %s, not %s", te.Field, te.Type, te.Value)
	}
	return err.Error()
}

// Select keeps the questions matching filter (all when filter is ""), then
// the first limit of them (all when limit <= 0). The filter is a
// comma-separated list of tags or question ids, so one failure can be
// re-run by its id.
func Select(qs []Question, filter string, limit int) []Question {
	var wanted []string
	for _, f := range strings.Split(filter, ",") {
		if f = strings.TrimSpace(f); f != "" {
			wanted = append(wanted, f)
		}
	}
	var out []Question
	for _, q := range qs {
		if len(wanted) > 0 && !slices.ContainsFunc(wanted, func(w string) bool { return w == q.ID || q.HasTag(w) }) {
			continue
		}
		out = append(out, q)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out
}
