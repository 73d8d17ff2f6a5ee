// Package errkind reads the kind of a coded error (warehouse.Error,
// llm.Error) out of a wrapped chain, the one step those types share.
package errkind

import "errors"

// Of returns kind(e) for the first E in err's chain, or unknown when there
// is none.
func Of[E error, K any](err error, kind func(E) K, unknown K) K {
	var e E
	if errors.As(err, &e) {
		return kind(e)
	}
	return unknown
}
