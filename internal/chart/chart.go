// Package chart decides whether a result reads better as a picture — a
// trend over time, or a breakdown over a few categories — and draws it as
// a PNG. The decision (For) is separate from the drawing (Render) so that
// it can be tested on many result shapes without pixels.
package chart

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/internal/tables"
)

// Limits of what is drawn: more categories or series than this make a
// picture nobody reads, so the table alone answers.
const (
	MaxCategories = 30
	MaxSeries     = 8
)

// Kind is the kind of chart.
type Kind int

const (
	Line Kind = iota + 1 // a trend over time
	Bar                  // a breakdown by category
)

func (k Kind) String() string {
	switch k {
	case Line:
		return "line"
	case Bar:
		return "bar"
	}
	return "none"
}

// Column describes one result column.
type Column struct {
	Name   string        // as in the result
	Label  string        // plain name for people; Name humanised when empty
	Format colfmt.Format // how its values read
}

// Input is a result to chart: typed rows (nil for NULL; numbers as int64,
// uint64, float64 or decimal strings; dates as strings), as in
// sqlresult.Result.
type Input struct {
	Title   string
	Columns []Column
	Rows    [][]any
}

// Series is one line, or one colour of bars.
type Series struct {
	Name   string    // "" for the only series
	Values []float64 // one per X point; NaN where the value is NULL or missing
}

// Spec is a chart ready to draw.
type Spec struct {
	Kind   Kind
	Title  string
	XLabel string
	YLabel string
	// X are the positions of the points along the horizontal axis (days
	// since 1970 for dates, 0, 1, 2… otherwise) and XLabels their labels.
	X       []float64
	XLabels []string
	// XFormat is the format of the time or category column.
	XFormat colfmt.Format
	YFormat colfmt.Format
	Series  []Series
}

// FromResult turns an answer into chart input: its typed result, its
// formats and headings, its explanation as the title (a dialog.Answer's
// Result, Formats, Headings and Explanation).
func FromResult(res *sqlresult.Result, formats []colfmt.Format, headings []string, title string) Input {
	if res == nil {
		return Input{}
	}
	in := Input{Title: title, Rows: res.Rows}
	for i, rc := range res.Columns {
		c := Column{Name: rc.Name}
		if i < len(formats) {
			c.Format = formats[i]
		} else {
			c.Format = colfmt.Detect(colfmt.Column{Name: rc.Name, Type: rc.Type})
		}
		if i < len(headings) {
			c.Label = headings[i]
		}
		in.Columns = append(in.Columns, c)
	}
	return in
}

// ForResult decides the chart of an answer (see FromResult).
func ForResult(res *sqlresult.Result, formats []colfmt.Format, headings []string, title string) (Spec, bool) {
	return For(FromResult(res, formats, headings, title))
}

// For decides whether the result is a time series (a date or period
// column and numeric measures) or a breakdown (one category column and
// numeric measures, at most MaxCategories categories), optionally split
// into at most MaxSeries series by a second category column, and returns
// the chart to draw. ok is false when a table says it better.
func For(in Input) (Spec, bool) {
	if len(in.Rows) < 2 {
		return Spec{}, false
	}
	roles := classify(in.Columns)
	if len(roles.measures) == 0 {
		return Spec{}, false
	}
	measures := sameFormat(in.Columns, roles.measures)
	var s Spec
	var ok bool
	switch {
	case len(roles.times) > 0:
		if len(roles.cats) > 1 {
			return Spec{}, false
		}
		s, ok = timeSeries(in, roles.times, roles.cats, measures)
	case len(roles.cats) == 1 || len(roles.cats) == 2:
		s, ok = breakdown(in, roles.cats, measures)
	}
	if !ok || !hasValues(s.Series) {
		return Spec{}, false
	}
	s.Title = in.Title
	s.YFormat = in.Columns[measures[0]].Format
	s.YLabel = yLabel(in.Columns, measures, s.Series)
	return s, true
}

type roles struct {
	times, cats, measures []int
}

// classify gives each column its part: time, category or measure.
// Identifiers and other columns take no part (a region id beside its name).
func classify(cols []Column) roles {
	var r roles
	for i, c := range cols {
		switch {
		case c.Format.IsTime():
			r.times = append(r.times, i)
		case c.Format.IsMeasure():
			r.measures = append(r.measures, i)
		case c.Format.Kind == colfmt.Text:
			r.cats = append(r.cats, i)
		}
	}
	return r
}

