package admincmd

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// Age is a duration written as Go writes them ("36h", "90m") or in whole
// or fractional days ("7d", "1.5d").
type Age time.Duration

// UnmarshalYAML reads an Age from a scalar.
func (a *Age) UnmarshalYAML(n *yaml.Node) error {
	d, err := parseAge(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*a = Age(d)
	return nil
}

// parseAge reads "7d", "1.5d", "36h", "0".
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("invalid age %q: want days (7d), or a duration (36h)", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid age %q: want days (7d), or a duration (36h)", s)
	}
	return d, nil
}

// auditActions are the actions of the one audit log.
var auditActions = []string{
	ontology.ActionQuestion, ontology.ActionEdit, ontology.ActionDelete, ontology.ActionPromote,
	ontology.ActionImport, ontology.ActionForget, ontology.ActionGlossary, ontology.ActionRollback,
}

// pruneQuestionRecords deletes question records older than retention
// (none when it is 0). Fact changes and glossary loads are kept.
func pruneQuestionRecords(ctx context.Context, s *ontology.Store, retention time.Duration, now time.Time) (int, error) {
	if retention <= 0 {
		return 0, nil
	}
	n, err := s.PruneAudit(ctx, now.Add(-retention), ontology.ActionQuestion)
	if err != nil {
		return 0, fmt.Errorf("prune question records older than %s: %w", retention, err)
	}
	return n, nil
}

// pruneQuestions keeps question records within the configured retention:
// once now, then at every tick, until ctx ends.
func PruneQuestions(ctx context.Context, s *ontology.Store, retention time.Duration, tick <-chan time.Time, now func() time.Time, logger *slog.Logger) {
	if retention <= 0 {
		return
	}
	for {
		n, err := pruneQuestionRecords(ctx, s, retention, now())
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("cannot prune old question records", "err", err)
		case n > 0:
			logger.Info("pruned old question records", "records", n, "retention", retention)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
	}
}

// runAudit is `bot audit`: the one audit log (questions, fact changes,
// glossary loads), newest first, read from the ontology file while the
// bot is stopped.
func RunAudit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, config cli.ConfigStore) int {
	return auditCmd{stdout: stdout, stderr: stderr, now: time.Now, config: config}.run(ctx, args)
}

type auditCmd struct {
	stdout, stderr io.Writer
	now            func() time.Time
	config         cli.ConfigStore
}

func (a auditCmd) run(ctx context.Context, args []string) int {
	fs := cli.NewFlagSet("bot audit", a.stderr,
		"usage: bot audit [--user U] [--since 7d] [--action question,edit,…] [--json] [--limit N] [--data DIR]",
		"       bot audit --prune 90d [--data DIR]",
		"Lists the audit log, newest first: every question (who, where, the clarifications and answers, facts used,",
		"SQL, rows, time, engine, tokens; never result values), fact changes and glossary loads.",
		"The bot must be stopped: it holds the file while it runs.",
	)
	sel := cli.StoreSelection{Config: a.config}
	sel.Flags(fs)
	wait := fs.Duration("lock-timeout", ontology.DefaultTimeout, "how long to wait for a running bot to release the file")
	who := fs.String("user", "", "only entries by this person: a user id (U0123ABCD) or an owner key (slack:T1:U0123ABCD)")
	since := fs.String("since", "", "only entries newer than this: 7d, 1.5d, 36h, 90m")
	actions := fs.String("action", "", "only these actions, comma-separated: "+strings.Join(auditActions, ", "))
	asJSON := fs.Bool("json", false, "print one JSON object per line")
	limit := fs.Int("limit", 100, "at most this many entries, newest first (0: all)")
	prune := fs.String("prune", "", "delete question records older than this (e.g. 90d) and exit; fact history is kept")
	if code, ok := cli.ParseFlags(fs, args, a.stdout); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "bot audit: unexpected arguments %q\n", fs.Args())
		return cli.ExitUsage
	}
	fl := ontology.AuditFilter{}
	if *since != "" {
		d, err := parseAge(*since)
		if err != nil {
			fmt.Fprintf(a.stderr, "bot audit: --since: %v\n", err)
			return cli.ExitUsage
		}
		fl.Since = a.now().Add(-d)
	}
	if *actions != "" {
		for _, act := range strings.Split(*actions, ",") {
			act = strings.TrimSpace(act)
			if !slices.Contains(auditActions, act) {
				fmt.Fprintf(a.stderr, "bot audit: --action %q: want one of %s\n", act, strings.Join(auditActions, ", "))
				return cli.ExitUsage
			}
			fl.Actions = append(fl.Actions, act)
		}
	}
	if *limit < 0 {
		fmt.Fprintln(a.stderr, "bot audit: --limit must be 0 or more")
		return cli.ExitUsage
	}
	var pruneAge time.Duration
	if *prune != "" {
		d, err := parseAge(*prune)
		if err != nil || d == 0 {
			fmt.Fprintf(a.stderr, "bot audit: --prune: want an age above zero such as 90d (%v)\n", err)
			return cli.ExitUsage
		}
		pruneAge = d
	}
	// An owner key is matched as it is; a bare id matches that user on
	// any platform and workspace (actors are owner keys, "cli:NAME" for
	// the shell).
	matchUser := func(string) bool { return true }
	switch {
	case strings.Contains(*who, ":"):
		fl.Actor = *who
	case *who != "":
		fl.Limit = 0
		matchUser = func(actor string) bool { return actor == *who || strings.HasSuffix(actor, ":"+*who) }
	}
	if *who == "" || fl.Actor != "" {
		fl.Limit = *limit
	}

	s, code := cli.OpenOntology(&sel, *wait, false, "bot audit", "stop it first, copy the file and use --data on the copy, or keep the store on a server (store.dsn)", a.stderr)
	if s == nil {
		return code
	}
	defer s.Close()

	if pruneAge > 0 {
		n, err := pruneQuestionRecords(ctx, s, pruneAge, a.now())
		if err != nil {
			fmt.Fprintf(a.stderr, "bot audit: %v\n", err)
			return cli.ExitFailure
		}
		fmt.Fprintf(a.stdout, "pruned %d question record%s older than %s\n", n, cli.Plural(n), *prune)
		return cli.ExitOK
	}

	entries, err := s.AuditQuery(ctx, fl)
	if err != nil {
		fmt.Fprintf(a.stderr, "bot audit: %v\n", err)
		return cli.ExitFailure
	}
	entries = slices.DeleteFunc(entries, func(e ontology.AuditEntry) bool { return !matchUser(e.Actor) })
	if *limit > 0 && len(entries) > *limit {
		entries = entries[:*limit]
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				fmt.Fprintf(a.stderr, "bot audit: %v\n", err)
				return cli.ExitFailure
			}
		}
		return cli.ExitOK
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.stdout, "no audit entries match")
		return cli.ExitOK
	}
	for i, e := range entries {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		fmt.Fprint(a.stdout, formatAuditEntry(e))
	}
	return cli.ExitOK
}

