package dialog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/sqlresult"
)

// Executor runs guarded read-only statements (a *warehouse.DB).
type Executor interface {
	Query(ctx context.Context, statement string, lim sqlresult.Limits) (*sqlresult.Result, error)
}

// resultKeeper is an Executor with a result cache (a *warehouse.DB with
// CacheOptions). Statements it already holds are answered from it rather
// than shared, and the results derived from a shared scan are kept as the
// statements' own, so that the answer and the next round find them.
type resultKeeper interface {
	Holds(statement string, lim sqlresult.Limits) bool
	Remember(statement string, res *sqlresult.Result)
}

// run is the outcome of executing one candidate.
type run struct {
	res *sqlresult.Result
	err error
	fp  string
}

// execOptions say how one round of candidates runs.
type execOptions struct {
	// parallel caps statements running at once.
	parallel int
	// lim bounds each candidate.
	lim sqlresult.Limits
	// shareRows caps the rows of a shared scan (sharedscan.go); zero runs
	// every statement on its own.
	shareRows int
	// ordered reports whether a statement's row order is part of its result.
	ordered func(string) bool
	log     *slog.Logger
}

// executeAll runs the distinct statements at most parallel at a time, each
// with its own limit, and fingerprints their results. Statements that read
// the same rows share one scan when opts allow it; a shared scan that fails
// or reaches its row cap falls back to running its statements one by one.
func executeAll(ctx context.Context, ex Executor, stmts []string, opts execOptions) map[string]run {
	uniq := map[string]bool{}
	var list []string
	for _, s := range stmts {
		if !uniq[s] {
			uniq[s] = true
			list = append(list, s)
		}
	}
	if opts.log == nil {
		opts.log = slog.New(slog.DiscardHandler)
	}
	r := &roundRunner{ctx: ctx, ex: ex, opts: opts, sem: make(chan struct{}, max(opts.parallel, 1)), out: make(map[string]run, len(list))}
	r.keeper, _ = ex.(resultKeeper)
	alone := list
	var scans []sharedScan
	// Without a row cap of its own a candidate's result cannot be cut as
	// the server would cut it.
	if opts.shareRows > 0 && opts.lim.MaxRows > 0 {
		var fresh []string
		alone = nil
		for _, s := range list {
			if r.keeper != nil && r.keeper.Holds(s, opts.lim) {
				alone = append(alone, s)
			} else {
				fresh = append(fresh, s)
			}
		}
		var more []string
		scans, more = planScans(fresh)
		alone = append(alone, more...)
	}
	for _, sc := range scans {
		r.shared(sc)
	}
	for _, s := range alone {
		r.single(s)
	}
	r.wg.Wait()
	return r.out
}

// roundRunner runs the statements of one round on a bounded number of
// connections.
type roundRunner struct {
	ctx    context.Context
	ex     Executor
	keeper resultKeeper
	opts   execOptions
	sem    chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	out    map[string]run
}

func (r *roundRunner) acquire() bool {
	select {
	case r.sem <- struct{}{}:
		return true
	case <-r.ctx.Done():
		return false
	}
}

func (r *roundRunner) set(s string, res *sqlresult.Result, err error) {
	rn := run{res: res, err: err}
	if err == nil {
		rn.fp = fingerprint(res, r.opts.ordered(s))
	}
	r.mu.Lock()
	r.out[s] = rn
	r.mu.Unlock()
}

// single runs one statement as it is.
func (r *roundRunner) single(s string) {
	r.wg.Go(func() {
		if !r.acquire() {
			r.set(s, nil, r.ctx.Err())
			return
		}
		res, err := r.ex.Query(r.ctx, s, r.opts.lim)
		<-r.sem
		r.set(s, res, err)
	})
}

// shared runs a shared scan and derives its members' results; members it
// cannot derive run on their own.
func (r *roundRunner) shared(sc sharedScan) {
	r.wg.Go(func() {
		if !r.acquire() {
			for _, m := range sc.members {
				r.set(m.sql, nil, r.ctx.Err())
			}
			return
		}
		res, err := r.ex.Query(r.ctx, sc.sql, sqlresult.Limits{MaxRows: r.opts.shareRows, Timeout: r.opts.lim.Timeout})
		<-r.sem
		if err == nil && (res.Truncated || len(res.Columns) != sc.width) {
			err = fmt.Errorf("%d rows of %d columns, truncated %t", len(res.Rows), len(res.Columns), res.Truncated)
		}
		if err != nil {
			r.opts.log.Debug("shared scan not used; running its candidates one by one", "sql", sc.sql, "err", err)
			for _, m := range sc.members {
				r.single(m.sql)
			}
			return
		}
		for _, m := range sc.members {
			d, ok := m.derive(res, r.opts.lim.MaxRows)
			if !ok {
				r.opts.log.Debug("candidate not derivable from its shared scan", "sql", m.sql)
				r.single(m.sql)
				continue
			}
			if r.keeper != nil {
				r.keeper.Remember(m.sql, d)
			}
			r.set(m.sql, capped(d, r.opts.lim.MaxRows), nil)
		}
	})
}

// fingerprint identifies a result up to what does not change its meaning:
// column names and order, row order unless the query orders its rows, and
// float noise. Candidates with equal fingerprints are one interpretation.
func fingerprint(res *sqlresult.Result, ordered bool) string {
	rows := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		cells := make([]string, len(r))
		for j, v := range r {
			cells[j] = canonicalCell(v)
		}
		sort.Strings(cells)
		rows[i] = strings.Join(cells, "\x1f")
	}
	if !ordered {
		sort.Strings(rows)
	}
	h := sha256.New()
	h.Write([]byte(strconv.Itoa(len(res.Columns))))
	for _, r := range rows {
		h.Write([]byte{'\x1e'})
		h.Write([]byte(r))
	}
	if res.Truncated {
		h.Write([]byte("\x1dtruncated"))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// canonicalCell prints numbers with 9 significant digits so that 1204.5,
// "1204.50" and 1204.4999999999 read the same.
func canonicalCell(v any) string {
	if v == nil {
		return "\x00"
	}
	if f, ok := sqlresult.AsFloat(v); ok {
		if f == 0 {
			return "0"
		}
		if math.Abs(f) >= 1e15 || f == math.Trunc(f) {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return strconv.FormatFloat(f, 'g', 9, 64)
	}
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// worstError picks the error most worth telling the person about when no
// candidate ran: the warehouse being down beats a timeout beats the rest.
func worstError(errs []error) error {
	rank := func(err error) int {
		switch warehouse.KindOfError(err) {
		case warehouse.KindUnavailable:
			return 5
		case warehouse.KindAccessDenied:
			return 4
		case warehouse.KindTimeout:
			return 3
		case warehouse.KindCanceled:
			return 2
		}
		if errors.Is(err, context.Canceled) {
			return 2
		}
		return 1
	}
	var best error
	for _, e := range errs {
		if e != nil && (best == nil || rank(e) > rank(best)) {
			best = e
		}
	}
	return best
}
