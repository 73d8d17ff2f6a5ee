package admincmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/connectors/llmusage"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
	"github.com/clarify-bot/clarify/internal/tables"
)

// runUsage is `bot usage`: what the language model cost, per user, model
// and day, from the usage file in the data directory. It only reads the
// file, and the running bot opens it only while it writes a record, so it
// works while the bot runs.
func RunUsage(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, config cli.ConfigStore) int {
	fset := cli.NewFlagSet("bot usage", stderr,
		"usage: bot usage [--data DIR | --store DSN | --config FILE] [--user KEY] [--days 7] [--json]",
		"Shows the language model tokens and estimated cost per user, model and day.",
	)
	sel := cli.StoreSelection{Config: config}
	sel.Flags(fset)
	user := new(string)
	fset.Var((*userFlag)(user), "user", "only this user (owner key platform:workspace:user, or a console person's name), with their questions")
	days := fset.Int("days", 7, "days to show, today (UTC) included")
	asJSON := fset.Bool("json", false, "print the report as JSON")
	wait := fset.Duration("lock-timeout", 5*time.Second, "how long to wait while the bot writes the file")
	if code, ok := cli.ParseFlags(fset, args, stdout); !ok {
		return code
	}
	switch {
	case fset.NArg() > 0:
		fmt.Fprintf(stderr, "bot usage: unexpected argument %q\n", fset.Arg(0))
		return cli.ExitUsage
	case *days < 1:
		fmt.Fprintln(stderr, "bot usage: --days must be 1 or more")
		return cli.ExitUsage
	}
	dir, dsn, err := sel.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "bot usage: %v\n", err)
		return cli.ExitUsage
	}
	var store *llmusage.Store
	if dsn != "" {
		store, err = openUsageOnServer(ctx, dsn)
	} else {
		store, err = llmusage.Open(filepath.Join(dir, llmusage.File), llmusage.Options{ReadOnly: true, Timeout: *wait})
		if errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(stdout, "No language model usage recorded in %s yet.\n", dir)
			return cli.ExitOK
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "bot usage: %v\n", err)
		return cli.ExitFailure
	}
	defer store.Close()
	now := time.Now().UTC()
	since := time.Date(now.Year(), now.Month(), now.Day()-(*days-1), 0, 0, 0, 0, time.UTC)
	q := llmusage.Query{Since: since, User: *user}
	if *user != "" {
		q.Records = 50
	}
	rep, err := store.Report(ctx, q)
	if err != nil {
		fmt.Fprintf(stderr, "bot usage: %v\n", err)
		return cli.ExitFailure
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "bot usage: %v\n", err)
			return cli.ExitFailure
		}
		return cli.ExitOK
	}
	writeUsage(stdout, rep, *days, *user, store.Path())
	return cli.ExitOK
}

func writeUsage(w io.Writer, rep *llmusage.Report, days int, user, path string) {
	who := ""
	if user != "" {
		who = " of " + user
	}
	fmt.Fprintf(w, "Language model usage%s since %s (%d day%s), from %s\n\n", who, rep.Since.Format(time.DateOnly), days, cli.Plural(days), path)
	t := rep.Total
	if t.Questions == 0 {
		fmt.Fprintln(w, "Nothing recorded in that period.")
		return
	}
	fmt.Fprintf(w, "Total: %d question%s, %d calls, %s tokens (%s prompt + %s completion), about %s\n",
		t.Questions, cli.Plural(t.Questions), t.Calls, num(t.Tokens()), num(t.PromptTokens), num(t.CompletionTokens), dollars(t.Cost))
	section := func(title, key string, rows []llmusage.Totals) {
		if len(rows) == 0 {
			return
		}
		var cells [][]string
		for _, r := range rows {
			cells = append(cells, []string{r.Key, fmt.Sprint(r.Questions), fmt.Sprint(r.Calls), num(r.PromptTokens), num(r.CompletionTokens), num(r.Tokens()), dollars(r.Cost)})
		}
		fmt.Fprintf(w, "\n%s\n%s", title, tables.Render([]string{key, "questions", "calls", "prompt", "completion", "tokens", "cost"}, cells, tables.Options{MaxCellWidth: 48}))
	}
	if user == "" {
		section("By user", "user", rep.Users)
	}
	section("By model", "model", rep.Models)
	section("By day (UTC)", "day", rep.Days)
	if len(rep.Records) > 0 {
		var cells [][]string
		for _, r := range rep.Records {
			cells = append(cells, []string{r.At.Format("2006-01-02 15:04"), r.Warehouse, r.Model, num(r.PromptTokens + r.CompletionTokens), dollars(r.Cost), r.Outcome, r.Question})
		}
		fmt.Fprintf(w, "\nLatest questions\n%s", tables.Render([]string{"time (UTC)", "warehouse", "model", "tokens", "cost", "outcome", "question"}, cells, tables.Options{MaxCellWidth: 60}))
	}
	if t.Unpriced > 0 {
		fmt.Fprintf(w, "\n%d question%s used a model without a price (llm.prices in the config); their cost counts as $0.\n", t.Unpriced, cli.Plural(t.Unpriced))
	}
}

// num writes n with thousands separators (plural is cli.Plural).
func num(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func dollars(c float64) string {
	if c > 0 && c < 0.01 {
		return fmt.Sprintf("$%.4f", c)
	}
	return fmt.Sprintf("$%.2f", c)
}

// openUsageOnServer reads the usage records on the store's server.
func openUsageOnServer(ctx context.Context, dsn string) (*llmusage.Store, error) {
	srv, err := mysqlkv.Open(ctx, dsn, mysqlkv.Options{})
	if err != nil {
		return nil, err
	}
	s, err := llmusage.New(ctx, srv.OwnNamespace(cli.NsUsage), srv.Name(), llmusage.Options{ReadOnly: true})
	if err != nil {
		srv.Close()
		return nil, err
	}
	return s, nil
}
