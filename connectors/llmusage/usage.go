// Package llmusage records the language model tokens each question used,
// estimates their cost and enforces daily budgets per user and per
// workspace. It is apart from the model client (connectors/llm) because it
// is storage: the client calls the model, this package keeps the books.
package llmusage

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/clarify-bot/clarify/connectors/llm"
	"github.com/clarify-bot/clarify/internal/kv"
	"github.com/clarify-bot/clarify/internal/kv/boltkv"
)

// File is the usage store's file name inside the data directory.
const File = "usage.db"

// usageVersion is the version of the stored values; bump it when their
// encoding changes.
const usageVersion = 1

var (
	bucketRecords = []byte("records") // time+seq → storedRecord
	bucketDaily   = []byte("daily")   // day \x00 u|w \x00 owner → storedTotals
)

// ErrInUse means another process holds the usage file for longer
// than the lock timeout.
var ErrInUse = errors.New("usage file is locked")

// Price is a model's price in US dollars per million tokens.
type Price struct {
	Prompt, Completion float64
}

// Cost is the price of u.
func (p Price) Cost(u llm.Usage) float64 {
	return (float64(u.PromptTokens)*p.Prompt + float64(u.CompletionTokens)*p.Completion) / 1e6
}

// Budget caps the tokens spent per UTC day; 0 means no cap.
type Budget struct {
	DailyUser, DailyWorkspace int
}

// Options configure a Store.
type Options struct {
	// Timeout bounds the wait for the file lock (default 2s; bbolt would
	// wait forever).
	Timeout time.Duration
	Prices  map[string]Price
	Budget  Budget
	// Retention is how long per-question records are kept (default 90 days).
	Retention time.Duration
	// ReadOnly opens the file for reading only (the `bot usage` command).
	ReadOnly bool
	Now      func() time.Time
	Logger   *slog.Logger
}

// Record is the usage of one question.
type Record struct {
	At time.Time `json:"at"`
	// User and Workspace are owner keys: "slack:T1:U2" and "slack:T1".
	User      string `json:"user"`
	Workspace string `json:"workspace"`
	Warehouse string `json:"warehouse,omitempty"`
	Question  string `json:"question,omitempty"`
	Model     string `json:"model"`

	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens int  `json:"completion_tokens"`
	Calls            int  `json:"calls"`
	Estimated        bool `json:"estimated,omitempty"`
	// Cost is estimated from Options.Prices; Priced is false when the
	// model has no price.
	Cost   float64 `json:"cost_usd"`
	Priced bool    `json:"priced"`
	// Outcome is "ok" or the kind of failure.
	Outcome string `json:"outcome,omitempty"`
}

type storedRecord struct {
	V int    `json:"v"`
	R Record `json:"r"`
}

type storedTotals struct {
	V      int    `json:"v"`
	T      Totals `json:"t"`
	Tokens int    `json:"tokens"`
}

// Totals sum usage over some records.
type Totals struct {
	Key              string  `json:"key"`
	Questions        int     `json:"questions"`
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Cost             float64 `json:"cost_usd"`
	// Unpriced counts questions whose model has no price (their cost is 0).
	Unpriced int `json:"unpriced,omitempty"`
}

// Tokens is prompt plus completion tokens.
func (t Totals) Tokens() int { return t.PromptTokens + t.CompletionTokens }

func (t *Totals) add(r Record) {
	t.Questions++
	t.Calls += r.Calls
	t.PromptTokens += r.PromptTokens
	t.CompletionTokens += r.CompletionTokens
	t.Cost += r.Cost
	if !r.Priced {
		t.Unpriced++
	}
}

// BudgetError says which daily budget is used up. It matches llm.ErrBudget.
type BudgetError struct {
	Scope  string // "user" or "workspace"
	Limit  int
	Used   int
	Resets time.Time
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("daily %s token budget used up: %d of %d tokens", e.Scope, e.Used, e.Limit)
}

