package demodata

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"
)

// firstOrderID makes order ids look unlike customer and line ids, so a join
// on the wrong column returns nothing instead of plausible nonsense.
const firstOrderID = 100_001

// Yearly price level relative to today's list prices: older order lines were
// sold for less, so quantity × list_price is not the historical revenue.
var priceLevel = map[int]float64{2022: 0.88, 2023: 0.92, 2024: 0.96, 2025: 1.0, 2026: 1.0}

// ordersTables builds orders, order_lines, shipments and refunds.
func (g *gen) ordersTables(n int) []Table {
	r := newRand(g.seed, streamOrders)

	// Order days: one order on the very first day (the launch), the rest
	// spread by growth, seasonality and weekday.
	var dayCum []float64
	var cum float64
	for d := firstOrderDay + 1; d <= asOfDay; d++ {
		cum += orderDayWeight(d)
		dayCum = append(dayCum, cum)
	}
	days := make([]int, n)
	days[0] = firstOrderDay
	for i := 1; i < n; i++ {
		days[i] = firstOrderDay + 1 + pick(dayCum, r.Float64()*cum)
	}
	slices.Sort(days)

	// Customers are sorted by sign-up, so those who may order on day d are
	// a prefix of g.customers.
	custCum := make([]float64, len(g.customers))
	signups := make([]int, len(g.customers))
	cum = 0
	first := -1
	for i, c := range g.customers {
		cum += c.weight
		custCum[i] = cum
		signups[i] = c.signup
		if c.kind == kindFirst {
			first = i
		}
	}
	repsByRegion := map[int][]rep{}
	for _, p := range g.reps { // already in hiring order
		repsByRegion[p.region] = append(repsByRegion[p.region], p)
	}

	orders := Table{Name: "orders", CreateSQL: ordersDDL, Columns: []string{"id", "customer_id", "sales_rep_id",
		"ordered_at", "shipped_at", "ship_state", "status", "gross_amount", "discount_amount", "shipping_fee", "net_amount"}}
	lines := Table{Name: "order_lines", CreateSQL: orderLinesDDL, Columns: []string{"id", "order_id", "product_id",
		"quantity", "unit_price", "line_amount"}}
	shipments := Table{Name: "shipments", CreateSQL: shipmentsDDL, Columns: []string{"id", "order_id", "carrier",
		"shipped_on", "delivered_on"}}
	type refund struct {
		orderID, day int
		amount       int64
		reason       string
	}
	var refunds []refund
	orders.Rows = make([][]any, 0, n)
	lines.Rows = make([][]any, 0, 2*n+n/4)

	var chosen []int
	for i, day := range days {
		orderID := firstOrderID + i
		ci := first
		if i > 0 {
			k := sort.SearchInts(signups, day+1) // customers signed up on or before day
			ci = pick(custCum[:k], r.Float64()*custCum[k-1])
		}
		c := &g.customers[ci]
		shipTo := c.state
		if r.Float64() < c.shipAway {
			shipTo = pick(g.stateCum, r.Float64()*g.stateCum[len(g.stateCum)-1])
		}
		region := states[shipTo].region
		eligible := repsByRegion[region]
		k := sort.Search(len(eligible), func(j int) bool { return eligible[j].hired > day })
		repID := eligible[r.IntN(k)].id
		year := civil(day).Year()
		month := civil(day).Month()

		// Lines.
		nLines := 1
		switch {
		case c.kind == kindFrequent:
		case c.kind == kindWhale:
			nLines = 3 + r.IntN(5)
		case c.segment == "Consumer":
			nLines += b2i(r.Float64() < 0.45) + b2i(r.Float64() < 0.15)
		case c.segment == "Small Business":
			nLines += binomial(r, 3, 0.35)
		default:
			nLines += binomial(r, 5, 0.4)
		}
		chosen = chosen[:0]
		var linesTotal int64
		for len(chosen) < nLines {
			pi := pick(g.productCm, r.Float64()*g.productCm[len(g.productCm)-1])
			p := &g.products[pi]
			if p.neverOrdered || slices.Contains(chosen, pi) {
				continue
			}
			if c.kind == kindFrequent && !p.cheapEveryday {
				continue
			}
			chosen = append(chosen, pi)
			var qty int
			switch {
			case c.kind == kindFrequent:
				qty = 1 + r.IntN(2)
			case c.kind == kindWhale:
				qty = 3 + r.IntN(2*p.maxQty)
			case c.segment == "Consumer":
				qty = 1 + b2i(r.Float64() < 0.3) + b2i(r.Float64() < 0.1)
			case c.segment == "Small Business":
				qty = 1 + r.IntN(max(1, p.maxQty/2))
			default:
				qty = 1 + r.IntN(2*p.maxQty)
			}
			unit := int64(math.Round(float64(p.listCents) * priceLevel[year]))
			amount := int64(qty) * unit
			linesTotal += amount
			lines.Rows = append(lines.Rows, []any{int64(len(lines.Rows) + 1), int64(orderID), int64(p.id),
				int64(qty), cents(unit), cents(amount)})
		}

		// Discounts: contract pricing for enterprises, promo codes for the
		// rest (more of them in November and December).
		var pct int
		switch {
		case c.kind == kindFrequent:
		case c.segment == "Enterprise":
			pct = 10
		case c.segment == "Small Business" && r.Float64() < 0.2:
			pct = 5 * (1 + r.IntN(3))
		case c.segment == "Consumer" && r.Float64() < promoRate(month):
			pct = 10 + 5*r.IntN(3)
		}
		discount := linesTotal * int64(pct) / 100
		shipping := shippingBase[region] + int64(math.Round(float64(linesTotal)*shippingRate[region]))
		gross := linesTotal + shipping
		net := linesTotal - discount

		// Fulfilment. Orders ship 1–10 days after they are placed (longer in
		// the December rush), so late-December orders ship in January.
		status := "delivered"
		shipDay := day + 1 + min(binomial(r, 9, 0.2), 9)
		if month == 12 {
			shipDay += r.IntN(4)
		}
		var shipped, delivered any
		switch {
		case r.Float64() < 0.03:
			status = "cancelled"
		case shipDay > asOfDay:
			status = "placed"
		default:
			shipped = g.date(shipDay)
			carrier := pickCarrier(r)
			deliverDay := shipDay + transitDays(r, carrier, region)
			if deliverDay > asOfDay {
				status = "shipped"
			} else {
				delivered = g.date(deliverDay)
				refundDay := deliverDay + 2 + r.IntN(28)
				switch x := r.Float64(); {
				case refundDay > asOfDay:
				case x < 0.03:
					status = "returned"
					refunds = append(refunds, refund{orderID, refundDay, net,
						refundReasons[1+r.IntN(len(refundReasons)-1)]})
				case x < 0.05:
					// Partial refund for one damaged or late line.
					line := lines.Rows[len(lines.Rows)-1-r.IntN(nLines)]
					amount := min(parseCents(line[5].(string)), net)
					refunds = append(refunds, refund{orderID, refundDay, amount,
						refundReasons[[]int{0, 0, 0, 4}[r.IntN(4)]]})
				}
			}
			shipments.Rows = append(shipments.Rows, []any{int64(len(shipments.Rows) + 1), int64(orderID), carrier, shipped, delivered})
		}
		orders.Rows = append(orders.Rows, []any{int64(orderID), int64(c.id), int64(repID), g.date(day), shipped,
			states[shipTo].code, status, cents(gross), cents(discount), cents(shipping), cents(net)})
	}

	// Refund ids in the order refunds were issued.
	sort.SliceStable(refunds, func(i, j int) bool { return refunds[i].day < refunds[j].day })
	ref := Table{Name: "refunds", CreateSQL: refundsDDL, Columns: []string{"id", "order_id", "refunded_on", "amount", "reason"}}
	for i, f := range refunds {
		ref.Rows = append(ref.Rows, []any{int64(i + 1), int64(f.orderID), g.date(f.day), cents(f.amount), f.reason})
	}
	return []Table{orders, lines, shipments, ref}
}

func promoRate(m time.Month) float64 {
	if m >= time.November {
		return 0.45
	}
	return 0.25
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func binomial(r *rand.Rand, n int, p float64) int {
	k := 0
	for range n {
		if r.Float64() < p {
			k++
		}
	}
	return k
}

func pickCarrier(r *rand.Rand) string {
	x := r.Float64()
	for _, c := range carriers {
		if x < c.weight {
			return c.name
		}
		x -= c.weight
	}
	return carriers[len(carriers)-1].name
}

// transit is each carrier's fastest and slowest delivery in days.
var transit = map[string][2]int{"UPS": {2, 5}, "FedEx": {1, 4}, "USPS": {2, 7}, "DHL": {3, 8}}

func transitDays(r *rand.Rand, carrier string, region int) int {
	span := transit[carrier]
	d := span[0] + r.IntN(span[1]-span[0]+1)
	if region == regionWest {
		d++
	}
	return d
}

func parseCents(s string) int64 {
	var v int64
	for _, ch := range s {
		if ch >= '0' && ch <= '9' {
			v = v*10 + int64(ch-'0')
		}
	}
	return v
}
