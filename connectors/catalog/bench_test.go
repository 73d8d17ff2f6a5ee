package catalog

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// vocab is the vocabulary of the synthetic data; the generators below
// combine it deterministically into realistic-looking names.
type vocab struct {
	entities []string
	attrs    []string
	verbs    []string
	first    []string
	last     []string
	city1    []string
	city2    []string
	states   []string
	adj      []string
	mat      []string
	noun     []string
	suffix   []string
	letters  string
}

func newVocab() *vocab {
	return &vocab{
		entities: strings.Fields(`customer order product invoice shipment supplier employee store
		region campaign payment refund subscription account ticket warehouse inventory vendor
		contract lead opportunity session event page device promotion coupon return review
		category brand department budget forecast delivery carrier route driver vehicle claim
		policy member plan course enrollment patient visit appointment transaction ledger`),
		attrs: strings.Fields(`name status amount total_amount quantity unit_price discount tax
		currency email phone city state country zip score rating notes description start_date
		end_date is_active channel source priority type code version weight height balance
		margin cost revenue title label url reason segment tier locale timezone`),
		verbs: strings.Fields(`created updated shipped paid cancelled closed opened approved delivered returned`),
		first: strings.Fields(`Maria James Wei Fatima Olga Juan Aiko Pierre Amara Lars Priya Diego Chen Noor Sven Lucia Kofi Hana Ivan Zara Mateo Yuki Omar Elena Tariq Ingrid Ravi Sofia Kwame Mila
		John Mary Robert Linda Michael Sarah David Emma Daniel Anna Thomas Laura Paul Julia Mark Nina Peter Clara Simon Alice Hugo Leila Felix Rosa Oscar Irene Victor Marta Samuel Greta`),
		last: strings.Fields(`Gonzalez Smith Zhang Khan Petrova Garcia Tanaka Dubois Okafor Larsen Patel Rossi Lopez Haddad Berg Silva Mensah Sato Ivanov Ali Novak Costa Nguyen Kim Schmidt Moreau Cohen Singh Ortiz Weber
		Johnson Brown Miller Davis Wilson Anderson Taylor Thomas Moore Martin Jackson White Harris Clark Lewis Walker Young Allen King Wright Scott Hill Adams Baker Nelson Carter Mitchell Roberts Turner Phillips`),
		city1:   strings.Fields(`Spring Oak Maple River Lake Green Fair Clear Pine Cedar Rock Silver Sun Elm Ash Bay North West East South`),
		city2:   strings.Fields(`field dale ville ton wood port view burg ford haven ridge brook mont side crest`),
		states:  strings.Fields(`AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY`),
		adj:     strings.Fields(`Ergonomic Rustic Sleek Compact Deluxe Portable Smart Classic Modern Heavy Light Premium Eco Ultra Mini`),
		mat:     strings.Fields(`Steel Wooden Cotton Leather Plastic Granite Bamboo Copper Wool Glass Rubber Linen`),
		noun:    strings.Fields(`Chair Table Lamp Backpack Kettle Blender Jacket Bottle Speaker Monitor Desk Shelf Helmet Wallet Blanket Drill`),
		suffix:  strings.Fields(`Inc LLC Group Logistics Partners Holdings Foods Labs Systems Trading`),
		letters: "ABCDEFGHJKLMNPQRSTUVWXYZ",
	}
}

func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