// Is makes errors.Is(err, llm.ErrBudget) hold.
func (e *BudgetError) Is(target error) bool { return target == llm.ErrBudget }

// UserMessage words the error for the person who asked.
func (e *BudgetError) UserMessage() string {
	whose := "your"
	if e.Scope == "workspace" {
		whose = "this workspace's"
	}
	return fmt.Sprintf("%s daily language model budget of %s tokens is used up (it resets at %s UTC)", whose, thousands(e.Limit), e.Resets.UTC().Format("15:04"))
}

// Store records the tokens each question used and enforces daily
// budgets, in a bbolt file. The file is opened for each operation and
// closed after it, so that `bot usage` can read it while the bot runs;
// operations of one store are serialised. Usage is written once per
// question, so the cost of opening is negligible next to a model call.
type Store struct {
	path string
	opts Options
	log  *slog.Logger
	mu   sync.Mutex
	// pruned is the UTC day old records were last removed.
	pruned string
	// db is the shared store given to New; nil for a file opened per
	// operation.
	db kv.DB
}

// Open checks that the file can be opened (creating it and its
// buckets unless ReadOnly) and returns the store.
func Open(path string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	s := &Store{path: path, opts: opts, log: opts.Logger}
	if !opts.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("open usage: create directory: %w", err)
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open usage %s: %w", path, err)
	}
	if err := s.with(context.Background(), func(kv.DB) error { return nil }); err != nil {
		return nil, err
	}
	return s, nil
}

// New returns a store on a shared kv store (a server namespace), which it
// closes on Close. name names it in errors.
func New(ctx context.Context, db kv.DB, name string, opts Options) (*Store, error) {
	opts = opts.withDefaults()
	var err error
	if opts.ReadOnly {
		err = kv.CheckVersion(ctx, db, schemaVersion)
	} else {
		err = kv.Prepare(ctx, db, schemaVersion, nil, bucketRecords, bucketDaily)
	}
	if err != nil {
		return nil, fmt.Errorf("open usage %s: %w", name, err)
	}
	return &Store{path: name, opts: opts, log: opts.Logger, db: db}, nil
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	if o.Retention <= 0 {
		o.Retention = 90 * 24 * time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Path is the file's path.
func (s *Store) Path() string { return s.path }

// Close releases a shared store; a file is closed after each operation.
func (s *Store) Close() error {
	if s.db != nil {
		return s.db.Close()
	}
	return nil
}

// schemaVersion is the layout of the usage file (meta "schema").
const schemaVersion = "1"

// with runs fn on the shared store (New) or opens the file, runs fn and
// closes it.
func (s *Store) with(ctx context.Context, fn func(kv.DB) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return fn(s.db)
	}
	db, err := boltkv.Open(s.path, boltkv.Options{Timeout: s.opts.Timeout, ReadOnly: s.opts.ReadOnly})
	if errors.Is(err, boltkv.ErrLocked) {
		return fmt.Errorf("open usage %s: %w after %s", s.path, ErrInUse, s.opts.Timeout)
	}
	if err != nil {
		return fmt.Errorf("open usage %s: %w", s.path, err)
	}
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close usage %s: %w", s.path, cerr)
		}
	}()
	if s.opts.ReadOnly {
		err = kv.CheckVersion(ctx, db, schemaVersion)
	} else {
		err = kv.Prepare(ctx, db, schemaVersion, nil, bucketRecords, bucketDaily)
	}
	if err != nil {
		return fmt.Errorf("open usage %s: %w", s.path, err)
	}
	return fn(db)
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func dailyKey(d, scope, owner string) []byte { return []byte(d + "\x00" + scope + "\x00" + owner) }

// Price returns the configured price of model.
func (s *Store) Price(model string) (Price, bool) {
	p, ok := s.opts.Prices[model]
	return p, ok
}