// formatAuditEntry is one entry for people: a block for a question, a
// line for a fact change or glossary load.
func formatAuditEntry(e ontology.AuditEntry) string {
	at := e.At.UTC().Format(time.DateTime) + " UTC"
	q := e.Question
	if e.Action != ontology.ActionQuestion || q == nil {
		var b strings.Builder
		fmt.Fprintf(&b, "%s  %s by %s", at, e.Action, e.Actor)
		if e.Via != "" {
			fmt.Fprintf(&b, " (%s)", e.Via)
		}
		if e.FactID != "" {
			fmt.Fprintf(&b, "  fact %s", e.FactID)
			if f := firstFact(e); f != nil {
				fmt.Fprintf(&b, " %q", f.Phrase)
			}
		}
		if c := change(e); c != "" {
			b.WriteString(": " + c)
		}
		if e.Note != "" {
			b.WriteString(": " + e.Note)
		}
		b.WriteString("\n")
		return b.String()
	}
	var b strings.Builder
	line := func(label, value string) {
		if value != "" {
			fmt.Fprintf(&b, "  %-10s %s\n", label+":", value)
		}
	}
	fmt.Fprintf(&b, "%s  question by %s  (%s)\n", at, q.User, q.Outcome)
	var where []string
	for _, p := range []struct{ k, v string }{{"", q.Platform}, {"workspace ", q.Workspace}, {"channel ", q.Channel}, {"thread ", q.Thread}} {
		if p.v != "" {
			where = append(where, p.k+p.v)
		}
	}
	line("where", strings.Join(where, " · "))
	line("warehouse", q.Warehouse)
	line("question", q.Question)
	for _, s := range q.Steps {
		label := s.Kind
		if label == dialog.StepClarification {
			label = "asked"
		}
		line(label, describeStep(s))
	}
	for _, f := range q.FactsUsed {
		use := fmt.Sprintf("'%s' = %s (%s fact %s", f.Phrase, f.Meaning, f.Scope, f.ID)
		if f.Source != "" {
			use += ", from " + string(f.Source)
		}
		line("fact used", use+")")
	}
	for _, sql := range q.SQL {
		line("sql", strings.Join(strings.Fields(sql), " "))
	}
	if q.Outcome == dialog.OutcomeAnswered {
		line("rows", strconv.Itoa(q.Rows))
	}
	var cost []string
	cost = append(cost, "time "+q.Duration.Round(time.Millisecond).String())
	if q.Engine != "" {
		cost = append(cost, "engine "+q.Engine)
	}
	if q.PromptTokens+q.CompletionTokens > 0 {
		cost = append(cost, fmt.Sprintf("tokens %d prompt + %d completion", q.PromptTokens, q.CompletionTokens))
	}
	line("cost", strings.Join(cost, " · "))
	line("detail", q.Detail)
	return b.String()
}

// describeStep words one step: "By 'revenue', which…? [a | b | c] → a".
func describeStep(s ontology.QuestionStep) string {
	switch s.Kind {
	case dialog.StepCorrect:
		return "the person said the answer was what they meant"
	case dialog.StepWrong:
		return "the person said the answer was not what they meant"
	case dialog.StepChange:
		return fmt.Sprintf("the person reopened what '%s' means", s.Answer)
	}
	var b strings.Builder
	b.WriteString(s.Asked)
	if len(s.Options) > 0 {
		opts := make([]string, len(s.Options))
		for i, o := range s.Options {
			opts[i] = tables.Clip(o, 60)
		}
		fmt.Fprintf(&b, " [%s]", strings.Join(opts, " | "))
	}
	if s.Answer != "" {
		if b.Len() > 0 {
			b.WriteString(" → ")
		}
		if s.Typed {
			fmt.Fprintf(&b, "%q (typed)", s.Answer)
		} else {
			b.WriteString(s.Answer)
		}
	}
	if b.Len() == 0 {
		return "(no words)"
	}
	return b.String()
}

func firstFact(e ontology.AuditEntry) *ontology.Fact {
	if e.After != nil {
		return e.After
	}
	return e.Before
}
