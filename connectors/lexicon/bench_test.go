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

func BenchmarkLemmas(b *testing.B) {
	l := MustLexicon(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, w := range benchWords {
			n += len(l.Lemmas(w))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWords)), "ns/word")
}

func BenchmarkLemmasAndRelated(b *testing.B) {
	l := MustLexicon(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, w := range benchWords {
			n += len(l.Lemmas(w)) + len(l.Related(w))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWords)), "ns/word")
}

func BenchmarkRelatedTo(b *testing.B) {
	l := MustLexicon(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, w := range benchWords {
			if l.RelatedTo(w, "operation") {
				n++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWords)), "ns/pair")
}

func BenchmarkMostlyVerb(b *testing.B) {
	l := MustLexicon(b)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, w := range benchWords {
			if l.MostlyVerb(w) {
				n++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchWords)), "ns/word")
}
