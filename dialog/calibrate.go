package dialog

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/clarify-bot/clarify/dialog/sqlshape"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/internal/sqlscan"
)

// Calibrated stopping. A model's samples are votes, not probabilities:
// four of five samples agreeing on a reading is strong evidence from a
// model that is right most of the time, and weak evidence from one that
// is right on fewer than half of its samples, because a model's mistakes
// cluster (the same dropped filter, the same wrong column, again and
// again). So the probability of each interpretation is computed from a
// small generative model of sampling:
//
//   - each sample is the meant reading with probability q, the model's
//     accuracy on this question; q is not known, so it is integrated over
//     a prior that the manager learns from the agreement of the model's
//     samples on earlier questions (empirical Bayes: how the votes split,
//     question after question, says how often the model is right);
//   - the wrong samples cluster like draws from a Chinese restaurant
//     process with concentration errorSpread (Ewens' sampling formula);
//   - the meant reading may be none of the sampled ones.
//
// Each interpretation g is a hypothesis "g is meant", and one more is
// "none of them is": their likelihoods are q^c(g)·(1−q)^(n−c(g)) times the
// chance of the other samples' clusters, and (1−q)^n times the chance of
// all clusters. Evidence that does not come from the votes multiplies
// these: the offline engine's reading landing in the same interpretation
// (pooling, flow.go), and the words of the question a reading leaves out
// or the columns it brings in that no word names. The probability of
// "none" stays in the belief: it is what a confirmation question or
// "none of these" resolves, and it keeps the stop honest.

const (
	// qGrid is how finely the model's accuracy q is integrated.
	qGrid = 40
	// errorSpread is the concentration of wrong samples: the chance that
	// the second wrong sample repeats the first is 1/(1+errorSpread).
	errorSpread = 2.0
	// historyDecay weighs earlier questions' votes less, so that the
	// learned accuracy follows the model as it is now.
	historyDecay = 0.97
	// ownShare mixes a flat prior into the learned one: questions differ
	// in difficulty, and this one's votes must be able to say so.
	ownShare = 0.25
	// offlineLift is how much more likely an interpretation is when the
	// offline engine's reading (one that uses every word of the question)
	// lands in it: the engines err differently, so their agreement is rare
	// by chance.
	offlineLift = 3.0
	// offlineFinds is the share of "none of the sampled readings" that
	// the offline engine's own readings stand for.
	offlineFinds = 0.3
	// evidenceCost is the factor per word of the question a reading
	// leaves out, or column it uses that no word names, beyond the best
	// reading's: e^-evidenceCost.
	evidenceCost = 0.7
	// pickKeepsNone is how much of the "none of them" belief survives the
	// person picking an option: their answer agrees with some reading,
	// which is evidence that one of them is meant.
	pickKeepsNone = 0.5
)

// calibrator learns how often the model's samples are right from how they
// agree, question after question. It is the manager's (one per
// warehouse) and safe for concurrent use.
type calibrator struct {
	mu sync.Mutex
	// logLik[i] is the decayed sum over earlier questions of log P(votes | q_i).
	logLik [qGrid]float64
	// seen is the decayed number of questions observed.
	seen float64
}

// qAt is the i-th grid point of the model's accuracy.
func qAt(i int) float64 { return (float64(i) + 0.5) / qGrid }

// prior is the belief about this question's q: the accuracy learned from
// earlier questions (from a Beta(2,2) start) mixed with a flat prior.
func (c *calibrator) prior() [qGrid]float64 {
	c.mu.Lock()
	ll := c.logLik
	c.mu.Unlock()
	var out [qGrid]float64
	best := math.Inf(-1)
	for i := range out {
		q := qAt(i)
		ll[i] += math.Log(q * (1 - q)) // Beta(2,2)
		best = max(best, ll[i])
	}
	var total float64
	for i := range out {
		out[i] = math.Exp(ll[i] - best)
		total += out[i]
	}
	for i := range out {
		out[i] = (1-ownShare)*out[i]/total + ownShare/qGrid
	}
	return out
}

