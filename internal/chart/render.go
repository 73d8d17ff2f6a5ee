package chart

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Size of the picture: Slack and Discord preview images about this wide,
// so text sized for it stays readable without opening the file.
const (
	WidthPx  = 800
	HeightPx = 450
	dpi      = 96
)

// Font sizes in points (at 96 dpi a point is 4/3 pixel).
const (
	titleSize = 14
	labelSize = 12
	tickSize  = 11
)

// maxTitleLines bounds the title (the answer's explanation). A long one
// is set in a smaller type on more lines rather than cut: its conditions
// ("for orders placed in 2024") say what the chart shows. Only a title
// longer than titleSteps allow at all is cut, with "…".
const maxTitleLines = 4

// titleSteps are the type sizes tried, largest first, each with the lines
// it may take.
var titleSteps = []struct {
	size  vg.Length
	lines int
}{{titleSize, 2}, {12, 3}, {11, maxTitleLines}, {10, maxTitleLines}}

// palette is colour-blind-safe (Okabe–Ito), in the order series take it.
var palette = [MaxSeries]color.RGBA{
	{0, 114, 178, 255},   // blue
	{230, 159, 0, 255},   // orange
	{0, 158, 115, 255},   // green
	{204, 121, 167, 255}, // purple
	{86, 180, 233, 255},  // sky
	{213, 94, 0, 255},    // vermillion
	{240, 228, 66, 255},  // yellow
	{0, 0, 0, 255},       // black
}

// Render draws the chart as a PNG of WidthPx × HeightPx pixels.
func Render(s Spec) ([]byte, error) {
	if len(s.Series) == 0 || len(s.Series) > MaxSeries || len(s.X) == 0 {
		return nil, errors.New("render chart: nothing to draw")
	}
	p := plot.New()
	style(p)
	p.Title.Text, p.Title.TextStyle.Font.Size = fitTitle(p.Title.TextStyle, s.Title)
	p.X.Label.Text = s.XLabel
	p.Y.Label.Text = s.YLabel
	p.Y.Tick.Marker = valueTicks{format: s.YFormat.Tick}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = color.Gray{Y: 215}
	p.Add(grid)

	var err error
	switch s.Kind {
	case Line:
		err = addLines(p, s)
	case Bar:
		err = addBars(p, s, grid)
	default:
		err = fmt.Errorf("unknown chart kind %d", s.Kind)
	}
	if err != nil {
		return nil, fmt.Errorf("render chart: %w", err)
	}
	if len(s.Series) > 1 {
		p.Legend.Top = true
		p.Legend.Left = false
	}

	w := vg.Length(WidthPx) * vg.Inch / dpi
	h := vg.Length(HeightPx) * vg.Inch / dpi
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))
	// A margin keeps the outermost points and labels off the edge.
	m := vg.Points(10)
	p.Draw(draw.Crop(draw.New(c), m, -m, m/2, -m/2))
	var buf bytes.Buffer
	// Fastest deflate: a flat-coloured chart compresses well anyway, and the
	// default level costs more time than all the drawing.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, c.Image()); err != nil {
		return nil, fmt.Errorf("render chart: encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// style sets a sans-serif face and readable sizes on this plot only
// (plot.DefaultFont is package state shared with every plot in the process).
func style(p *plot.Plot) {
	sans := func(st *text.Style, size vg.Length) {
		st.Font.Variant = "Sans"
		st.Font.Size = size
	}
	sans(&p.Title.TextStyle, titleSize)
	p.Title.TextStyle.Font.Weight = xfont.WeightBold
	p.Title.Padding = vg.Points(10)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		sans(&a.Label.TextStyle, labelSize)
		sans(&a.Tick.Label, tickSize)
		a.Padding = vg.Points(4)
	}
	sans(&p.Legend.TextStyle, tickSize)
	p.Legend.ThumbnailWidth = vg.Points(18)
}

// maxDots is the most points marked with a dot.
const maxDots = 40

