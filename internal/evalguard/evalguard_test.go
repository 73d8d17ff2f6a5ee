package evalguard

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// minWords is the shortest quoted phrase that counts as a question's wording.
const minWords = 5

// product phrases that happen to open some evaluation question too; they
// were not taken from one.
var allowed = map[string]bool{
	"what can you tell me": true, // a question about the bot itself
}

var (
	wordRe  = regexp.MustCompile(`[a-z0-9']+`)
	quoteRe = regexp.MustCompile(`"([^"]{12,})"`)
	splitRe = regexp.MustCompile(`…|\.\.\.`)
)

func words(s string) []string { return wordRe.FindAllString(strings.ToLower(s), -1) }

// TestNoEvaluationQuestionsInCode fails when a quoted phrase of five or more
// words in non-test Go code occurs word for word in a public evaluation
// question (../shared/eval beside the repository; skipped when absent).
func TestNoEvaluationQuestionsInCode(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "..", "shared", "eval", "*", "questions.jsonl"))
	if len(files) == 0 {
		t.Skip("no evaluation sets beside the repository (../shared/eval)")
	}
	var questions []string
	for _, f := range files {
		questions = append(questions, readQuestions(t, f)...)
	}
	var hits []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n, line := range strings.Split(string(src), "\n") {
			for _, m := range quoteRe.FindAllStringSubmatch(line, -1) {
				for _, part := range splitRe.Split(m[1], -1) {
					w := words(part)
					if len(w) < minWords || allowed[strings.Join(w, " ")] {
						continue
					}
					p := " " + strings.Join(w, " ") + " "
					for _, q := range questions {
						if strings.Contains(q, p) {
							rel, _ := filepath.Rel(root, path)
							hits = append(hits, rel+":"+strconv.Itoa(n+1)+": "+strings.TrimSpace(part))
							break
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		t.Errorf("an evaluation question's wording in code (use an example from a schema of our own): %s", h)
	}
}

func readQuestions(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var q struct{ Question string }
		if json.Unmarshal(sc.Bytes(), &q) == nil {
			out = append(out, " "+strings.Join(words(q.Question), " ")+" ")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}
