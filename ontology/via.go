package ontology

import (
	"context"
	"strings"

	"github.com/clarify-bot/clarify/internal/kv"
)

// viaKey is the context key of WithVia.
type viaKey struct{}

// WithVia returns a context whose changes are audited as made from where
// ("admin console from 192.0.2.7"). Who made them is the Actor; where is
// request-scoped, so it travels with the request's context rather than
// through every method's arguments.
func WithVia(ctx context.Context, where string) context.Context {
	return context.WithValue(ctx, viaKey{}, strings.TrimSpace(where))
}

func viaOf(ctx context.Context) string {
	v, _ := ctx.Value(viaKey{}).(string)
	return v
}

// viaTx is a transaction that knows where its changes come from; audit
// reads it.
type viaTx struct {
	kv.Tx
	via string
}