// addLines draws one line per series, with dots when there are few points
// (a dot per month reads; 365 dots are noise).
func addLines(p *plot.Plot, s Spec) error {
	for i, se := range s.Series {
		for _, seg := range segments(s.X, se.Values) {
			l, err := plotter.NewLine(seg)
			if err != nil {
				return fmt.Errorf("line %q: %w", se.Name, err)
			}
			l.Color = palette[i]
			l.Width = vg.Points(2)
			if len(s.X) > maxDots {
				l.Width = vg.Points(1.25) // dense lines read better thin
			}
			p.Add(l)
			if len(s.X) <= maxDots {
				sc, err := plotter.NewScatter(seg)
				if err != nil {
					return fmt.Errorf("points %q: %w", se.Name, err)
				}
				sc.Color = palette[i]
				sc.Shape = draw.CircleGlyph{}
				sc.Radius = vg.Points(2.5)
				p.Add(sc)
			}
		}
		if se.Name != "" {
			p.Legend.Add(se.Name, legendSwatch{palette[i]})
		}
	}
	p.X.Tick.Marker = labelTicks{x: s.X, labels: s.XLabels, max: 12}
	// Half a step of room at each end, so the first and last labels fit.
	step := (s.X[len(s.X)-1] - s.X[0]) / float64(max(len(s.X)-1, 1))
	p.X.Min, p.X.Max = s.X[0]-step/2, s.X[len(s.X)-1]+step/2
	p.Y.Min, p.Y.Max = yRange(s.Series, false)
	return nil
}

// maxPathPoints bounds one stroked path: the rasterizer under gonum's PNG
// canvas slows down with the square of a path's length (365 points took
// 200 ms as one path), so long lines are drawn as short joined pieces.
const maxPathPoints = 24

// segments splits a series at NULLs, so a gap shows instead of a line
// drawn through a value nobody measured, and cuts long runs into pieces
// of at most maxPathPoints that share their end points.
func segments(x, y []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range x {
		if math.IsNaN(y[i]) {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		if len(cur) == maxPathPoints {
			out = append(out, cur)
			cur = plotter.XYs{cur[len(cur)-1]}
		}
		cur = append(cur, plotter.XY{X: x[i], Y: y[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// addBars draws vertical bars, grouped side by side when there are
// several series; many or long category names turn the chart on its side
// so that the names stay readable.
func addBars(p *plot.Plot, s Spec, grid *plotter.Grid) error {
	horizontal := len(s.XLabels) > 8 || longest(s.XLabels) > 14
	n := len(s.Series)
	// The bars of one category share 80 % of the space between categories.
	width := plotSpan(horizontal, len(s.XLabels)) * 0.8 / vg.Length(n)
	for i, se := range s.Series {
		vals := make(plotter.Values, len(se.Values))
		for j, v := range se.Values {
			if math.IsNaN(v) {
				v = 0 // a missing value has no bar
			}
			if horizontal {
				// Categories run top to bottom in the result's order.
				j = len(vals) - 1 - j
			}
			vals[j] = v
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fmt.Errorf("bars %q: %w", se.Name, err)
		}
		b.Color = palette[i]
		b.LineStyle.Width = 0
		b.Horizontal = horizontal
		b.Offset = (vg.Length(i) - vg.Length(n-1)/2) * width
		if horizontal {
			b.Offset = -b.Offset // the first series on top within a group
		}
		p.Add(b)
		if se.Name != "" {
			p.Legend.Add(se.Name, b)
		}
	}
	lo, hi := yRange(s.Series, true)
	if !horizontal {
		p.NominalX(clipAll(s.XLabels, 16)...)
		p.X.Min, p.X.Max = -0.5, float64(len(s.XLabels))-0.5
		p.Y.Min, p.Y.Max = lo, hi
		return nil
	}
	names := reversed(s.XLabels)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(names))-0.5
	p.X.Min, p.X.Max = lo, hi
	p.X.Tick.Marker = valueTicks{format: s.YFormat.Tick}
	p.X.Label.Text, p.Y.Label.Text = s.YLabel, s.XLabel
	// The grid follows the values, which now run left to right.
	grid.Vertical.Color, grid.Horizontal.Color = grid.Horizontal.Color, nil
	return nil
}

func clipAll(ss []string, n int) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = clip(s, n)
	}
	return out
}

func plotSpan(horizontal bool, n int) vg.Length {
	// Approximate data-area size in points; bar widths are in points.
	w := vg.Length(WidthPx)*vg.Inch/dpi - vg.Points(110)
	h := vg.Length(HeightPx)*vg.Inch/dpi - vg.Points(90)
	if horizontal {
		return h / vg.Length(max(n, 1))
	}
	return w / vg.Length(max(n, 1))
}

func longest(ss []string) int {
	m := 0
	for _, s := range ss {
		m = max(m, len([]rune(s)))
	}
	return m
}

func reversed(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[len(ss)-1-i] = clip(s, 24)
	}
	return out
}

// yRange spans the values with a little room; bars always start at zero
// (a bar's length is its value).
func yRange(series []Series, fromZero bool) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s.Values {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return 0, 1
	}
	if fromZero {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	pad := (hi - lo) * 0.05
	if pad == 0 {
		pad = math.Max(math.Abs(hi)*0.1, 1)
	}
	if !fromZero || lo < 0 {
		lo -= pad
	}
	if !fromZero || hi > 0 {
		hi += pad
	}
	return lo, hi
}

// valueTicks places ticks as gonum's default ticker does and labels them
// as the measure reads ($1.2M, 25%).
type valueTicks struct{ format func(float64) string }

func (t valueTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.format(ticks[i].Value)
		}
	}
	return ticks
}

