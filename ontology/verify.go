package ontology

import (
	"context"
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/internal/kv"
)

// Verify makes a person's confirmed answer (a KindQuery fact they marked
// correct) a verified query of a workspace: a copy at workspace scope for
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
		if err != nil {
			return err
		}
		if src.Kind != KindQuery || src.Target.Choice.Kind != TermSQL {
			return invalidf("fact %s is a %s fact, not an answer to verify", id, src.Kind)
		}
		nf := src
		nf.Scope, nf.Owner, nf.PromotedFrom, nf.VerifiedBy, nf.Source = ScopeWorkspace, owner, src.ID, by, ""
		nf.Created, nf.LastUsed = now, now
		nf.Uses, nf.Confirmations, nf.Rejections = 0, 1, 0
		if err := nf.validate(); err != nil {
			return err
		}
		key := uniqueKey(nf)
		var before *Fact
		old, found, err := getByKey(tx, key)
		if err != nil {
			return err
		}
		if found {
			before = &old
			nf.ID, nf.Created = old.ID, old.Created
		} else if nf.ID, err = newID(tx); err != nil {
			return err
		}
		if err := putFact(tx, nf, key); err != nil {
			return err
		}
		out = nf
		return s.audit(tx, AuditEntry{Actor: actor.ID, Action: ActionPromote, FactID: nf.ID, Before: before, After: &nf, Note: "verified query, verified by " + by}, src.ID)
	})
	if err != nil {
		return Fact{}, fmt.Errorf("verify fact %s for %s: %w", id, owner, err)
	}
	s.log.Info("answer verified", "from", id, "id", out.ID, "owner", owner, "by", by, "actor", actor.ID)
	return out, nil
}