// sameFormat keeps the measures that share the first one's format: one
// axis cannot honestly carry dollars and counts.
func sameFormat(cols []Column, measures []int) []int {
	out := measures[:1:1]
	for _, m := range measures[1:] {
		if cols[m].Format == cols[measures[0]].Format {
			out = append(out, m)
		}
	}
	return out
}

func hasValues(series []Series) bool {
	for _, s := range series {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				return true
			}
		}
	}
	return false
}

func label(c Column) string {
	if c.Label != "" {
		return c.Label
	}
	return tables.Humanize(c.Name)
}

// yLabel names the vertical axis: the measure when there is one line of
// it, with its unit.
func yLabel(cols []Column, measures []int, series []Series) string {
	l := label(cols[measures[0]])
	if len(measures) > 1 {
		l = ""
	}
	if u := cols[measures[0]].Format.Unit(); u != "" {
		if l == "" {
			return u
		}
		return l + " (" + u + ")"
	}
	return l
}

// point is one x position with its label and sort key.
type point struct {
	key   float64
	text  string
	label string
}

// timeSeries builds a line chart: x from the time column (or a year and a
// month/quarter column together), one line per measure, or per value of
// the category column.
func timeSeries(in Input, times, cats, measures []int) (Spec, bool) {
	tf := in.Columns[times[0]].Format
	if len(times) > 2 {
		return Spec{}, false
	}
	var sub int = -1
	if len(times) == 2 {
		// A year and a month (or quarter) read as one period.
		y, m := times[0], times[1]
		if in.Columns[m].Format.Kind == colfmt.Year {
			y, m = m, y
		}
		if in.Columns[y].Format.Kind != colfmt.Year || (in.Columns[m].Format.Kind != colfmt.Month && in.Columns[m].Format.Kind != colfmt.Quarter) {
			return Spec{}, false
		}
		times = []int{y}
		sub = m
		tf = colfmt.Format{Kind: colfmt.Period}
	}
	xcol := times[0]
	split := -1
	if len(cats) == 1 {
		split = cats[0]
		if len(measures) > 1 {
			return Spec{}, false
		}
	}
	pts := map[string]point{}
	type cell struct{ x, series string }
	vals := map[cell]float64{}
	var seriesNames []string
	seenSeries := map[string]bool{}
	for _, r := range in.Rows {
		p, ok := timePoint(r[xcol], in.Columns[xcol].Format)
		if !ok {
			continue // a row without a time cannot be placed
		}
		if sub >= 0 {
			q, ok := subPeriod(r[sub], in.Columns[sub].Format)
			if !ok {
				continue
			}
			p.key = p.key*100 + q.key
			p.text += "-" + q.text
			p.label = q.label + " " + p.label
		}
		pts[p.text] = p
		for _, m := range measures {
			name := ""
			switch {
			case split >= 0:
				name = categoryName(r[split])
			case len(measures) > 1:
				name = label(in.Columns[m])
			}
			if !seenSeries[name] {
				seenSeries[name] = true
				seriesNames = append(seriesNames, name)
			}
			c := cell{p.text, name}
			if _, dup := vals[c]; dup {
				return Spec{}, false // several rows per point: a listing, not a series
			}
			v, ok := sqlresult.AsFloat(r[m])
			if !ok {
				v = math.NaN()
			}
			vals[c] = v
		}
	}
	if len(pts) < 2 || len(seriesNames) > MaxSeries {
		return Spec{}, false
	}
	order := make([]point, 0, len(pts))
	for _, p := range pts {
		order = append(order, p)
	}
	sort.Slice(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if math.IsNaN(a.key) || math.IsNaN(b.key) {
			return a.text < b.text
		}
		return a.key < b.key
	})
	s := Spec{Kind: Line, XFormat: tf, XLabel: label(in.Columns[xcol])}
	if sub >= 0 {
		s.XLabel = label(in.Columns[sub])
	}
	dates := tf.Kind == colfmt.Date || tf.Kind == colfmt.DateTime
	for i, p := range order {
		if dates {
			s.X = append(s.X, p.key)
		} else {
			s.X = append(s.X, float64(i))
		}
		s.XLabels = append(s.XLabels, p.label)
	}
	if dates {
		relabelDates(s.XLabels, order)
	}
	for _, name := range seriesNames {
		se := Series{Name: name, Values: make([]float64, len(order))}
		for i, p := range order {
			v, ok := vals[cell{p.text, name}]
			if !ok {
				v = math.NaN()
			}
			se.Values[i] = v
		}
		s.Series = append(s.Series, se)
	}
	return s, true
}