// labelTicks labels at most max evenly chosen points of the x axis with
// their own labels (dates, months).
type labelTicks struct {
	x      []float64
	labels []string
	max    int
}

func (t labelTicks) Ticks(lo, hi float64) []plot.Tick {
	n := len(t.x)
	step := max(1, int(math.Ceil(float64(n)/float64(t.max))))
	var ticks []plot.Tick
	for i := 0; i < n; i += step {
		ticks = append(ticks, plot.Tick{Value: t.x[i], Label: t.labels[i]})
	}
	return ticks
}

// legendSwatch is a legend entry drawn as a thick line of the series' colour.
type legendSwatch struct{ c color.Color }

func (s legendSwatch) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle{Color: s.c, Width: vg.Points(3)}, c.Min.X, y, c.Max.X, y)
}

// wrapTitle breaks a long explanation into at most maxTitleLines lines
// that each fit (as measured in the title's font), ending with "…" when it
// had to cut.
// fitTitle sets t in the largest of titleSteps' sizes that holds it
// uncut, across the chart's width.
func fitTitle(st text.Style, t string) (string, vg.Length) {
	width := vg.Length(WidthPx)*vg.Inch/dpi - vg.Points(30)
	var out string
	for _, step := range titleSteps {
		st.Font.Size = step.size
		var cut bool
		out, cut = wrapTitleIn(t, step.lines, func(line string) bool { return st.Width(line) <= width })
		if !cut {
			return out, step.size
		}
	}
	return out, st.Font.Size
}

func wrapTitle(t string, fits func(string) bool) string {
	s, _ := wrapTitleIn(t, maxTitleLines, fits)
	return s
}

// wrapTitleIn is wrapTitle with at most maxLines lines; cut says whether
// it had to cut.
func wrapTitleIn(t string, maxLines int, fits func(string) bool) (_ string, cut bool) {
	words := strings.Fields(t)
	var lines []string
	cur := ""
	for _, w := range words {
		next := w
		if cur != "" {
			next = cur + " " + w
		}
		if cur == "" || fits(next) {
			cur = next
			continue
		}
		lines = append(lines, cur)
		cur = w
		if len(lines) == maxLines {
			last := lines[len(lines)-1]
			for last != "" && !fits(last+" …") {
				last = strings.TrimRightFunc(last[:len(last)-1], func(r rune) bool { return r == ' ' || r >= 0x80 })
			}
			lines[len(lines)-1] = last + " …"
			return strings.Join(lines, "\n"), true
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return strings.Join(lines, "\n"), false
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

var _ plot.Ticker = valueTicks{}
var _ plot.Ticker = labelTicks{}
var _ plot.Thumbnailer = legendSwatch{}
