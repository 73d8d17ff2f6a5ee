package warehouse

import "time"

// QueryEvent describes one statement that the guard refused or that went
// to the server (answers from the cache are not reported: they cost the
// warehouse nothing). Err is nil on success; KindOfError classifies it.
type QueryEvent struct {
	// Elapsed is the time from asking for a connection to the last row
	// read; zero when the guard refused the statement.
	Elapsed time.Duration
	Rows    int
	Err     error
}

// observe reports ev to Config.OnQuery, if set.
func (w *DB) observe(ev QueryEvent) {
	if w.cfg.OnQuery != nil {
		w.cfg.OnQuery(ev)
	}
}
