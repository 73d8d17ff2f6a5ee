package slack

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMethodsListsEveryCall: Methods (the metrics' method labels, started
// at zero) names every Web API method the adapter calls.
func TestMethodsListsEveryCall(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`a\.call\(ctx, "([^"]+)"`)
	seen := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(src), -1) {
			seen++
			if !slices.Contains(Methods, m[1]) {
				t.Errorf("%s calls %s, which Methods does not list", f, m[1])
			}
		}
	}
	if seen == 0 {
		t.Fatal("found no calls; has the call helper been renamed?")
	}
}
