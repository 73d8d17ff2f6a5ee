package dialog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/clarify-bot/clarify/connectors/warehouse"
)

// Executor runs guarded read-only statements (a *warehouse.DB).
type Executor interface {
	Query(ctx context.Context, statement string, lim warehouse.Limits) (*warehouse.Result, error)
}

// run is the outcome of executing one candidate.
type run struct {
	res *warehouse.Result
	err error
	fp  string
}

// executeAll runs the distinct statements at most parallel at a time, each
// with its own limit, and fingerprints their results.
func executeAll(ctx context.Context, ex Executor, stmts []string, parallel int, lim warehouse.Limits, ordered func(string) bool) map[string]run {
	uniq := map[string]bool{}
	var list []string
	for _, s := range stmts {
		if !uniq[s] {
			uniq[s] = true
			list = append(list, s)
		}
	}
	out := make(map[string]run, len(list))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(parallel, 1))
	for _, s := range list {
		wg.Add(1)
		go func(s string) {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				mu.Lock()
				out[s] = run{err: ctx.Err()}
				mu.Unlock()
				return
			}
			defer func() { <-sem }()
			res, err := ex.Query(ctx, s, lim)
			r := run{res: res, err: err}
			if err == nil {
				r.fp = fingerprint(res, ordered(s))
			}
			mu.Lock()
			out[s] = r
			mu.Unlock()
		}(s)
	}
	wg.Wait()
	return out
}

// fingerprint identifies a result up to what does not change its meaning:
// column names and order, row order unless the query orders its rows, and
// float noise. Candidates with equal fingerprints are one interpretation.
func fingerprint(res *warehouse.Result, ordered bool) string {
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
	if f, ok := warehouse.AsFloat(v); ok {
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
