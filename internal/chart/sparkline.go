package chart

import (
	"math"
	"strings"
)

var sparks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws values as one line of block characters, at most width
// of them (longer series are averaged into buckets); NULLs are spaces.
func Sparkline(values []float64, width int) string {
	if width <= 0 {
		width = 60
	}
	vs := bucket(values, width)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if !math.IsNaN(v) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	var b strings.Builder
	for _, v := range vs {
		switch {
		case math.IsNaN(v):
			b.WriteByte(' ')
		case hi == lo:
			b.WriteRune(sparks[len(sparks)/2])
		default:
			i := int(math.Round((v - lo) / (hi - lo) * float64(len(sparks)-1)))
			b.WriteRune(sparks[i])
		}
	}
	return b.String()
}

// bucket averages values into at most n buckets, ignoring NULLs.
func bucket(values []float64, n int) []float64 {
	if len(values) <= n {
		return values
	}
	out := make([]float64, n)
	for i := range out {
		from, to := i*len(values)/n, (i+1)*len(values)/n
		sum, k := 0.0, 0
		for _, v := range values[from:to] {
			if !math.IsNaN(v) {
				sum += v
				k++
			}
		}
		out[i] = math.NaN()
		if k > 0 {
			out[i] = sum / float64(k)
		}
	}
	return out
}