// syntheticSchema builds a deterministic schema of nTables tables with
// nCols columns each, comments, a few profiled columns, declared foreign
// keys to nearby tables (so the graph is connected but long) and inferred
// joins on top.
func syntheticSchema(nTables, nCols int) *warehouse.Snapshot {
	voc := newVocab()
	r := rand.New(rand.NewPCG(1, 2))
	snap := &warehouse.Snapshot{Schema: warehouse.Schema{Database: "bench"}}
	used := make(map[string]bool)
	for i := range nTables {
		e := pick(r, voc.entities)
		var name string
		switch r.IntN(6) {
		case 0:
			name = e + "s"
		case 1:
			name = e + "_" + pick(r, voc.entities) + "s"
		case 2:
			name = e + "_history"
		case 3:
			name = "stg_" + e + "s"
		case 4:
			name = "dim_" + e
		default:
			name = "fact_" + e + "_daily"
		}
		for used[name] {
			name = fmt.Sprintf("%s_%d", name, i)
		}
		used[name] = true
		camel := r.IntN(10) == 0
		t := warehouse.Table{Name: name, Comment: fmt.Sprintf("One row per %s, loaded nightly from the %s system", e, pick(r, voc.entities))}
		seen := make(map[string]bool)
		for j := 0; len(t.Columns) < nCols; j++ {
			var cname, comment, dtype string
			switch {
			case j == 0:
				cname, dtype = "id", "bigint"
			case j < 4:
				other := pick(r, voc.entities)
				cname, dtype, comment = other+"_id", "bigint", "Foreign key to "+other+"s"
			case j < 6:
				v := pick(r, voc.verbs)
				cname, dtype, comment = v+"_at", "datetime", fmt.Sprintf("When the %s was %s", e, v)
			default:
				a := pick(r, voc.attrs)
				cname, dtype, comment = a, "varchar", fmt.Sprintf("%s of the %s", strings.ReplaceAll(a, "_", " "), e)
				if r.IntN(3) == 0 {
					cname = pick(r, voc.entities) + "_" + a
				}
			}
			if camel {
				cname = toCamel(cname)
			}
			if seen[cname] {
				continue
			}
			seen[cname] = true
			t.Columns = append(t.Columns, warehouse.Column{Table: name, Name: cname, DataType: dtype, Comment: comment, Position: len(t.Columns) + 1})
			if dtype == "varchar" && r.IntN(4) == 0 {
				p := warehouse.Profile{Table: name, Column: cname}
				for range 5 {
					p.Top = append(p.Top, warehouse.ValueCount{Value: pick(r, voc.adj) + " " + pick(r, voc.noun), Count: 10})
				}
				snap.Profiles = append(snap.Profiles, p)
			}
		}
		snap.Schema.Tables = append(snap.Schema.Tables, t)
		if i > 0 {
			to := max(0, i-1-r.IntN(20))
			snap.Schema.Joins = append(snap.Schema.Joins, warehouse.Join{
				FromTable: name, FromColumn: t.Columns[1].Name, ToTable: snap.Schema.Tables[to].Name, ToColumn: "id",
				Declared: true, Confidence: 1,
			})
		}
	}
	for range nTables * 2 {
		a := r.IntN(nTables)
		b := max(0, a-1-r.IntN(60))
		snap.Schema.Joins = append(snap.Schema.Joins, warehouse.Join{
			FromTable: snap.Schema.Tables[a].Name, FromColumn: snap.Schema.Tables[a].Columns[2].Name,
			ToTable: snap.Schema.Tables[b].Name, ToColumn: "id", Confidence: 0.5 + 0.49*r.Float64(),
		})
	}
	return snap
}

func toCamel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] == "id" {
			parts[i] = "ID"
		} else if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// syntheticValues returns n distinct realistic values: people, cities,