// observe adds one question's votes to what is known of the model.
func (c *calibrator) observe(votes, wrong []float64) {
	if sum(votes)+sum(wrong) < 2 {
		return // one sample says nothing about agreement
	}
	var ll [qGrid]float64
	cl := newClusters(votes, wrong)
	for i := range ll {
		var t float64
		for _, h := range cl.at(qAt(i)) {
			t += h
		}
		ll[i] = math.Log(max(t, 1e-300))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.logLik {
		c.logLik[i] = historyDecay*c.logLik[i] + ll[i]
	}
	c.seen = historyDecay*c.seen + 1
}

// accuracy is the learned mean of q, for logs and tests.
func (c *calibrator) accuracy() float64 {
	p := c.prior()
	var m float64
	for i, w := range p {
		m += w * qAt(i)
	}
	return m
}

func sum(xs []float64) float64 {
	var n float64
	for _, x := range xs {
		n += x
	}
	return n
}

// ewens is the probability of one sequence of samples falling into
// clusters of the given sizes, under a Chinese restaurant process with
// concentration errorSpread: a^k·Γ(a)/Γ(a+m)·∏Γ(size). Sizes may be
// fractional (a reading standing for part of a sample).
func ewens(sizes []float64) float64 {
	a := errorSpread
	var m, l float64
	for _, s := range sizes {
		if s <= 0 {
			continue
		}
		g, _ := math.Lgamma(s)
		l += math.Log(a) + g
		m += s
	}
	ga, _ := math.Lgamma(a)
	gam, _ := math.Lgamma(a + m)
	return math.Exp(l + ga - gam)
}

// clusters is what the likelihoods of one round's hypotheses need that
// does not depend on q: the votes, the total, and for each hypothesis the
// chance of the other samples' clusters (Ewens).
type clusters struct {
	votes []float64
	n     float64
	// rest[g] for "g is meant", rest[len(votes)] for "none of them".
	rest []float64
}

func newClusters(votes, wrong []float64) clusters {
	c := clusters{votes: votes, n: sum(votes) + sum(wrong), rest: make([]float64, len(votes)+1)}
	all := append(slices.Clone(wrong), votes...)
	for g, v := range votes {
		if v <= 0 {
			continue
		}
		others := slices.Delete(slices.Clone(all), len(wrong)+g, len(wrong)+g+1)
		c.rest[g] = ewens(others)
	}
	c.rest[len(votes)] = ewens(all)
	return c
}

// at are the likelihoods, at accuracy q, of "reading g is meant" for each
// g with votes, and (last) of "none of them is".
func (c clusters) at(q float64) []float64 {
	out := make([]float64, len(c.votes)+1)
	for g, v := range c.votes {
		if v > 0 {
			out[g] = math.Pow(q, v) * math.Pow(1-q, c.n-v) * c.rest[g]
		}
	}
	out[len(c.votes)] = math.Pow(1-q, c.n) * c.rest[len(c.votes)]
	return out
}

// voteBelief is P(g is meant | votes) for each g, and (last) P(none),
// with q integrated over prior.
func voteBelief(votes, wrong []float64, prior [qGrid]float64) []float64 {
	c := newClusters(votes, wrong)
	out := make([]float64, len(votes)+1)
	var total float64
	for i, w := range prior {
		for g, h := range c.at(qAt(i)) {
			out[g] += w * h
			total += w * h
		}
	}
	if total <= 0 {
		out[len(votes)] = 1
		return out
	}
	for g := range out {
		out[g] /= total
	}
	return out
}

// groupEvidence is what is known of one interpretation besides votes.
type groupEvidence struct {
	votes float64
	// offline is the offline engine's prior mass (of readings that use
	// every word) in the interpretation, in [0, 1].
	offline float64
	// unexplained is the fewest words left out plus columns nobody named
	// among its readings.
	unexplained int
}

// belief combines votes and evidence into P(g) for each interpretation
// and P(none), summing to 1.
func belief(groups []groupEvidence, wrong []float64, prior [qGrid]float64) ([]float64, float64) {
	votes := make([]float64, len(groups))
	for i, g := range groups {
		votes[i] = g.votes
	}
	vb := voteBelief(votes, wrong, prior)
	none := vb[len(groups)]
	best := math.MaxInt
	var offlineOnly float64
	for _, g := range groups {
		best = min(best, g.unexplained)
		if g.votes == 0 {
			offlineOnly += g.offline
		}
	}
	w := make([]float64, len(groups))
	total := none
	if offlineOnly > 0 {
		// The offline engine's own readings stand for part of "none".
		total = none * (1 - offlineFinds)
	}
	for i, g := range groups {
		cost := math.Exp(-evidenceCost * float64(g.unexplained-best))
		switch {
		case g.votes > 0:
			w[i] = vb[i] * (1 + offlineLift*g.offline) * cost
		case offlineOnly > 0:
			w[i] = none * offlineFinds * g.offline / offlineOnly * cost
		}
		total += w[i]
	}
	if total <= 0 {
		return w, 1
	}
	for i := range w {
		w[i] /= total
	}
	rest := none
	if offlineOnly > 0 {
		rest = none * (1 - offlineFinds)
	}
	return w, rest / total
}

// calibrate replaces the priors of a sampled round's candidates with the
// calibrated belief: each interpretation's probability shared among its
// readings (a model reading by its votes, a pooled offline reading by a
// little of its own prior), and the belief that none is meant in st.None.
// learn adds the round's votes to what the manager knows of the model.
func (m *Manager) calibrate(st *convState, samples int, learn bool) {
	idx := map[int]int{}
	var groups []groupEvidence
	var wrong []float64
	var offlineTotal float64
	for _, c := range st.Candidates {
		if c.Source != "" && c.Group >= 0 && c.ElimBy.IsZero() {
			offlineTotal += c.Own
		}
	}
	for _, c := range st.Candidates {
		if !c.ElimBy.IsZero() {
			continue
		}
		if c.Group < 0 {
			if c.Votes > 0 {
				wrong = append(wrong, c.Votes)
			}
			continue
		}
		i, ok := idx[c.Group]
		if !ok {
			i = len(groups)
			idx[c.Group] = i
			groups = append(groups, groupEvidence{unexplained: math.MaxInt})
		}
		g := &groups[i]
		if c.Source == "" {
			g.votes += c.Votes
		} else if len(c.Unused) == 0 && offlineTotal > 0 {
			g.offline += c.Own / offlineTotal
		}
		g.unexplained = min(g.unexplained, len(c.Unused)+len(c.Unlinked))
	}
	var votes []float64
	cast := 0.0
	for _, g := range groups {
		if g.votes > 0 {
			votes = append(votes, g.votes)
			cast += g.votes
		}
	}
	if len(votes) == 0 {
		return
	}
	for _, w := range wrong {
		cast += w
	}
	// Samples the engine could not use at all (no SQL, refused, failing
	// after repairs) are mistakes of their own.
	for ; cast+1 <= float64(samples)+1e-9; cast++ {
		wrong = append(wrong, 1)
	}
	p, none := belief(groups, wrong, m.cal.prior())
	weight := func(c candState) float64 {
		if c.Source == "" {
			return c.Votes + 1e-3*c.Own
		}
		return 1e-3 * c.Own
	}
	within := map[int]float64{}
	for _, c := range st.Candidates {
		if c.Group >= 0 && c.ElimBy.IsZero() {
			within[c.Group] += weight(c)
		}
	}
	for i := range st.Candidates {
		c := &st.Candidates[i]
		if c.Group < 0 || !c.ElimBy.IsZero() || within[c.Group] <= 0 {
			continue
		}
		c.Prior = max(p[idx[c.Group]]*weight(*c)/within[c.Group], 1e-9)
	}
	st.None, st.Calibrated = none, true
	if learn {
		m.cal.observe(votes, wrong)
	}
	m.log.Debug("calibrated", "question", st.Question, "votes", votes, "none", none, "accuracy", m.cal.accuracy())
}

// picked updates the belief in "none of them" when the person picks an
// option of the question about key: picking a whole reading (whole, or
// saying "yes, that's it") settles it; picking a part makes it less likely.
func (st *convState) picked(key sqlshape.SlotKey, whole bool) {
	if whole || key == choiceKey || key == confirmKey {
		st.None = 0
		return
	}
	st.Picks++
}

// noneMass is the belief that none of the live readings is meant, next to
// their priors.
func (st *convState) noneMass() float64 {
	return st.None * math.Pow(pickKeepsNone, float64(st.Picks))
}

// entropy is H over the live interpretations and "none of them", in bits.
func (st *convState) entropy() float64 {
	w := map[any]float64{}
	for _, i := range st.live() {
		w[st.Candidates[i].Group] += st.Candidates[i].Prior
	}
	if n := st.noneMass(); n > 0 {
		w["none"] = n
	}
	return entropy(w)
}

// sampledGroups counts the interpretations of the main engine's readings.
func sampledGroups(st *convState) int {
	gs := map[int]bool{}
	for _, c := range st.Candidates {
		if c.Group >= 0 && c.Source == "" {
			gs[c.Group] = true
		}
	}
	return len(gs)
}

// emptyBeside reports whether interpretation g finds nothing while another
// live one finds rows.
func (st *convState) emptyBeside(g int) bool {
	empty, other := false, false
	for _, i := range st.live() {
		c := st.Candidates[i]
		if c.Group == g {
			empty = empty || c.Empty
		} else if !c.Empty {
			other = true
		}
	}
	return empty && other
}

// wordsBeside reports, for a calibrated belief, whether interpretation g
// leaves out a value the question names — a word or number another
// interpretation's model reading compares with — however unlikely that
// reading: an answer about all states to "what states border hawaii" is
// a caveat a question avoids. (Other words left out are weighed in the
// belief; the offline engine's readings account for words their own way.)
func (st *convState) wordsBeside(g int) bool {
	if !st.Calibrated {
		return false
	}
	var left []string
	first := true
	for _, i := range st.live() {
		c := st.Candidates[i]
		if c.Group != g || c.Source != "" {
			continue
		}
		// The group's best-explained reading speaks for it.
		if first || len(c.Unused) < len(left) {
			left, first = c.Unused, false
		}
	}
	if len(left) == 0 {
		return false
	}
	for _, i := range st.live() {
		c := st.Candidates[i]
		if c.Group == g || c.Source != "" {
			continue
		}
		lits := sqlLiterals(c.SQL)
		for _, w := range left {
			lw := strings.ToLower(w)
			if !slices.Contains(c.Unused, w) && slices.ContainsFunc(lits, func(l string) bool { return strings.Contains(l, lw) }) {
				return true
			}
		}
	}
	return false
}

// sqlLiterals lists the string literals (their values, lower-cased) and
// the numbers of a statement, in order, read as the server reads them:
// quoted names and comments hold neither.
func sqlLiterals(sql string) []string {
	var out []string
	sc := &sqlscan.Scanner{Src: sql, Mode: sqlscan.MySQL}
	for t := range sc.All() {
		switch i, c := t.Start, sql[t.Start]; {
		case t.Kind == sqlscan.Quoted:
			if v, end := sqlscan.String(sql, i, sqlscan.MySQL); end > i {
				out = append(out, strings.ToLower(v))
				sc.Pos = end
			}
		case t.Kind == sqlscan.Code && c >= '0' && c <= '9' && (i == 0 || !isIdent(sql[i-1])):
			j := i
			for j < len(sql) && (sql[j] >= '0' && sql[j] <= '9' || sql[j] == '.') {
				j++
			}
			if j == len(sql) || !isIdent(sql[j]) {
				out = append(out, sql[i:j])
			}
			sc.Pos = j
		}
	}
	return out
}

func isIdent(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// emptyResult reports whether a result has no rows or only NULLs (an
// aggregate over no rows).
func emptyResult(res *sqlresult.Result) bool {
	for _, row := range res.Rows {
		for _, v := range row {
			if v != nil {
				return false
			}
		}
	}
	return true
}

// readingKey is the canonical form of a reading: its slots, in key order.
func readingKey(slots sqlshape.Slots) string {
	keys := make([]string, 0, len(slots))
	vals := map[string]string{}
	for k, v := range slots {
		if v.IsEmpty() {
			continue
		}
		ks := k.String()
		keys = append(keys, ks)
		vals[ks] = v.String()
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + vals[k] + "\x1e")
	}
	return b.String()
}
