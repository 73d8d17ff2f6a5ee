package ontology

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/internal/kv"
)

// Verify makes a person's confirmed answer (a ConfirmedAnswer, or a
// KindQuery fact of theirs) a verified query of a workspace: a copy at workspace scope for
// owner, with VerifiedBy = by, in one audited transaction. It replaces a
// verified query of the same question there. Admins only.
//
// (Promote then an edit could not set VerifiedBy, and a half-done pair
// would leave an unverified workspace query; hence one method.)
func (s *Store) Verify(ctx context.Context, id, owner, by string, actor Actor) (Fact, error) {
	owner, by = strings.TrimSpace(owner), strings.TrimSpace(by)
	switch {
	case !actor.Admin:
		return Fact{}, fmt.Errorf("verify fact %s: %s is not an admin: %w", id, actor.ID, ErrForbidden)
	case owner == "":
		return Fact{}, invalidf("verify fact %s: owner is required", id)
	case by == "":
		return Fact{}, invalidf("verify fact %s: say who verified it", id)
	}
	now := s.clock()
	var out Fact
	err := s.update(ctx, func(tx kv.Tx) error {
		src, err := getFact(tx, id)
		var confirmed *ConfirmedAnswer
		if errors.Is(err, ErrNotFound) {
			// A confirmed answer (feedback.go) rather than a fact.
			a, cerr := getConfirmed(tx, id)
			if cerr != nil {
				return err
			}
			confirmed, src = &a, a.queryFact()
			src.ID = a.ID
		} else if err != nil {
			return err
		}
		if src.Kind != KindQuery || src.Target.Choice.Kind != TermSQL {
			return invalidf("fact %s is a %s fact, not an answer to verify", id, src.Kind)
		}
		nf, before, err := copyUp(tx, src, ScopeWorkspace, owner, now, func(f *Fact) { f.VerifiedBy, f.Source = by, "" })
		if err != nil {
			return err
		}
		out = nf
		if confirmed != nil {
			confirmed.VerifiedAs = nf.ID
			if err := writeConfirmed(tx, *confirmed); err != nil {
				return err
			}
		}
		return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionPromote, FactID: nf.ID, Before: before, After: &nf, Note: "verified query, verified by " + by}, src.ID)
	})
	if err != nil {
		return Fact{}, fmt.Errorf("verify fact %s for %s: %w", id, owner, err)
	}
	s.log.Info("answer verified", "from", id, "id", out.ID, "owner", owner, "by", by, "actor", actor.ID)
	return out, nil
}
