package ontology

import (
	"fmt"

	"github.com/clarify-bot/clarify/internal/kv"
)

// migrations upgrade older ontology files when they are opened.
var migrations = []kv.Migration{
	// Schema 2: fact targets are typed (record version 2) instead of one
	// "key => token || alts" string.
	{From: "1", To: "2", Run: rewriteFacts},
}

// rewriteFacts re-encodes every fact record in the current record
// version. Keys do not change, so the id index stays valid.
func rewriteFacts(tx kv.Tx) error {
	b := tx.Bucket(bucketFacts)
	type rec struct {
		key []byte
		f   Fact
	}
	var recs []rec
	err := b.ForEach(func(k, v []byte) error {
		f, err := decodeFact(v)
		if err != nil {
			return fmt.Errorf("fact %q: %w", k, err)
		}
		recs = append(recs, rec{key: append([]byte(nil), k...), f: f})
		return nil
	})
	if err != nil {
		return err
	}
	// Write after reading: a cursor must not see its bucket change.
	for _, r := range recs {
		if err := b.Put(r.key, encodeFact(r.f)); err != nil {
			return fmt.Errorf("rewrite fact %s: %w", r.f.ID, err)
		}
	}
	return nil
}
