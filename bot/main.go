// Command bot is Clarify: a chat bot that answers questions about data in
// Slack and Discord, asking short multiple-choice clarifications when a
// question can be read more than one way, and remembering each person's
// answers.
//
//	bot demo                 embedded demo warehouse + console chat
//	bot serve --config FILE  Slack and/or Discord
//	bot sql  --demo|--dsn DSN "SELECT …"   run one statement through the guard
//	bot eval --dataset DIR   accuracy against a simulated user
//	bot readings --demo|--dsn DSN|--schema FILE "question"   what each stage of the offline engine made of it
//	bot prefs list|show|delete|promote|export|import
//	bot usage [--user KEY] [--days 7]   model tokens and cost per user, model and day
//	bot doctor --config FILE  check tokens, scopes, warehouses, model, store
//	bot healthcheck [--url U] exit 0 when /healthz answers (container HEALTHCHECK)
//	bot audit [--user U] [--since 7d] [--json]   the audit log
//	bot glossary check|load FILE   check a team glossary, or load it as workspace facts
//	bot store copy --from DIR|DSN --to DIR|DSN   move the stores between files and a server
//	bot admin-link --user slack:T1:U2             a sign-in link to the admin console
//	bot access grants --config FILE   the SQL of one read-only account per access level
//
// Every command prints its usage on stdout and exits 0 for -h or --help;
// a bad flag exits 2 with the error on stderr. The commands are the table
// in commands(); main_test.go checks this list against it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/demo"
	"github.com/clarify-bot/clarify/bot/internal/democmd"
	"github.com/clarify-bot/clarify/bot/internal/healthz"
	"github.com/clarify-bot/clarify/bot/internal/readingscmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK      = cli.ExitOK
	exitFailure = cli.ExitFailure
	exitUsage   = cli.ExitUsage
	exitRefused = cli.ExitRefused
)

// command is one subcommand: `bot <name>`. Each builds its flags with
// newFlagSet and parses them with parseFlags (cli.go).
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"demo", "chat with the embedded demo warehouse in this terminal", democmd.Run},
		{"serve", "run the bot on Slack and/or Discord", runServe},
		{"sql", "run one statement through the read-only guard and print the result (bot sql --demo \"SELECT …\" on the demo)", runSQL},
		{"eval", "measure accuracy against a simulated user", runEval},
		{"readings", "show what the offline engine made of a question, stage by stage (bot readings --demo \"…\")", readingscmd.Run},
		{"prefs", "review, correct and promote learned preferences", runPrefs},
		{"usage", "show language model tokens and cost per user, model and day", runUsage},
		{"doctor", "check tokens, scopes, warehouses, the model and the data directory", runDoctorCmd},
		{"healthcheck", "GET the running bot's /healthz; exit 0 when it answers 200", healthz.RunCheck},
		{"audit", "list every question asked, fact change and glossary load", runAudit},
		{"glossary", "check a team glossary against a warehouse, or load it as workspace facts", runGlossary},
		{"store", "copy the stores between bbolt files and a MySQL-protocol server", runStore},
		{"admin-link", "print a one-time sign-in link to the admin console", runAdminLink},
		{"access", "print the SQL that creates one read-only account per access level", runAccess},
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if isHelp(args[0]) {
		usage(stdout)
		return exitOK
	}
	if args[0] == "demo-warehouse" {
		// Not listed: the background process behind `bot sql --demo`'s cache.
		return demo.RunWarehouse(ctx, args[1:], stdin, stdout, stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "bot: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: bot <command> [flags]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'bot <command> -h' for the flags of a command.")
}
