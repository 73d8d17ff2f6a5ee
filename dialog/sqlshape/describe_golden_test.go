package sqlshape

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestDescribeGolden describes every expression and condition the
// repository's tests sent to DescribeExpression and DescribeCondition (and
// the shapes the engines write), and checks the words against
// testdata/describe.tsv: kind ("E" or "C"), text, words, tab-separated.
func TestDescribeGolden(t *testing.T) {
	f, err := os.Open("testdata/describe.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), "\t")
		in, want, ok := strings.Cut(rest, "\t")
		if !ok {
			t.Fatalf("line %d: want three tab-separated fields", n+1)
		}
		n++
		t.Run(in, func(t *testing.T) {
			describe := DescribeExpression
			if kind == "C" {
				describe = DescribeCondition
			}
			if got := describe(in, shapeLabels{}); got != want {
				t.Errorf("%s %q\n got: %q\nwant: %q", kind, in, got, want)
			}
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("only %d cases read", n)
	}
}

// BenchmarkDescribe words a measure the engines write, as an explanation
// does for each of its parts: one parse, then a walk.
func BenchmarkDescribe(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		DescribeExpression("SUM(case when orders.ship_state='tx' then orders.net_amount end) mul 1 div NULLIF(SUM(orders.net_amount), 0)", shapeLabels{})
	}
}
