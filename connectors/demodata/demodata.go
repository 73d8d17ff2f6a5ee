// Package demodata generates the warehouse that ships with the bot's demo: a
// small office-supply company (regions, states, customers, sales reps,
// products, orders, order lines, shipments, refunds) whose data make common
// questions genuinely ambiguous in the four ways the bot clarifies:
//
//   - which column: "revenue" is net_amount, gross_amount or the sum of
//     order_lines.line_amount (three different numbers); "in 2024" is
//     ordered_at or shipped_at, and late-December orders ship in January;
//   - which output: "list customers" is names only or id, name and email;
//   - what the question means: the customer with the most orders is not the
//     one with the most revenue; the customer who signed up first is not the
//     one who ordered first;
//   - which stored value: Texas is 'Texas' in customers.state and 'TX' in
//     orders.ship_state, and customers do not always ship to their own state.
//
// Everything is derived from a seed with math/rand/v2's PCG, so the same seed
// and size give byte-identical data.
package demodata

import (
	_ "embed"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultSeed and DefaultOrders give the data the demo and questions.jsonl are written against.
const (
	DefaultSeed   uint64 = 20261122
	DefaultOrders        = 100_000
)

// Table is one generated table.
type Table struct {
	Name string
	// CreateSQL is one CREATE TABLE statement (MySQL dialect, utf8mb4, with
	// comments) that works on MariaDB 10.11, MySQL 8 and go-mysql-server.
	CreateSQL string
	Columns   []string
	// Rows hold nil, int64 or string values; DECIMAL values are strings such
	// as "1204.50" (exact, unlike float64) and DATE values are "2024-03-05".
	Rows [][]any
}

// Dataset is a generated warehouse; Tables are in creation order, referenced
// tables before the tables that reference them.
type Dataset struct {
	Tables []Table
}

// Table returns the named table, or nil.
func (ds *Dataset) Table(name string) *Table {
	for i := range ds.Tables {
		if ds.Tables[i].Name == name {
			return &ds.Tables[i]
		}
	}
	return nil
}

//go:embed questions.jsonl
var questionsJSONL []byte

// Questions returns the demo's evaluation questions (questions.jsonl in the
// format of shared/eval/README.md), written against Generate(DefaultSeed,
// DefaultOrders). The caller gets its own copy.
func Questions() []byte { return slices.Clone(questionsJSONL) }

// Time span of the data. asOf is "today" for the generated company: nothing
// ships, arrives or is refunded after it, so recent orders are still open.
var (
	firstOrderDay = dayOf(2022, 1, 1)
	asOfDay       = dayOf(2026, 10, 31)
	waitlistStart = dayOf(2021, 6, 1) // sign-ups opened before the first sale
	firstDateDay  = dayOf(2019, 1, 1) // earliest date any table uses (rep hiring)
)

// Independent random streams, one per concern, so that changing the number
// of orders does not change the customers, products or sales reps.
const (
	streamProducts uint64 = iota + 1
	streamReps
	streamCustomers
	streamOrders
)

func dayOf(y int, m time.Month, d int) int {
	return int(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

func civil(day int) time.Time { return time.Unix(int64(day)*86400, 0).UTC() }

// gen carries the state shared by the table builders.
type gen struct {
	seed      uint64
	dates     []string // "2006-01-02" for day firstDateDay+i, shared by all rows
	stateCum  []float64
	products  []product
	productCm []float64 // cumulative popularity of the products that sell
	reps      []rep
	customers []customer
}

type product struct {
	id, category  int
	name          string
	listCents     int64
	costCents     int64
	maxQty        int
	neverOrdered  bool
	cheapEveryday bool // office, breakroom and cleaning basics: what a café reorders
}

type rep struct {
	id, region, hired int
	name, email       string
}

type customer struct {
	id       int
	name     string
	email    string
	city     string
	state    int // index into states
	segment  string
	signup   int
	weight   float64 // relative order rate
	kind     customerKind
	shipAway float64 // probability that an order ships to another state
}

type customerKind int

const (
	kindNormal   customerKind = iota
	kindFrequent              // most orders, small baskets
	kindWhale                 // fewer but much larger orders: most revenue
	kindFirst                 // placed the very first order
)

func (g *gen) date(day int) string { return g.dates[day-firstDateDay] }

func newRand(seed, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream*0x9e3779b97f4a7c15))
}

// Generate builds the warehouse for seed with the given number of orders
// (DefaultOrders for the demo; at least one). Customers, products and reps
// depend only on the seed, so a smaller demo has the same people.
func Generate(seed uint64, orders int) *Dataset {
	g := &gen{seed: seed}
	for d := firstDateDay; d <= asOfDay+60; d++ {
		g.dates = append(g.dates, civil(d).Format(time.DateOnly))
	}
	var cum float64
	for _, s := range states {
		cum += s.popM * regionAffinity[s.region]
		g.stateCum = append(g.stateCum, cum)
	}
	ds := &Dataset{}
	ds.Tables = append(ds.Tables, g.regionsTable(), g.statesTable(), g.customersTable(), g.repsTable(),
		g.categoriesTable(), g.productsTable())
	ds.Tables = append(ds.Tables, g.ordersTables(max(orders, 1))...)
	return ds
}

// regionAffinity scales state populations into demand. The company ships
// from Ohio and grew up on the West Coast: the West buys almost as much as
// the (larger) South, but pays far more shipping, so gross and net revenue
// rank the two regions differently.
var regionAffinity = [...]float64{regionNortheast: 1.0, regionMidwest: 1.1, regionSouth: 0.85, regionWest: 1.34}

// Shipping fee per region: a base fee plus a share of the merchandise total.
var shippingBase = [...]int64{regionNortheast: 795, regionMidwest: 595, regionSouth: 795, regionWest: 1395}
var shippingRate = [...]float64{regionNortheast: 0.03, regionMidwest: 0.02, regionSouth: 0.03, regionWest: 0.15}

func (g *gen) regionsTable() Table {
	t := Table{Name: "regions", CreateSQL: regionsDDL, Columns: []string{"id", "name"}}
	for id := regionNortheast; id <= regionWest; id++ {
		t.Rows = append(t.Rows, []any{int64(id), regionNames[id]})
	}
	return t
}

func (g *gen) statesTable() Table {
	t := Table{Name: "states", CreateSQL: statesDDL, Columns: []string{"code", "name", "region_id"}}
	for _, s := range states {
		t.Rows = append(t.Rows, []any{s.code, s.name, int64(s.region)})
	}
	return t
}

func (g *gen) categoriesTable() Table {
	t := Table{Name: "categories", CreateSQL: categoriesDDL, Columns: []string{"id", "name"}}
	for i, c := range categories {
		t.Rows = append(t.Rows, []any{int64(i + 1), c.name})
	}
	return t
}

func (g *gen) productsTable() Table {
	r := newRand(g.seed, streamProducts)
	t := Table{Name: "products", CreateSQL: productsDDL, Columns: []string{"id", "name", "category_id", "list_price", "unit_cost"}}
	var cum float64
	for ci, c := range categories {
		everyday := c.name == "Office Supplies" || c.name == "Breakroom" || c.name == "Cleaning"
		for _, item := range c.products {
			// The catalogue price moved by up to 8% either way, ending in .99
			// or .49 like a catalogue.
			dollars := item.price * (0.92 + 0.16*r.Float64())
			list := int64(math.Floor(dollars))*100 + 99
			if dollars > 20 && r.IntN(3) == 0 {
				list -= 50
			}
			list = max(list, 149)
			cost := list * int64(45+r.IntN(26)) / 100
			p := product{id: len(g.products) + 1, category: ci + 1, name: item.name, listCents: list, costCents: cost,
				maxQty: c.maxQty, cheapEveryday: everyday && list < 3000}
			p.neverOrdered = newArrivals[item.name]
			g.products = append(g.products, p)
			// Cheap items sell far more often than expensive ones.
			popularity := math.Exp(r.NormFloat64()*0.7) * math.Pow(float64(list)/100, -0.6)
			if !p.neverOrdered {
				cum += popularity
			}
			g.productCm = append(g.productCm, cum)
			t.Rows = append(t.Rows, []any{int64(p.id), p.name, int64(p.category), cents(p.listCents), cents(p.costCents)})
		}
	}
	return t
}

// repsPerRegion sums to 40.
var repsPerRegion = [...]int{regionNortheast: 8, regionMidwest: 10, regionSouth: 12, regionWest: 10}

func (g *gen) repsTable() Table {
	r := newRand(g.seed, streamReps)
	t := Table{Name: "sales_reps", CreateSQL: salesRepsDDL, Columns: []string{"id", "name", "email", "region_id", "hired_on"}}
	used := map[string]bool{}
	var reps []rep
	for region := regionNortheast; region <= regionWest; region++ {
		for i := range repsPerRegion[region] {
			var hired int
			if i < 2 {
				// Every region has reps from before the first sale.
				hired = dayOf(2019, 3, 1) + r.IntN(dayOf(2021, 11, 1)-dayOf(2019, 3, 1))
			} else {
				hired = dayOf(2019, 3, 1) + r.IntN(dayOf(2025, 12, 1)-dayOf(2019, 3, 1))
			}
			first, last := uniquePerson(r, used)
			reps = append(reps, rep{region: region, hired: hired, name: first + " " + last,
				email: emailLocal(first) + "." + emailLocal(last) + "@bluestemoffice.com"})
		}
	}
	// Ids in hiring order, as an HR system would assign them.
	sort.SliceStable(reps, func(i, j int) bool { return reps[i].hired < reps[j].hired })
	for i := range reps {
		reps[i].id = i + 1
		p := reps[i]
		t.Rows = append(t.Rows, []any{int64(p.id), p.name, p.email, int64(p.region), g.date(p.hired)})
	}
	g.reps = reps
	return t
}

func uniquePerson(r *rand.Rand, used map[string]bool) (first, last string) {
	for {
		first, last = firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
		if !used[first+" "+last] {
			used[first+" "+last] = true
			return first, last
		}
	}
}

var emailReplacer = strings.NewReplacer("é", "e", "ë", "e", "í", "i", "ñ", "n", "'", "", "&", "and", ".", "", ",", "", " ", "")

func emailLocal(s string) string { return strings.ToLower(emailReplacer.Replace(s)) }

const numCustomers = 5000

func (g *gen) customersTable() Table {
	r := newRand(g.seed, streamCustomers)
	n := numCustomers
	// Sign-up days: a waitlist before the first sale, then growth-shaped.
	waitlist := n * 8 / 100
	signups := make([]int, n)
	signups[0] = waitlistStart // the earliest sign-up is unique
	for i := 1; i < waitlist; i++ {
		signups[i] = waitlistStart + 1 + r.IntN(firstOrderDay-waitlistStart-1)
	}
	growth := make([]float64, 0, asOfDay-firstOrderDay+1)
	var cum float64
	for d := firstOrderDay; d <= asOfDay; d++ {
		cum += growthAt(d)
		growth = append(growth, cum)
	}
	for i := waitlist; i < n; i++ {
		signups[i] = firstOrderDay + pick(growth, r.Float64()*cum)
	}
	slices.Sort(signups[1:])

	// Three early (waitlist) customers play special parts; see customerKind.
	special := r.Perm(waitlist - 1)[:3]
	kinds := make([]customerKind, n)
	kinds[1+special[0]] = kindFrequent
	kinds[1+special[1]] = kindWhale
	kinds[1+special[2]] = kindFirst

	usedNames, usedEmails := map[string]bool{}, map[string]bool{}
	t := Table{Name: "customers", CreateSQL: customersDDL,
		Columns: []string{"id", "name", "email", "city", "state", "segment", "signup_date"}}
	var maxWeight float64
	for i := range n {
		c := customer{id: i + 1, signup: signups[i], kind: kinds[i]}
		switch x := r.Float64(); {
		case c.kind == kindFrequent:
			c.segment = "Small Business"
		case c.kind == kindWhale:
			c.segment = "Enterprise"
		case x < 0.60:
			c.segment = "Consumer"
		case x < 0.90:
			c.segment = "Small Business"
		default:
			c.segment = "Enterprise"
		}
		c.state = pick(g.stateCum, r.Float64()*g.stateCum[len(g.stateCum)-1])
		switch c.kind {
		case kindFrequent:
			c.state = stateIndex("OH")
		case kindWhale:
			c.state = stateIndex("MA")
		}
		cities := states[c.state].cities
		// The first city of a state is its largest: weight it up.
		if r.IntN(3) == 0 {
			c.city = cities[0]
		} else {
			c.city = cities[r.IntN(len(cities))]
		}
		c.name, c.email = customerName(r, c.segment, usedNames, usedEmails)
		segFactor := map[string]float64{"Consumer": 0.6, "Small Business": 1.4, "Enterprise": 3}[c.segment]
		c.weight = math.Exp(r.NormFloat64()*0.6) * segFactor
		if r.IntN(100) < 7 && c.kind == kindNormal && i > 0 {
			c.weight = 0 // signed up, never ordered
		}
		c.shipAway = map[string]float64{"Consumer": 0.08, "Small Business": 0.10, "Enterprise": 0.30}[c.segment]
		maxWeight = max(maxWeight, c.weight)
		g.customers = append(g.customers, c)
		t.Rows = append(t.Rows, []any{int64(c.id), c.name, c.email, c.city, states[c.state].name, c.segment, g.date(c.signup)})
	}
	for i := range g.customers {
		c := &g.customers[i]
		switch c.kind {
		case kindFrequent:
			c.weight, c.shipAway = 1.6*maxWeight, 0
		case kindWhale:
			c.weight, c.shipAway = 0.6*maxWeight, 0
		}
	}
	return t
}

func stateIndex(code string) int {
	for i, s := range states {
		if s.code == code {
			return i
		}
	}
	panic("demodata: unknown state " + code)
}

func customerName(r *rand.Rand, segment string, usedNames, usedEmails map[string]bool) (name, email string) {
	var local, domain string
	for {
		switch segment {
		case "Consumer":
			first, last := firstNames[r.IntN(len(firstNames))], lastNames[r.IntN(len(lastNames))]
			name = first + " " + last
			local, domain = emailLocal(first)+"."+emailLocal(last), emailDomains[r.IntN(len(emailDomains))]
		case "Small Business":
			trade := smallBusinessTrades[r.IntN(len(smallBusinessTrades))]
			if r.IntN(3) == 0 {
				name = lastNames[r.IntN(len(lastNames))] + " " + trade
			} else {
				name = companyWords[r.IntN(len(companyWords))] + " " + trade
			}
			local, domain = []string{"info", "office", "hello", "orders"}[r.IntN(4)], emailLocal(name)+".com"
		default:
			base := companyWords[r.IntN(len(companyWords))] + " " + enterpriseIndustries[r.IntN(len(enterpriseIndustries))]
			name = base + " " + enterpriseSuffixes[r.IntN(len(enterpriseSuffixes))]
			local, domain = []string{"purchasing", "procurement", "ap", "facilities"}[r.IntN(4)], emailLocal(base)+".com"
		}
		if !usedNames[name] {
			break
		}
	}
	usedNames[name] = true
	email = local + "@" + domain
	for k := 2; usedEmails[email]; k++ {
		email = local + strconv.Itoa(k) + "@" + domain
	}
	usedEmails[email] = true
	return name, email
}

// growthAt is the relative business volume on day d: steady growth since
// the first sale.
func growthAt(d int) float64 {
	years := float64(d-firstOrderDay) / 365.25
	return 1 + 0.5*years
}

// seasonality by month: January restocking, back-to-school in August and
// September, and a strong November–December (year-end budgets, holidays).
var seasonality = [...]float64{0, 1.05, 0.9, 1.0, 0.95, 0.95, 0.9, 0.85, 1.15, 1.1, 1.0, 1.25, 1.4}

func orderDayWeight(d int) float64 {
	t := civil(d)
	w := growthAt(d) * seasonality[t.Month()]
	switch t.Weekday() {
	case time.Saturday:
		w *= 0.45
	case time.Sunday:
		w *= 0.35
	}
	if t.Month() == time.December && t.Day() >= 24 && t.Day() <= 26 {
		w *= 0.3
	}
	return w
}

// pick returns the first index whose cumulative weight exceeds u.
func pick(cum []float64, u float64) int {
	i := sort.SearchFloat64s(cum, u)
	for i < len(cum)-1 && cum[i] <= u {
		i++
	}
	return min(i, len(cum)-1)
}

// cents formats an amount in cents as a DECIMAL literal.
func cents(c int64) string {
	neg := c < 0
	if neg {
		c = -c
	}
	s := strconv.FormatInt(c/100, 10) + "." + strconv.FormatInt(100+c%100, 10)[1:]
	if neg {
		return "-" + s
	}
	return s
}
