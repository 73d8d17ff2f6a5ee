package ontology

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// ExportVersion is the version of the export document. Version 1 held
// targets as strings; Import still reads it.
const ExportVersion = 2

// maxImportErrors bounds how many bad facts an import reports.
const maxImportErrors = 20

type exportDoc struct {
	Version    int       `json:"version"`
	ExportedAt time.Time `json:"exported_at"`
	Facts      []Fact    `json:"facts"`
}

// importDoc keeps facts raw so that a type error names the fact's index.
type importDoc struct {
	Version *int              `json:"version"`
	Facts   []json.RawMessage `json:"facts"`
}

// Export writes every fact, active or not, as an indented JSON document
// {"version":2,"exported_at":…,"facts":[…]} in List order. The facts are
// read in one transaction; writing happens after it, so a slow writer does
// not hold the database.
func (s *Store) Export(ctx context.Context, w io.Writer) error {
	facts, err := s.List(ctx, Filter{IncludeInactive: true})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if facts == nil {
		facts = []Fact{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(exportDoc{Version: ExportVersion, ExportedAt: s.clock(), Facts: facts}); err != nil {
		return fmt.Errorf("export: write: %w", err)
	}
	return nil
}

// FactError is a problem with one fact of an import file.
type FactError struct {
	// Index is the fact's position in the "facts" array, from 0.
	Index  int
	Phrase string
	Err    error
}

func (e *FactError) Error() string {
	if e.Phrase != "" {
		return fmt.Sprintf("facts[%d] (%q): %v", e.Index, e.Phrase, e.Err)
	}
	return fmt.Sprintf("facts[%d]: %v", e.Index, e.Err)
}

func (e *FactError) Unwrap() error { return e.Err }

// ImportError is an import that changed nothing because the file, or a
// fact of it, is not valid: Err lists the problems, one a line, naming
// each bad fact (see FactError). It matches ErrInvalid.
type ImportError struct{ Err error }

func (e *ImportError) Error() string { return "import: " + e.Err.Error() }

func (e *ImportError) Unwrap() error { return e.Err }

// Problems are the lines of Err: facts[3] ("texas"): unknown kind "colour".
func (e *ImportError) Problems() []string { return strings.Split(e.Err.Error(), "\n") }

// Import reads an export document and upserts its facts in one
// transaction: a fact whose ID exists replaces it; otherwise one with the
// same (Scope, Owner, Warehouse, Phrase, Kind) is replaced; otherwise it is
// added (keeping its ID when free). Facts identical to the stored ones are
// skipped. Each added or updated fact gets an "import" audit entry.
//
// The whole document is validated first; a malformed one changes nothing
// and the error is an *ImportError (matching ErrInvalid) that names each
// bad fact as facts[i], see FactError. Phrases are normalised; missing times become now; a fact
// with neither confirmations nor rejections counts as confirmed once, so
// a hand-written file yields active facts. Admins only.
func (s *Store) Import(ctx context.Context, r io.Reader, actor Actor) (ImportStats, error) {
	if !actor.Admin {
		return ImportStats{}, fmt.Errorf("import: %s is not an admin: %w", actor.ID, ErrForbidden)
	}
	facts, err := s.parseImport(r)
	if err != nil {
		return ImportStats{}, &ImportError{Err: err}
	}
	var st ImportStats
	err = s.update(ctx, func(tx kv.Tx) error {
		st = ImportStats{}
		for _, f := range facts {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.importOne(tx, f, actor, &st); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, ErrInvalid) {
		return ImportStats{}, &ImportError{Err: err}
	}
	if err != nil {
		return ImportStats{}, fmt.Errorf("import: %w", err)
	}
	s.log.Info("facts imported", "added", st.Added, "updated", st.Updated, "skipped", st.Skipped, "actor", actor.ID)
	return st, nil
}

func (s *Store) parseImport(r io.Reader) ([]Fact, error) {
	dec := json.NewDecoder(r)
	var doc importDoc
	if err := dec.Decode(&doc); err != nil {
		return nil, invalidf("not a Clarify export (malformed JSON: %v)", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalidf("not a Clarify export (data after the document)")
	}
	switch {
	case doc.Version == nil:
		return nil, invalidf("not a Clarify export (no \"version\")")
	case *doc.Version != ExportVersion && *doc.Version != 1:
		return nil, invalidf("export version %d is not supported (this build reads versions 1 and %d)", *doc.Version, ExportVersion)
	}
	now := s.clock()
	facts := make([]Fact, 0, len(doc.Facts))
	var errs []error
	for i, raw := range doc.Facts {
		if len(errs) == maxImportErrors {
			errs = append(errs, fmt.Errorf("… stopped after %d bad facts", maxImportErrors))
			break
		}
		var f Fact
		if err := json.Unmarshal(raw, &f); err != nil {
			errs = append(errs, &FactError{Index: i, Err: invalidf("%v", err)})
			continue
		}
		f.normalize()
		if err := f.validate(); err != nil {
			errs = append(errs, &FactError{Index: i, Phrase: f.Phrase, Err: err})
			continue
		}
		if f.Uses < 0 || f.Confirmations < 0 || f.Rejections < 0 {
			errs = append(errs, &FactError{Index: i, Phrase: f.Phrase, Err: invalidf("negative counter")})
			continue
		}
		if f.Created.IsZero() {
			f.Created = now
		}
		if f.LastUsed.IsZero() {
			f.LastUsed = f.Created
		}
		f.Created, f.LastUsed = f.Created.UTC(), f.LastUsed.UTC()
		if f.Confirmations == 0 && f.Rejections == 0 {
			f.Confirmations = 1
		}
		facts = append(facts, f)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return facts, nil
}

func (s *Store) importOne(tx kv.Tx, f Fact, actor Actor, st *ImportStats) error {
	key := uniqueKey(f)
	var existing *Fact
	if f.ID != "" {
		switch old, err := getFact(tx, f.ID); {
		case err == nil:
			existing = &old
		case !errors.Is(err, ErrNotFound):
			return err
		}
	}
	holder, held, err := getByKey(tx, key)
	if err != nil {
		return err
	}
	if existing == nil && held {
		existing = &holder
		f.ID = holder.ID
	}
	if existing == nil {
		if f.ID == "" {
			id, err := newID(tx)
			if err != nil {
				return err
			}
			f.ID = id
		}
		if err := putFact(tx, f, nil); err != nil {
			return err
		}
		st.Added++
		return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionImport, FactID: f.ID, After: &f})
	}
	if sameFact(*existing, f) {
		st.Skipped++
		return nil
	}
	// Matched by ID but moved to a key another fact holds: the import is
	// authoritative, so the other fact goes.
	if held && holder.ID != f.ID {
		if err := deleteFact(tx, holder); err != nil {
			return err
		}
		if err := s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionImport, FactID: holder.ID, Before: &holder}); err != nil {
			return err
		}
	}
	if err := putFact(tx, f, uniqueKey(*existing)); err != nil {
		return err
	}
	st.Updated++
	return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionImport, FactID: f.ID, Before: existing, After: &f})
}

func sameFact(a, b Fact) bool {
	ta, tb := a, b
	ta.Created, ta.LastUsed, tb.Created, tb.LastUsed = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	ta.Target, tb.Target = Target{}, Target{}
	return reflect.DeepEqual(ta, tb) && a.Target.Equal(b.Target) && a.Created.Equal(b.Created) && a.LastUsed.Equal(b.LastUsed)
}