// Allow returns a *BudgetError (matching llm.ErrBudget) when the user's or
// the workspace's tokens of today reach their daily budget.
func (s *Store) Allow(ctx context.Context, user, workspace string) error {
	b := s.opts.Budget
	if b.DailyUser <= 0 && b.DailyWorkspace <= 0 {
		return nil
	}
	now := s.opts.Now()
	d := day(now)
	resets := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day()+1, 0, 0, 0, 0, time.UTC)
	var usedU, usedW int
	err := s.with(ctx, func(db kv.DB) error {
		return db.View(ctx, func(tx kv.Tx) error {
			bk := tx.Bucket(bucketDaily)
			if bk == nil {
				return nil
			}
			var err error
			if usedU, err = readTokens(bk.Get(dailyKey(d, "u", user))); err != nil {
				return err
			}
			usedW, err = readTokens(bk.Get(dailyKey(d, "w", workspace)))
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("check token budget: %w", err)
	}
	if b.DailyUser > 0 && usedU >= b.DailyUser {
		return &BudgetError{Scope: "user", Limit: b.DailyUser, Used: usedU, Resets: resets}
	}
	if b.DailyWorkspace > 0 && usedW >= b.DailyWorkspace {
		return &BudgetError{Scope: "workspace", Limit: b.DailyWorkspace, Used: usedW, Resets: resets}
	}
	return nil
}

func readTokens(v []byte) (int, error) {
	if v == nil {
		return 0, nil
	}
	var st storedTotals
	if err := json.Unmarshal(v, &st); err != nil {
		return 0, fmt.Errorf("decode daily usage: %w", err)
	}
	if st.V != usageVersion {
		return 0, fmt.Errorf("daily usage has version %d, this build reads %d", st.V, usageVersion)
	}
	return st.Tokens, nil
}

// Record stores one question's usage, pricing it, and adds it to the
// user's and the workspace's totals of the day. Records older than the
// retention are removed once a day.
func (s *Store) Record(ctx context.Context, r Record) error {
	if s.opts.ReadOnly {
		return errors.New("record usage: the store is read-only")
	}
	if r.At.IsZero() {
		r.At = s.opts.Now()
	}
	r.At = r.At.UTC()
	if p, ok := s.opts.Prices[r.Model]; ok {
		r.Cost, r.Priced = p.Cost(llm.Usage{PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens}), true
	}
	if len(r.Question) > 500 {
		r.Question = r.Question[:500]
	}
	d := day(r.At)
	err := s.with(ctx, func(db kv.DB) error {
		return db.Update(ctx, func(tx kv.Tx) error {
			recs := tx.Bucket(bucketRecords)
			seq, err := recs.NextSequence()
			if err != nil {
				return err
			}
			key := make([]byte, 16)
			binary.BigEndian.PutUint64(key, uint64(r.At.UnixNano()))
			binary.BigEndian.PutUint64(key[8:], seq)
			v, err := json.Marshal(storedRecord{V: usageVersion, R: r})
			if err != nil {
				return err
			}
			if err := recs.Put(key, v); err != nil {
				return err
			}
			daily := tx.Bucket(bucketDaily)
			for _, k := range [][]byte{dailyKey(d, "u", r.User), dailyKey(d, "w", r.Workspace)} {
				var st storedTotals
				if old := daily.Get(k); old != nil {
					if err := json.Unmarshal(old, &st); err != nil {
						return fmt.Errorf("decode daily usage: %w", err)
					}
				}
				st.V = usageVersion
				st.T.Key = string(k)
				st.T.add(r)
				st.Tokens = st.T.Tokens()
				b, err := json.Marshal(st)
				if err != nil {
					return err
				}
				if err := daily.Put(k, b); err != nil {
					return err
				}
			}
			if s.pruned != d {
				if err := s.prune(tx, r.At); err != nil {
					return err
				}
				s.pruned = d
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	return nil
}

// prune removes records and daily totals older than the retention.
func (s *Store) prune(tx kv.Tx, now time.Time) error {
	cut := now.Add(-s.opts.Retention)
	limit := make([]byte, 8)
	binary.BigEndian.PutUint64(limit, uint64(cut.UnixNano()))
	// Keys are collected first: deleting under a cursor that then moves
	// on can skip the next key.
	var old [][]byte
	c := tx.Bucket(bucketRecords).Cursor()
	for k, _ := c.First(); k != nil && bytes.Compare(k[:8], limit) < 0; k, _ = c.Next() {
		old = append(old, append([]byte(nil), k...))
	}
	for _, k := range old {
		if err := tx.Bucket(bucketRecords).Delete(k); err != nil {
			return err
		}
	}
	old = old[:0]
	cutDay := []byte(day(cut))
	dc := tx.Bucket(bucketDaily).Cursor()
	for k, _ := dc.First(); k != nil && bytes.Compare(k[:min(len(k), 10)], cutDay) < 0; k, _ = dc.Next() {
		old = append(old, append([]byte(nil), k...))
	}
	for _, k := range old {
		if err := tx.Bucket(bucketDaily).Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Query selects records for a Report.
type Query struct {
	Since time.Time
	// User and Workspace restrict to one owner key each (empty: all).
	User, Workspace string
	// Records lists the matching records too, newest first, at most this many.
	Records int
}

// Report sums usage since a time.
type Report struct {
	Since   time.Time `json:"since"`
	Total   Totals    `json:"total"`
	Users   []Totals  `json:"users"`
	Models  []Totals  `json:"models"`
	Days    []Totals  `json:"days"`
	Records []Record  `json:"records,omitempty"`
}

// Report reads the records matching q.
func (s *Store) Report(ctx context.Context, q Query) (*Report, error) {
	rep := &Report{Since: q.Since.UTC(), Total: Totals{Key: "total"}}
	users, models, days := map[string]*Totals{}, map[string]*Totals{}, map[string]*Totals{}
	bump := func(m map[string]*Totals, key string, r Record) {
		t := m[key]
		if t == nil {
			t = &Totals{Key: key}
			m[key] = t
		}
		t.add(r)
	}
	var recs []Record
	err := s.with(ctx, func(db kv.DB) error {
		return db.View(ctx, func(tx kv.Tx) error {
			bk := tx.Bucket(bucketRecords)
			if bk == nil {
				return nil
			}
			start := make([]byte, 8)
			if !q.Since.IsZero() {
				binary.BigEndian.PutUint64(start, uint64(q.Since.UnixNano()))
			}
			c := bk.Cursor()
			for k, v := c.Seek(start); k != nil; k, v = c.Next() {
				var sr storedRecord
				if err := json.Unmarshal(v, &sr); err != nil {
					return fmt.Errorf("decode usage record: %w", err)
				}
				if sr.V != usageVersion {
					return fmt.Errorf("usage record has version %d, this build reads %d", sr.V, usageVersion)
				}
				r := sr.R
				if q.User != "" && r.User != q.User || q.Workspace != "" && r.Workspace != q.Workspace {
					continue
				}
				rep.Total.add(r)
				bump(users, r.User, r)
				bump(models, r.Model, r)
				bump(days, day(r.At), r)
				if q.Records > 0 {
					recs = append(recs, r)
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("usage report: %w", err)
	}
	flat := func(m map[string]*Totals, byKey bool) []Totals {
		out := make([]Totals, 0, len(m))
		for _, t := range m {
			out = append(out, *t)
		}
		sort.Slice(out, func(i, j int) bool {
			if !byKey && out[i].Tokens() != out[j].Tokens() {
				return out[i].Tokens() > out[j].Tokens()
			}
			return out[i].Key < out[j].Key
		})
		return out
	}
	rep.Users, rep.Models, rep.Days = flat(users, false), flat(models, false), flat(days, true)
	for i, j := 0, len(recs)-1; i < j; i, j = i+1, j-1 {
		recs[i], recs[j] = recs[j], recs[i]
	}
	if len(recs) > q.Records {
		recs = recs[:q.Records]
	}
	rep.Records = recs
	return rep, nil
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
