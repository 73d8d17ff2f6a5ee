package lexicon

import (
	"runtime"
	"testing"
)

// benchWords mixes question words and schema words: regular and irregular
// inflections, phrases, and words WordNet lacks.
var benchWords = []string{
	"operating", "Operational", "ran", "weighs", "children", "stations", "paid",
	"countries", "pounds", "league", "payson", "the", "power station", "customer",
	"salary", "located", "border", "flows", "population", "highest",
}

// BenchmarkLoad measures decoding the embedded data; heap-MB is the live
// heap the Lexicon keeps after a collection.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	var heap float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		l, err := Load()
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		runtime.KeepAlive(l)
	}
	b.ReportMetric(heap, "heap-MB")
	b.ReportMetric(float64(len(embedded))/(1<<20), "embedded-MB")
}

// benchPerWord runs f on every bench word and reports the time per word.
func benchPerWord(b *testing.B, f func(l *Lexicon, word string) int) {
	l := MustLexicon(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, w := range benchWords {
			n += f(l, w)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWords)), "ns/word")
	b.ReportMetric(float64(n)/float64(b.N*len(benchWords)), "results/word")
}

func BenchmarkLemmas(b *testing.B) {
	benchPerWord(b, func(l *Lexicon, w string) int { return len(l.Lemmas(w)) })
}

func BenchmarkLemmasAndRelated(b *testing.B) {
	benchPerWord(b, func(l *Lexicon, w string) int { return len(l.Lemmas(w)) + len(l.Related(w)) })
}

func BenchmarkRelatedTo(b *testing.B) {
	benchPerWord(b, func(l *Lexicon, w string) int {
		if l.RelatedTo(w, "operation") {
			return 1
		}
		return 0
	})
}

func BenchmarkMostlyVerb(b *testing.B) {
	benchPerWord(b, func(l *Lexicon, w string) int {
		if l.MostlyVerb(w) {
			return 1
		}
		return 0
	})
}
