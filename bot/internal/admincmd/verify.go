package admincmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/ontology"
)

// verify is `bot prefs verify`: an answer a person marked correct (a
// query fact of theirs, listed by `bot prefs list`) becomes a verified
// query of their workspace (or --owner's), answered directly from then on.
func (p *prefsCmd) verify(ctx context.Context, args []string) int {
	fs := p.flagSet("verify")
	by := fs.String("by", "", "who verified it, shown with every answer it gives (required)")
	owner := fs.String("owner", "", "the workspace key, e.g. slack:T1 (default: the workspace of the person who confirmed it)")
	pos, code, ok := p.parseArgs(fs, "verify", args, 1, "the ID of the confirmed answer")
	if !ok {
		return code
	}
	if strings.TrimSpace(*by) == "" {
		fmt.Fprintln(p.stderr, "bot prefs verify: give --by NAME")
		fs.Usage()
		return cli.ExitUsage
	}
	id := pos[0]
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	ws := *owner
	if ws == "" {
		// The asker's workspace: of a confirmed answer (bot prefs
		// candidates), or of an older store's query fact.
		owner, scope := "", ontology.ScopeUser
		if c, err := s.ConfirmedAnswer(ctx, id); err == nil {
			owner = c.Owner
		} else {
			f, err := s.Get(ctx, id)
			if err != nil {
				return p.fail("verify", id, err)
			}
			owner, scope = f.Owner, f.Scope
		}
		// A user key is platform:workspace:user.
		if i := strings.LastIndexByte(owner, ':'); scope == ontology.ScopeUser && i > 0 {
			ws = owner[:i]
		}
	}
	f, err := s.Verify(ctx, id, ws, *by, p.actor())
	if err != nil {
		return p.fail("verify", id, err)
	}
	fmt.Fprintf(p.stdout, "verified %s for %s as %s: %q → %s (verified by %s)\n", id, f.Owner, f.ID, f.Question, f.Target.Choice.Expr, f.VerifiedBy)
	return cli.ExitOK
}
