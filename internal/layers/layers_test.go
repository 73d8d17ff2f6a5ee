package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/clarify-bot/clarify/"

// rank orders the top-level folders: a package may import its own layer
// and the ones below it, never one above.
var rank = map[string]int{"internal": 0, "connectors": 1, "ontology": 1, "dialog": 2, "adapters": 3, "bot": 4}

// testHelper says whether a package only serves tests (internal/dialogtest,
// internal/testwh…): it may build what it tests from any layer.
func testHelper(dir string) bool {
	base := filepath.Base(dir)
	return strings.HasSuffix(base, "test") || strings.HasPrefix(base, "test")
}

func layerOf(rel string) string { return strings.SplitN(filepath.ToSlash(rel), "/", 2)[0] }

// TestImportsPointDown fails on an import from a lower layer to a higher one
// in non-test code.
func TestImportsPointDown(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == ".git" || n == "testdata" || n == "node_modules" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		from, ok := rank[layerOf(rel)]
		if !ok || testHelper(rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module) {
				continue
			}
			target := strings.TrimPrefix(p, module)
			to, ok := rank[layerOf(target)]
			if ok && to > from && !testHelper(target) {
				r, _ := filepath.Rel(root, path)
				t.Errorf("%s imports %s: %s may not depend on %s", r, target, layerOf(rel), layerOf(target))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked %d files; is the root right?", checked)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", root)
	}
}

// offlineStages are the offline engine's stage packages in pipeline order
// (docs/ARCHITECTURE.md): each may import only the stages before it, so
// the data flows forward and a stage can be read without the ones after.
var offlineStages = []string{"dialog/offline/words", "dialog/offline/token", "dialog/offline/schema", "dialog/offline/sqlexpr", "dialog/offline/links", "dialog/offline/read", "dialog/offline/plan", "dialog/offline"}

// TestOfflineStagesPointForward fails when a stage of the offline engine
// imports a stage after it (or one not in the list).
func TestOfflineStagesPointForward(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	place := map[string]int{}
	for i, s := range offlineStages {
		place[s] = i
	}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(filepath.Join(root, "dialog", "offline"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		from, ok := place[rel]
		if !ok {
			t.Errorf("%s is no stage of the offline engine: add it to offlineStages in pipeline order", rel)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			target := strings.TrimPrefix(p, module)
			if !strings.HasPrefix(target, "dialog/offline") {
				continue
			}
			if to, ok := place[target]; !ok || to >= from {
				t.Errorf("%s imports %s: a stage imports only the stages before it", rel, target)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked %d files; is the root right?", checked)
	}
}