// timePoint reads a time value: a date as days since 1970, a year, month
// or quarter as its number, a period text as itself (sorting as text).
func timePoint(v any, f colfmt.Format) (point, bool) {
	if v == nil {
		return point{}, false
	}
	text := f.Value(v)
	switch f.Kind {
	case colfmt.Date, colfmt.DateTime:
		t, ok := parseTime(text)
		if !ok {
			return point{}, false
		}
		days := float64(t.Unix()) / 86400
		return point{key: days, text: text, label: text}, true
	case colfmt.Year, colfmt.Month, colfmt.Quarter:
		n, ok := sqlresult.AsFloat(v)
		if !ok {
			return point{}, false
		}
		return point{key: n, text: text, label: periodLabel(f.Kind, n)}, true
	}
	// Period text ("2024-03", "2024 Q1") sorts as written; keys keep that order.
	return point{key: math.NaN(), text: text, label: text}, true
}

func subPeriod(v any, f colfmt.Format) (point, bool) {
	n, ok := sqlresult.AsFloat(v)
	if !ok {
		return point{}, false
	}
	return point{key: n, text: strconv.Itoa(int(n)), label: periodLabel(f.Kind, n)}, true
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

func periodLabel(k colfmt.Kind, n float64) string {
	i := int(n)
	switch {
	case k == colfmt.Month && i >= 1 && i <= 12:
		return monthNames[i-1]
	case k == colfmt.Quarter:
		return "Q" + strconv.Itoa(i)
	}
	return strconv.Itoa(i)
}

func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04:05", time.RFC3339, "2006-01-02 15:04:05.999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// relabelDates writes date labels for people: "Mar 5" within one year,
// "Mar 2024" over longer spans, "Mar 5, 2024" otherwise.
func relabelDates(labels []string, pts []point) {
	first, _ := parseTime(pts[0].text)
	last, _ := parseTime(pts[len(pts)-1].text)
	layout := "Jan 2, 2006"
	switch {
	case first.Year() == last.Year():
		layout = "Jan 2"
	case last.Sub(first) > 300*24*time.Hour:
		layout = "Jan 2006"
	}
	for i, p := range pts {
		if t, ok := parseTime(p.text); ok {
			labels[i] = t.Format(layout)
		}
	}
}

func categoryName(v any) string {
	if v == nil {
		return "(none)"
	}
	s := colfmt.Format{Kind: colfmt.Text}.Value(v)
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}

// breakdown builds a bar chart: bars per value of the first category
// column, grouped by the second one's values or by measure.
func breakdown(in Input, cats, measures []int) (Spec, bool) {
	xcol := cats[0]
	split := -1
	if len(cats) == 2 {
		split = cats[1]
		if len(measures) > 1 {
			return Spec{}, false
		}
	}
	type cell struct{ x, series string }
	vals := map[cell]float64{}
	var xs, seriesNames []string
	seenX, seenS := map[string]bool{}, map[string]bool{}
	for _, r := range in.Rows {
		x := categoryName(r[xcol])
		if !seenX[x] {
			seenX[x] = true
			xs = append(xs, x)
		}
		for _, m := range measures {
			name := ""
			switch {
			case split >= 0:
				name = categoryName(r[split])
			case len(measures) > 1:
				name = label(in.Columns[m])
			}
			if !seenS[name] {
				seenS[name] = true
				seriesNames = append(seriesNames, name)
			}
			c := cell{x, name}
			if _, dup := vals[c]; dup {
				return Spec{}, false
			}
			v, ok := sqlresult.AsFloat(r[m])
			if !ok {
				v = math.NaN()
			}
			vals[c] = v
		}
	}
	if len(xs) < 2 || len(xs) > MaxCategories || len(seriesNames) > MaxSeries {
		return Spec{}, false
	}
	s := Spec{Kind: Bar, XFormat: in.Columns[xcol].Format, XLabel: label(in.Columns[xcol]), XLabels: xs}
	for i := range xs {
		s.X = append(s.X, float64(i))
	}
	for _, name := range seriesNames {
		se := Series{Name: name, Values: make([]float64, len(xs))}
		for i, x := range xs {
			v, ok := vals[cell{x, name}]
			if !ok {
				v = math.NaN()
			}
			se.Values[i] = v
		}
		s.Series = append(s.Series, se)
	}
	return s, true
}
