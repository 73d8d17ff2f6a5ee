package chart

import (
	"bytes"
	"fmt"
	"gonum.org/v1/plot"
	"image/png"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

var (
	fDate    = colfmt.Format{Kind: colfmt.Date}
	fYear    = colfmt.Format{Kind: colfmt.Year}
	fMonth   = colfmt.Format{Kind: colfmt.Month}
	fPeriod  = colfmt.Format{Kind: colfmt.Period}
	fText    = colfmt.Format{Kind: colfmt.Text}
	fID      = colfmt.Format{Kind: colfmt.ID}
	fNumber  = colfmt.Format{Kind: colfmt.Number}
	fDollars = colfmt.Format{Kind: colfmt.Money, Currency: "$"}
)

func cols(fs ...any) []Column {
	var out []Column
	for i := 0; i < len(fs); i += 2 {
		out = append(out, Column{Name: fs[i].(string), Format: fs[i+1].(colfmt.Format)})
	}
	return out
}

func TestFor(t *testing.T) {
	var regions [][]any
	for _, r := range []string{"South", "West", "Midwest", "Northeast"} {
		regions = append(regions, []any{r, "1200.50"})
	}
	var many [][]any
	for i := range MaxCategories + 1 {
		many = append(many, []any{fmt.Sprintf("product %d", i), int64(i)})
	}
	var nineSeries [][]any
	for i := range MaxSeries + 1 {
		nineSeries = append(nineSeries, []any{"2024-01-01", fmt.Sprintf("s%d", i), int64(i)}, []any{"2024-01-02", fmt.Sprintf("s%d", i), int64(i)})
	}
	tests := []struct {
		name       string
		in         Input
		wantOK     bool
		wantKind   Kind
		wantSeries []string
		wantX      []string
		wantY      string
	}{
		{
			name: "monthly counts are a line", wantOK: true, wantKind: Line, wantSeries: []string{""},
			in:    Input{Columns: cols("month", fMonth, "count", fNumber), Rows: [][]any{{int64(2), int64(5)}, {int64(1), int64(3)}, {int64(3), int64(8)}}},
			wantX: []string{"Jan", "Feb", "Mar"}, wantY: "count",
		},
		{
			name: "dates are a line in date order", wantOK: true, wantKind: Line, wantSeries: []string{""},
			in:    Input{Columns: cols("day", fDate, "revenue", fDollars), Rows: [][]any{{"2024-03-02", "10.00"}, {"2024-03-01 00:00:00", "-4.50"}}},
			wantX: []string{"Mar 1", "Mar 2"}, wantY: "revenue ($)",
		},
		{
			name: "year and month together are one period", wantOK: true, wantKind: Line, wantSeries: []string{""},
			in:    Input{Columns: cols("y", fYear, "m", fMonth, "n", fNumber), Rows: [][]any{{int64(2025), int64(1), int64(1)}, {int64(2024), int64(12), int64(2)}}},
			wantX: []string{"Dec 2024", "Jan 2025"},
		},
		{
			name: "period text sorts as written", wantOK: true, wantKind: Line, wantSeries: []string{""},
			in:    Input{Columns: cols("ym", fPeriod, "n", fNumber), Rows: [][]any{{"2024-02", int64(1)}, {"2024-01", int64(2)}}},
			wantX: []string{"2024-01", "2024-02"},
		},
		{
			name: "two measures of one kind are two lines", wantOK: true, wantKind: Line, wantSeries: []string{"gross", "net"},
			in: Input{Columns: cols("year", fYear, "gross", fDollars, "net", fDollars), Rows: [][]any{{int64(2023), "5", "4"}, {int64(2024), "6", "5"}}},
		},
		{
			name: "a count beside dollars is left off the axis", wantOK: true, wantKind: Line, wantSeries: []string{""},
			in: Input{Columns: cols("year", fYear, "revenue", fDollars, "orders", fNumber), Rows: [][]any{{int64(2023), "5", int64(4)}, {int64(2024), "6", int64(5)}}},
		},
		{
			name: "a category splits the lines", wantOK: true, wantKind: Line, wantSeries: []string{"South", "West"},
			in: Input{Columns: cols("year", fYear, "region", fText, "n", fNumber), Rows: [][]any{
				{int64(2023), "South", int64(1)}, {int64(2023), "West", int64(2)}, {int64(2024), "South", int64(3)}}},
		},
		{
			name: "more than eight series is no chart",
			in:   Input{Columns: cols("day", fDate, "s", fText, "n", fNumber), Rows: nineSeries},
		},
		{
			name: "breakdown by one category is bars", wantOK: true, wantKind: Bar, wantSeries: []string{""},
			in:    Input{Columns: cols("region", fText, "total", fDollars), Rows: regions},
			wantX: []string{"South", "West", "Midwest", "Northeast"},
		},
		{
			name: "an id beside the name takes no part", wantOK: true, wantKind: Bar, wantSeries: []string{""},
			in: Input{Columns: cols("id", fID, "name", fText, "n", fNumber), Rows: [][]any{{int64(1), "a", int64(1)}, {int64(2), "b", int64(2)}}},
		},
		{
			name: "two categories are grouped bars", wantOK: true, wantKind: Bar, wantSeries: []string{"Consumer", "Enterprise"},
			in: Input{Columns: cols("region", fText, "segment", fText, "n", fNumber), Rows: [][]any{
				{"South", "Consumer", int64(1)}, {"South", "Enterprise", int64(2)}, {"West", "Consumer", int64(3)}}},
			wantX: []string{"South", "West"},
		},
		{
			name: "negative values still chart", wantOK: true, wantKind: Bar, wantSeries: []string{""},
			in: Input{Columns: cols("product", fText, "margin", fDollars), Rows: [][]any{{"a", "-10.5"}, {"b", "20"}}},
		},
		{
			name: "NULL measures are gaps", wantOK: true, wantKind: Line, wantSeries: []string{""},
			in: Input{Columns: cols("month", fMonth, "n", fNumber), Rows: [][]any{{int64(1), nil}, {int64(2), int64(3)}, {int64(3), int64(4)}}},
		},
		{
			name: "NULL category is named", wantOK: true, wantKind: Bar, wantSeries: []string{""},
			in:    Input{Columns: cols("state", fText, "n", fNumber), Rows: [][]any{{nil, int64(1)}, {"TX", int64(3)}}},
			wantX: []string{"(none)", "TX"},
		},
		{
			name: "only NULL measures is no chart",
			in:   Input{Columns: cols("month", fMonth, "n", fNumber), Rows: [][]any{{int64(1), nil}, {int64(2), nil}}},
		},
		{
			name: "too many categories is no chart",
			in:   Input{Columns: cols("product", fText, "n", fNumber), Rows: many},
		},
		{
			name: "text only is no chart",
			in:   Input{Columns: cols("name", fText, "email", fText), Rows: [][]any{{"a", "x"}, {"b", "y"}}},
		},
		{
			name: "a single row is no chart",
			in:   Input{Columns: cols("region", fText, "n", fNumber), Rows: [][]any{{"South", int64(1)}}},
		},
		{
			name: "a single number is no chart",
			in:   Input{Columns: cols("n", fNumber), Rows: [][]any{{int64(1)}, {int64(2)}}},
		},
		{
			name: "three categories is no chart",
			in:   Input{Columns: cols("a", fText, "b", fText, "c", fText, "n", fNumber), Rows: [][]any{{"a", "b", "c", int64(1)}, {"d", "e", "f", int64(2)}}},
		},
		{
			name: "a listing with repeated dates is no chart",
			in:   Input{Columns: cols("ordered_at", fDate, "amount", fDollars), Rows: [][]any{{"2024-01-01", "1"}, {"2024-01-01", "2"}, {"2024-01-02", "3"}}},
		},
		{
			name: "ids and measures without a category is no chart",
			in:   Input{Columns: cols("id", fID, "amount", fDollars), Rows: [][]any{{int64(1), "1"}, {int64(2), "2"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := For(tt.in)
			if ok != tt.wantOK {
				t.Fatalf("For() ok = %v, want %v (spec %+v)", ok, tt.wantOK, s)
			}
			if !ok {
				return
			}
			if s.Kind != tt.wantKind {
				t.Errorf("kind = %v, want %v", s.Kind, tt.wantKind)
			}
			var names []string
			for _, se := range s.Series {
				names = append(names, se.Name)
				if len(se.Values) != len(s.X) {
					t.Errorf("series %q has %d values for %d points", se.Name, len(se.Values), len(s.X))
				}
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.wantSeries) {
				t.Errorf("series = %q, want %q", names, tt.wantSeries)
			}
			if tt.wantX != nil && fmt.Sprint(s.XLabels) != fmt.Sprint(tt.wantX) {
				t.Errorf("x labels = %q, want %q", s.XLabels, tt.wantX)
			}
			if tt.wantY != "" && s.YLabel != tt.wantY {
				t.Errorf("y label = %q, want %q", s.YLabel, tt.wantY)
			}
		})
	}
}

func TestForKeepsNullsAsGaps(t *testing.T) {
	s, ok := For(Input{Columns: cols("month", fMonth, "n", fNumber), Rows: [][]any{{int64(1), nil}, {int64(2), int64(3)}, {int64(3), "-4"}}})
	if !ok {
		t.Fatal("no chart")
	}
	v := s.Series[0].Values
	if !math.IsNaN(v[0]) || v[1] != 3 || v[2] != -4 {
		t.Errorf("values = %v, want [NaN 3 -4]", v)
	}
}

func TestForResultUsesHeadingsAndFormats(t *testing.T) {
	// An answer's result, formats, headings and explanation.
	res := &sqlresult.Result{
		Columns: []sqlresult.Column{{Name: "month", Type: "BIGINT"}, {Name: "count", Type: "BIGINT"}},
		Rows:    [][]any{{int64(1), int64(10)}, {int64(2), int64(12)}},
	}
	title := "The number of orders per month."
	s, ok := ForResult(res, []colfmt.Format{fMonth, fNumber}, []string{"month", "number of orders"}, title)
	if !ok {
		t.Fatal("no chart for a monthly count")
	}
	if s.Title != title || s.YLabel != "number of orders" || s.XLabels[0] != "Jan" {
		t.Errorf("spec = title %q, y %q, x %q", s.Title, s.YLabel, s.XLabels)
	}
	if _, ok := ForResult(nil, nil, nil, ""); ok {
		t.Error("an answer without a result has a chart")
	}
}

func TestRender(t *testing.T) {
	long := strings.Repeat("Total net revenue after discounts per region, ", 6)
	specs := map[string]Input{
		"line":          {Title: "Orders per month", Columns: cols("month", fMonth, "n", fNumber), Rows: [][]any{{int64(1), int64(1613)}, {int64(2), nil}, {int64(3), int64(2473)}}},
		"bars":          {Title: long, Columns: cols("region", fText, "total", fDollars), Rows: [][]any{{"South", "2304450.78"}, {"West", "-1533827.89"}}},
		"grouped":       {Columns: cols("region", fText, "seg", fText, "n", fNumber), Rows: [][]any{{"South", "a", int64(1)}, {"South", "b", int64(2)}, {"West", "a", int64(3)}}},
		"many sideways": {Columns: cols("product", fText, "n", fNumber), Rows: productRows(20)},
	}
	for name, in := range specs {
		t.Run(name, func(t *testing.T) {
			s, ok := For(in)
			if !ok {
				t.Fatal("no chart")
			}
			b, err := Render(s)
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("not a PNG: %v", err)
			}
			if got := img.Bounds().Size(); got.X != WidthPx || got.Y != HeightPx {
				t.Errorf("size = %v, want %dx%d", got, WidthPx, HeightPx)
			}
			if len(b) < 5000 {
				t.Errorf("PNG of %d bytes is too small to hold a chart", len(b))
			}
		})
	}
	if _, err := Render(Spec{}); err == nil {
		t.Error("an empty spec rendered")
	}
}

func productRows(n int) [][]any {
	var rows [][]any
	for i := range n {
		rows = append(rows, []any{fmt.Sprintf("A rather long product name %d", i), int64(i * 100)})
	}
	return rows
}

func TestWrapTitle(t *testing.T) {
	fits := func(s string) bool { return len([]rune(s)) <= 20 }
	if got := wrapTitle("Short title.", fits); got != "Short title." {
		t.Errorf("short = %q", got)
	}
	got := wrapTitle(strings.Repeat("word ", 100), fits)
	lines := strings.Split(got, "\n")
	if len(lines) != maxTitleLines || !strings.HasSuffix(got, "…") {
		t.Errorf("long title = %q, want %d lines ending in …", got, maxTitleLines)
	}
	for _, l := range lines {
		if !fits(l) {
			t.Errorf("line too wide: %q", l)
		}
	}
}

func TestSparkline(t *testing.T) {
	tests := []struct {
		in    []float64
		width int
		want  string
	}{
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, 0, "▁▂▃▄▅▆▇█"},
		{[]float64{5, math.NaN(), -5}, 0, "█ ▁"},
		{[]float64{3, 3}, 0, "▅▅"},
		{[]float64{0, 0, 7, 7}, 2, "▁█"},
	}
	for _, tt := range tests {
		if got := Sparkline(tt.in, tt.width); got != tt.want {
			t.Errorf("Sparkline(%v, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func BenchmarkDrawSeries365(b *testing.B) {
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var rows [][]any
	for i := range 365 {
		d := start.AddDate(0, 0, i).Format("2006-01-02")
		rows = append(rows, []any{d, fmt.Sprintf("%d.%02d", 20000+(i*7919)%5000, i%100)})
	}
	in := Input{Title: "Total net revenue after discounts per day in 2024.", Columns: cols("day", fDate, "revenue", fDollars), Rows: rows}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, ok := For(in)
		if !ok {
			b.Fatal("no chart")
		}
		if _, err := Render(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/draw")
}

func TestSegments(t *testing.T) {
	n := maxPathPoints*2 + 5
	x := make([]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i], y[i] = float64(i), float64(i%7)
	}
	y[3] = math.NaN()
	segs := segments(x, y)
	covered := map[float64]bool{}
	for i, s := range segs {
		if len(s) > maxPathPoints {
			t.Errorf("segment %d has %d points", i, len(s))
		}
		for _, p := range s {
			covered[p.X] = true
		}
		if i > 1 && s[0] != segs[i-1][len(segs[i-1])-1] {
			t.Errorf("segment %d does not start where %d ends", i, i-1)
		}
	}
	if covered[3] || len(covered) != n-1 {
		t.Errorf("covered %d points (NULL at 3: %v), want %d without it", len(covered), covered[3], n-1)
	}
	if segs[0][len(segs[0])-1].X != 2 || segs[1][0].X != 4 {
		t.Errorf("the NULL should break the line: %v | %v", segs[0], segs[1][:1])
	}
}

// TestLongTitleNotCut: an answer's explanation as long as the engine
// writes them is set smaller on more lines, never cut; a short one keeps
// the large type.
func TestLongTitleNotCut(t *testing.T) {
	p := plot.New()
	style(p)
	long := "Total late fees charged when the book came back late per member id and member name, for loans where the date the book was borrowed is in 2024 and the loan status is returned or overdue, sorted by total late fees, highest first, top 10."
	got, size := fitTitle(p.Title.TextStyle, long)
	if strings.Contains(got, "…") || strings.Join(strings.Fields(got), " ") != long {
		t.Fatalf("the title was cut: %q", got)
	}
	if size >= titleSize {
		t.Errorf("a long title kept the large type (%v)", size)
	}
	if _, size := fitTitle(p.Title.TextStyle, "Loans per month in 2024."); size != titleSize {
		t.Errorf("a short title in %v, want %v", size, titleSize)
	}
}