// products, SKUs, e-mail addresses and companies.
func syntheticValues(n int) []string {
	voc := newVocab()
	r := rand.New(rand.NewPCG(3, 4))
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	// The kind rotates with every attempt, not every success, so that a
	// kind whose combinations run out cannot stall the loop.
	for attempt := 0; len(out) < n; attempt++ {
		var v string
		switch attempt % 6 {
		case 0:
			v = fmt.Sprintf("%s %c. %s", pick(r, voc.first), voc.letters[r.IntN(len(voc.letters))], pick(r, voc.last))
			if r.IntN(4) == 0 {
				v = pick(r, voc.first) + " " + pick(r, voc.last) + "-" + pick(r, voc.last)
			}
		case 1:
			v = pick(r, voc.city1) + pick(r, voc.city2)
			if r.IntN(2) == 0 {
				v = pick(r, voc.city1) + " " + pick(r, voc.city1) + strings.ToLower(pick(r, voc.city2))
			}
			v += ", " + pick(r, voc.states)
			if r.IntN(3) > 0 {
				v += fmt.Sprintf(" %05d", r.IntN(100000))
			}
		case 2:
			v = fmt.Sprintf("%s %s %s %c%d", pick(r, voc.adj), pick(r, voc.mat), pick(r, voc.noun), voc.letters[r.IntN(len(voc.letters))], r.IntN(1000))
		case 3:
			v = fmt.Sprintf("SKU-%05d-%c%c", r.IntN(100000), voc.letters[r.IntN(len(voc.letters))], voc.letters[r.IntN(len(voc.letters))])
		case 4:
			v = fmt.Sprintf("%s.%s%d@example.com", strings.ToLower(pick(r, voc.first)), strings.ToLower(pick(r, voc.last)), r.IntN(1000))
		default:
			v = fmt.Sprintf("%s %s %s", pick(r, voc.last), pick(r, voc.mat), pick(r, voc.suffix))
			if r.IntN(2) == 0 {
				v = pick(r, voc.last) + " & " + pick(r, voc.last) + " " + pick(r, voc.suffix) + " " + pick(r, voc.city1)
			}
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func buildValueIndex(values []string) *ValueIndex {
	voc := newVocab()
	b := NewValueIndexBuilder()
	for i, v := range values {
		b.Add(fmt.Sprintf("t%03d", i%100), voc.attrs[i%len(voc.attrs)], v)
	}
	b.AddAlias("TX", "Texas")
	return b.Build()
}

func BenchmarkSearchColumns1000Tables(b *testing.B) {
	c := New(syntheticSchema(1000, 20), Options{})
	queries := []string{
		"total revenue by region",
		"when was the invoice paid",
		"customer email",
		"ship date of orders",
		"number of tickets per priority",
		"average rating of products",
		"refund amount last month",
		"employee department budget",
		"campaign channel",
		"which drivers drove which vehicle on each route",
		"customerID",
		"status",
	}
	hits := 0
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		for _, q := range queries {
			hits += len(c.SearchColumns(q, 10))
		}
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(elapsed.Microseconds())/1000/float64(b.N*len(queries)), "ms/search")
	if hits == 0 {
		b.Fatal("no hits: the benchmark measures nothing")
	}
}

func BenchmarkValueIndexBuild1M(b *testing.B) {
	values := syntheticValues(1_000_000)
	var heapMB float64
	for range b.N {
		b.StopTimer()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		x := buildValueIndex(values)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heapMB = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
		if x.Len() != len(values) {
			b.Fatalf("Len = %d, want %d", x.Len(), len(values))
		}
		runtime.KeepAlive(x)
		b.StartTimer()
	}
	b.ReportMetric(heapMB, "heapMB")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/build")
}

// typoOf applies one or two random edits (swap, delete, substitute).
func typoOf(r *rand.Rand, s string, edits int) string {
	rs := []rune(s)
	for range edits {
		i := 1 + r.IntN(len(rs)-2)
		switch r.IntN(3) {
		case 0:
			rs[i], rs[i+1] = rs[i+1], rs[i]
		case 1:
			rs = append(rs[:i], rs[i+1:]...)
		default:
			rs[i] = 'q'
		}
	}
	return string(rs)
}

func BenchmarkSearchValues1M(b *testing.B) {
	values := syntheticValues(1_000_000)
	x := buildValueIndex(values)
	r := rand.New(rand.NewPCG(5, 6))
	const perKind = 200
	kinds := map[string][]string{}
	order := []string{"exact", "lower", "prefix", "typo", "miss"}
	for range perKind {
		v := values[r.IntN(len(values))]
		kinds["exact"] = append(kinds["exact"], v)
		kinds["lower"] = append(kinds["lower"], strings.ToLower(values[r.IntN(len(values))]))
		p := []rune(values[r.IntN(len(values))])
		kinds["prefix"] = append(kinds["prefix"], string(p[:3+r.IntN(3)]))
		t := values[r.IntN(len(values))]
		edits := 1
		if len([]rune(t)) > 9 {
			edits = 2
		}
		kinds["typo"] = append(kinds["typo"], typoOf(r, t, edits))
		miss := make([]byte, 5+r.IntN(10))
		for i := range miss {
			miss[i] = "zqxjkvw"[r.IntN(7)]
		}
		kinds["miss"] = append(kinds["miss"], string(miss))
	}
	for _, k := range order {
		kinds["mix"] = append(kinds["mix"], kinds[k][:perKind/5]...)
	}
	for _, k := range append(order, "mix") {
		qs := kinds[k]
		b.Run(k, func(b *testing.B) {
			found := 0
			var worst time.Duration
			start := time.Now()
			for range b.N {
				for _, q := range qs {
					t0 := time.Now()
					if len(x.Search(q, 10)) > 0 {
						found++
					}
					worst = max(worst, time.Since(t0))
				}
			}
			elapsed := time.Since(start)
			n := float64(b.N * len(qs))
			b.ReportMetric(float64(elapsed.Microseconds())/1000/n, "ms/search")
			b.ReportMetric(float64(worst.Microseconds())/1000, "ms-worst")
			b.ReportMetric(float64(found)/n, "found")
		})
	}
}

func BenchmarkJoinPath1000Tables(b *testing.B) {
	snap := syntheticSchema(1000, 20)
	c := New(snap, Options{})
	name := func(i int) string { return snap.Schema.Tables[i].Name }
	refSets := [][]string{
		{name(0), name(999)},
		{name(5), name(500), name(995)},
		{name(999), name(10), name(333), name(666)},
		{name(250) + ".id", name(750), name(1), name(998)},
	}
	edges := 0
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		for _, refs := range refSets {
			tree, err := c.JoinPath(refs...)
			if err != nil {
				b.Fatal(err)
			}
			edges += len(tree.Edges)
		}
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(elapsed.Microseconds())/1000/float64(b.N*len(refSets)), "ms/path")
	b.ReportMetric(float64(edges)/float64(b.N*len(refSets)), "edges/path")
}
