package tables

import (
	"strings"
	"testing"
)

func TestRenderAlignsWideCharactersAndClips(t *testing.T) {
	out := Render([]string{"name", "n"}, [][]string{
		{"東京", "12"},
		{"Zoë 🚀", "3"},
		{strings.Repeat("x", 100), "1,204"},
		{"line\nbreak\ttab", "NULL"},
	}, Options{MaxCellWidth: 10})
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("want header, rule and 4 rows, got %d lines:\n%s", len(lines), out)
	}
	// Every row has the same display width: the numbers are right-aligned.
	if lines[2] != "東京           12" || lines[3] != "Zoë 🚀          3" {
		t.Fatalf("misaligned:\n%s", out)
	}
	if !strings.Contains(lines[4], "xxxxxxxxx…") || strings.Contains(out, "\t") || strings.Count(out, "\n") != 6 {
		t.Fatalf("not clipped or not cleaned:\n%s", out)
	}
}

func TestRenderMaxRowsAndEmpty(t *testing.T) {
	out := Render([]string{"a"}, [][]string{{"1"}, {"2"}, {"3"}}, Options{MaxRows: 2})
	if strings.Contains(out, "3") || !strings.Contains(out, "2") {
		t.Fatalf("MaxRows ignored:\n%s", out)
	}
	if out := Render([]string{"a", "b"}, nil, Options{}); out != "a  b\n-  -\n" {
		t.Fatalf("empty result: %q", out)
	}
}

func TestCSV(t *testing.T) {
	data, n, cut := CSV([]string{"name", "=total"}, [][]any{
		{"=HYPERLINK(\"x\")", "1204.50"},
		{nil, int64(-3)},
		{"+1", 2.5},
		{"-ok", uint64(7)},
	}, 0)
	want := "name,'=total\n\"'=HYPERLINK(\"\"x\"\")\",1204.50\n,-3\n+1,2.5\n'-ok,7\n"
	if string(data) != want || n != 4 || cut {
		t.Fatalf("got %q (%d rows, cut %v)", data, n, cut)
	}
	data, n, cut = CSV([]string{"a"}, [][]any{{"xxxxxxxxxx"}, {"yyyyyyyyyy"}, {"zzzzzzzzzz"}}, 20)
	if n != 1 || !cut || len(data) > 20 {
		t.Fatalf("limit: %q %d %v", data, n, cut)
	}
}

func TestSafeCell(t *testing.T) {
	for in, want := range map[string]string{"=1+1": "'=1+1", "+x": "'+x", "-12.5": "-12.5", "-1,204.50": "-1,204.50", "@SUM(A1)": "'@SUM(A1)", "plain": "plain", "": ""} {
		if got := safeCell(in); got != want {
			t.Errorf("safeCell(%q) = %q, want %q", in, got, want)
		}
	}
}
