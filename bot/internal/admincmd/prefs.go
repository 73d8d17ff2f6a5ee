package admincmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clarify-bot/clarify/adapters/console"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/ontology"
)

// runPrefs is `bot prefs`: admins review, correct and promote what the bot
// learned, working on the ontology file directly. The shell user is an
// admin. bbolt allows one process per file, so with files this works while
// the bot is stopped (the chat commands do the same while it runs); with a
// server store (--store, or store.dsn in --config) it works while it runs.
func RunPrefs(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, config cli.ConfigStore) int {
	p := &prefsCmd{stdin: stdin, stdout: stdout, stderr: stderr, wait: ontology.DefaultTimeout, sel: cli.StoreSelection{Config: config}}
	global := p.flagSet("bot prefs")
	global.Usage = func() { p.usage(global.Output()) }
	if code, ok := cli.ParseFlags(global, args, stdout); !ok {
		return code
	}
	args = global.Args()
	if len(args) == 0 {
		p.usage(stderr)
		return cli.ExitUsage
	}
	name, args := args[0], args[1:]
	if name == "help" {
		p.usage(stdout)
		return cli.ExitOK
	}
	for _, sc := range prefsSubcommands() {
		if sc.name == name {
			return sc.run(p, ctx, args)
		}
	}
	fmt.Fprintf(stderr, "bot prefs: unknown subcommand %q\n\n", name)
	p.usage(stderr)
	return cli.ExitUsage
}

type prefsSubcommand struct {
	name, args, summary string
	run                 func(p *prefsCmd, ctx context.Context, args []string) int
}

func prefsSubcommands() []prefsSubcommand {
	return []prefsSubcommand{
		{"list", "[--user OWNER] [--scope user|channel|workspace] [--warehouse W] [--all] [--weakened] [--json]", "list learned preferences (phrase, meaning, scope, source, uses)", (*prefsCmd).list},
		{"candidates", "[--user OWNER] [--warehouse W] [--json]", "list answers people marked correct, to verify", (*prefsCmd).candidates},
		{"show", "ID", "show one preference and its history", (*prefsCmd).show},
		{"delete", "ID", "delete a preference", (*prefsCmd).delete},
		{"forget", "--user OWNER [--warehouse W] PHRASE", "delete all of an owner's preferences for a phrase", (*prefsCmd).forget},
		{"promote", "ID --to channel|workspace --owner KEY", "make a preference apply to a whole channel or workspace", (*prefsCmd).promote},
		{"edit", "ID [--target T] [--meaning M]", "correct a preference", (*prefsCmd).edit},
		{"verify", "ID --by NAME [--owner WORKSPACE]", "make an answer someone marked correct a verified query of their workspace", (*prefsCmd).verify},
		{"audit", "[--limit N]", "show recent admin changes", (*prefsCmd).audit},
		{"export", "[--out FILE]", "write all preferences as JSON (stdout by default)", (*prefsCmd).export},
		{"import", "FILE|-", "add or update preferences from an export", (*prefsCmd).importFacts},
	}
}

type prefsCmd struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	sel            cli.StoreSelection
	wait           time.Duration
}

func (p *prefsCmd) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: bot prefs [--data DIR | --store DSN | --config FILE] <subcommand> [flags]")
	fmt.Fprintln(w)
	for _, sc := range prefsSubcommands() {
		fmt.Fprintf(w, "  %-8s %s\n  %-8s   %s\n", sc.name, sc.args, "", sc.summary)
	}
	fmt.Fprintf(w, "\nGlobal flags (anywhere on the line):\n  --data DIR          data directory (default %s)\n  --store DSN         the store on a MySQL-protocol server (user:pass@tcp(host:3306)/clarify)\n  --config FILE       take data_dir and store.dsn from the bot's configuration\n  --lock-timeout D    how long to wait for a running bot to release the file (default %s)\n",
		cli.DefaultDataDir(), ontology.DefaultTimeout)
	fmt.Fprintln(w, "\nWith files, the bot must be stopped: it holds the file while it runs (use the chat commands then).\nWith a server store, this works while the bot runs.")
}

// flagSet returns a flag set with the global flags, so they may follow
// the subcommand too.
func (p *prefsCmd) flagSet(name string) *flag.FlagSet {
	fs := cli.NewFlagSet(name, p.stderr)
	p.sel.Flags(fs)
	fs.DurationVar(&p.wait, "lock-timeout", p.wait, "how long to wait for the file lock")
	return fs
}

// parse parses flags and positional arguments in any order ("show ID
// --data DIR" as well as "show --data DIR ID"); "--" ends the flags. It
// returns the positional arguments, or an exit code when parsing stopped.
func (p *prefsCmd) parse(fs *flag.FlagSet, sc string, args []string) ([]string, int, bool) {
	fs.Usage = func() {
		for _, s := range prefsSubcommands() {
			if s.name == sc {
				fmt.Fprintf(fs.Output(), "usage: bot prefs %s %s\n  %s\n", s.name, s.args, s.summary)
			}
		}
		fs.PrintDefaults()
	}
	var pos []string
	for {
		if code, ok := cli.ParseFlags(fs, args, p.stdout); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), 0, true
		}
		if len(rest) == 0 {
			return pos, 0, true
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// parseArgs parses the flags and wants exactly n positional arguments.
func (p *prefsCmd) parseArgs(fs *flag.FlagSet, sc string, args []string, n int, what string) ([]string, int, bool) {
	pos, code, ok := p.parse(fs, sc, args)
	if !ok {
		return nil, code, false
	}
	if !p.wantArgs(fs, pos, n, what) {
		return nil, cli.ExitUsage, false
	}
	return pos, cli.ExitOK, true
}

// wantArgs reports a usage error unless exactly n positional arguments
// were given.
func (p *prefsCmd) wantArgs(fs *flag.FlagSet, pos []string, n int, what string) bool {
	if len(pos) == n {
		return true
	}
	if len(pos) < n {
		fmt.Fprintf(p.stderr, "bot prefs %s: missing %s\n", fs.Name(), what)
	} else {
		fmt.Fprintf(p.stderr, "bot prefs %s: unexpected arguments %q\n", fs.Name(), pos[n:])
	}
	fs.Usage()
	return false
}

// open opens the ontology. Only import may create it: any other
// subcommand on a missing file means a wrong --data, which an empty new
// file would hide.
func (p *prefsCmd) open(create bool) (*ontology.Store, int) {
	return cli.OpenOntology(&p.sel, p.wait, create, "bot prefs", "stop the bot or use the chat commands", p.stderr)
}

// fail prints err for people and returns the exit code.
func (p *prefsCmd) fail(sc, id string, err error) int {
	switch {
	case errors.Is(err, ontology.ErrNotFound):
		fmt.Fprintf(p.stderr, "bot prefs %s: no preference with id %q (see 'bot prefs list --all')\n", sc, id)
	case errors.Is(err, ontology.ErrForbidden):
		fmt.Fprintf(p.stderr, "bot prefs %s: not allowed: %v\n", sc, err)
	default:
		fmt.Fprintf(p.stderr, "bot prefs %s: %v\n", sc, err)
	}
	return cli.ExitFailure
}

// actor is the shell user, an admin: whoever can write the data directory
// can change the file anyway.
func (p *prefsCmd) actor() ontology.Actor {
	name := os.Getenv("USER")
	if name == "" {
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
	}
	if name == "" {
		name = "unknown"
	}
	return ontology.Actor{ID: "cli:" + name, Admin: true}
}

// userFlag is a --user value: an owner key, or the name of a console
// person ("ana" is console:local:ana, whom `bot demo --user ana` asks as).
type userFlag string

func (u *userFlag) String() string { return string(*u) }

func (u *userFlag) Set(s string) error {
	*u = userFlag(ownerKeyArg(s))
	return nil
}

// ownerKeyArg reads an owner key given on the command line: a name
// without ':' is the console person of that name.
func ownerKeyArg(s string) string {
	if s == "" || strings.Contains(s, ":") {
		return s
	}
	return console.Identity(s).UserKey()
}

func (p *prefsCmd) list(ctx context.Context, args []string) int {
	fs := p.flagSet("list")
	var fl ontology.Filter
	fs.Var((*userFlag)(&fl.Owner), "user", "only the facts of this owner key (user, channel or workspace), e.g. slack:T1:U2, or a console person's name (ana)")
	scope := fs.String("scope", "", "only user, channel or workspace facts")
	fs.StringVar(&fl.Warehouse, "warehouse", "", "only facts about this warehouse")
	fs.BoolVar(&fl.IncludeInactive, "all", false, "include inactive facts (rejected as often as confirmed)")
	weakened := fs.Bool("weakened", false, "only facts people said 'not what I meant' to (their own, or shared ones set aside for them)")
	asJSON := fs.Bool("json", false, "print JSON")
	_, code, ok := p.parseArgs(fs, "list", args, 0, "")
	if !ok {
		return code
	}
	fl.Scope = ontology.Scope(*scope)
	if fl.Scope != "" && !fl.Scope.Valid() {
		fmt.Fprintf(p.stderr, "bot prefs list: --scope %q: want user, channel or workspace\n", fl.Scope)
		return cli.ExitUsage
	}
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	if *weakened {
		fl.IncludeInactive = true
	}
	facts, err := s.List(ctx, fl)
	if err != nil {
		return p.fail("list", "", err)
	}
	overrides, err := s.Overrides(ctx)
	if err != nil {
		return p.fail("list", "", err)
	}
	if *weakened {
		facts = slices.DeleteFunc(facts, func(f ontology.Fact) bool { return f.Rejections == 0 && len(overrides[f.ID]) == 0 })
	}
	if *asJSON {
		if facts == nil {
			facts = []ontology.Fact{}
		}
		return p.printJSON("list", facts)
	}
	if len(facts) == 0 {
		fmt.Fprintln(p.stdout, "no preferences match")
		return cli.ExitOK
	}
	header := []string{"ID", "SCOPE", "OWNER", "PHRASE", "MEANING", "SOURCE", "USES", "REJECTED", "LEARNED"}
	if fl.IncludeInactive {
		header = append(header, "ACTIVE")
	}
	rows := make([][]string, 0, len(facts))
	for _, f := range facts {
		row := []string{f.ID, string(f.Scope), f.Owner, f.Phrase, meaning(f), sourceOf(f), strconv.Itoa(f.Uses), rejectedBy(f, overrides[f.ID]), f.Created.UTC().Format(time.DateOnly)}
		if fl.IncludeInactive {
			row = append(row, yesNo(f.Active()))
		}
		rows = append(rows, row)
	}
	fmt.Fprint(p.stdout, tables.Render(header, rows, tables.Options{MaxCellWidth: 50}))
	fmt.Fprintf(p.stdout, "(%d preference%s)\n", len(facts), cli.Plural(len(facts)))
	return cli.ExitOK
}

// sourceOf says where a fact came from, as people read it.
func sourceOf(f ontology.Fact) string {
	switch {
	case f.FromGlossary():
		return "glossary " + f.Source.Glossary()
	case f.Kind == ontology.KindQuery && f.VerifiedBy != "":
		return "verified by " + f.VerifiedBy
	case f.PromotedFrom != "":
		return "promoted from " + f.PromotedFrom
	}
	return "answer"
}

// rejectedBy counts the "not what I meant" said of a fact: by its owner,
// and (for shared facts) by the people who set it aside for themselves.
func rejectedBy(f ontology.Fact, people map[string]int) string {
	n := f.Rejections
	for _, c := range people {
		n += c
	}
	if len(people) > 0 {
		return fmt.Sprintf("%d (%d %s)", n, len(people), map[bool]string{true: "person", false: "people"}[len(people) == 1])
	}
	return strconv.Itoa(n)
}

// candidates lists the answers people marked correct: feedback, not
// preferences, which an admin may make verified queries (bot prefs verify).
func (p *prefsCmd) candidates(ctx context.Context, args []string) int {
	fs := p.flagSet("candidates")
	owner := new(string)
	fs.Var((*userFlag)(owner), "user", "only the answers of this owner key, e.g. slack:T1:U2, or a console person's name (ana)")
	warehouse := fs.String("warehouse", "", "only answers about this warehouse")
	asJSON := fs.Bool("json", false, "print JSON")
	if _, code, ok := p.parseArgs(fs, "candidates", args, 0, ""); !ok {
		return code
	}
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	list, err := s.ConfirmedAnswers(ctx, *owner, *warehouse)
	if err != nil {
		return p.fail("candidates", "", err)
	}
	if *asJSON {
		if list == nil {
			list = []ontology.ConfirmedAnswer{}
		}
		return p.printJSON("candidates", list)
	}
	if len(list) == 0 {
		fmt.Fprintln(p.stdout, "no answers marked correct")
		return cli.ExitOK
	}
	rows := make([][]string, 0, len(list))
	for _, c := range list {
		verified := "-"
		if c.VerifiedAs != "" {
			verified = c.VerifiedAs
		}
		rows = append(rows, []string{c.ID, c.Owner, c.Question, strconv.Itoa(c.Count), c.Last.UTC().Format(time.DateOnly), verified})
	}
	fmt.Fprint(p.stdout, tables.Render([]string{"ID", "OWNER", "QUESTION", "CONFIRMED", "LAST", "VERIFIED AS"}, rows, tables.Options{MaxCellWidth: 60}))
	fmt.Fprintf(p.stdout, "(%d answer%s; verify one with: bot prefs verify ID --by NAME)\n", len(list), cli.Plural(len(list)))
	return cli.ExitOK
}

func (p *prefsCmd) show(ctx context.Context, args []string) int {
	fs := p.flagSet("show")
	pos, code, ok := p.parseArgs(fs, "show", args, 1, "the preference ID")
	if !ok {
		return code
	}
	id := pos[0]
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	history, err := s.AuditOf(ctx, id)
	if err != nil {
		return p.fail("show", id, err)
	}
	f, err := s.Get(ctx, id)
	if errors.Is(err, ontology.ErrNotFound) && len(history) > 0 && history[0].After == nil {
		e := history[0]
		fmt.Fprintf(p.stderr, "bot prefs show: preference %s was deleted (%s by %s, %s)\n", id, e.Action, e.Actor, e.At.UTC().Format(time.DateTime))
		return cli.ExitFailure
	}
	if err != nil {
		return p.fail("show", id, err)
	}
	fields := [][2]string{
		{"id", f.ID}, {"scope", string(f.Scope)}, {"owner", f.Owner}, {"warehouse", f.Warehouse},
		{"phrase", f.Phrase}, {"kind", string(f.Kind)}, {"target", f.Target.Summary()}, {"meaning", f.Meaning},
		{"question", f.Question}, {"learned", stamp(f.Created)}, {"last used", stamp(f.LastUsed)},
		{"uses", strconv.Itoa(f.Uses)}, {"confirmations", strconv.Itoa(f.Confirmations)},
		{"rejections", strconv.Itoa(f.Rejections)}, {"active", yesNo(f.Active())}, {"source", sourceOf(f)},
	}
	if over, err := s.Overrides(ctx); err == nil && len(over[f.ID]) > 0 {
		var who []string
		for person, n := range over[f.ID] {
			who = append(who, fmt.Sprintf("%s (%d)", person, n))
		}
		slices.Sort(who)
		fields = append(fields, [2]string{"set aside by", strings.Join(who, ", ")})
	}
	if f.PromotedFrom != "" {
		fields = append(fields, [2]string{"promoted from", f.PromotedFrom})
	}
	for _, kv := range fields {
		fmt.Fprintf(p.stdout, "%-14s %s\n", kv[0]+":", tables.Clean(kv[1]))
	}
	fmt.Fprintln(p.stdout)
	if len(history) == 0 {
		fmt.Fprintln(p.stdout, "history: no admin changes")
		return cli.ExitOK
	}
	fmt.Fprintln(p.stdout, "history:")
	fmt.Fprint(p.stdout, auditTable(history))
	return cli.ExitOK
}

func (p *prefsCmd) delete(ctx context.Context, args []string) int {
	fs := p.flagSet("delete")
	pos, code, ok := p.parseArgs(fs, "delete", args, 1, "the preference ID")
	if !ok {
		return code
	}
	id := pos[0]
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	f, err := s.Get(ctx, id)
	if err != nil {
		return p.fail("delete", id, err)
	}
	if err := s.Delete(ctx, id, p.actor()); err != nil {
		return p.fail("delete", id, err)
	}
	fmt.Fprintf(p.stdout, "deleted %s: %q → %s (%s %s)\n", f.ID, f.Phrase, meaning(f), f.Scope, f.Owner)
	return cli.ExitOK
}

func (p *prefsCmd) forget(ctx context.Context, args []string) int {
	fs := p.flagSet("forget")
	owner := new(string)
	fs.Var((*userFlag)(owner), "user", "owner key whose preferences to forget (required), e.g. slack:T1:U2, or a console person's name (ana)")
	warehouse := fs.String("warehouse", "", "only for this warehouse (default: all)")
	pos, code, ok := p.parse(fs, "forget", args)
	if !ok {
		return code
	}
	phrase := ontology.NormalizePhrase(strings.Join(pos, " "))
	if *owner == "" || phrase == "" {
		fmt.Fprintln(p.stderr, "bot prefs forget: give --user OWNER and a PHRASE")
		fs.Usage()
		return cli.ExitUsage
	}
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	n, err := s.Forget(ctx, *owner, *warehouse, phrase, p.actor())
	if err != nil {
		return p.fail("forget", "", err)
	}
	if n == 0 {
		fmt.Fprintf(p.stdout, "nothing to forget: %s has no preferences for %q\n", *owner, phrase)
		return cli.ExitOK
	}
	fmt.Fprintf(p.stdout, "forgot %d preference%s of %s for %q\n", n, cli.Plural(n), *owner, phrase)
	return cli.ExitOK
}

func (p *prefsCmd) promote(ctx context.Context, args []string) int {
	fs := p.flagSet("promote")
	to := fs.String("to", "", "channel or workspace (required)")
	owner := fs.String("owner", "", "the channel or workspace key (required), e.g. slack:T1:C3 or slack:T1")
	pos, code, ok := p.parseArgs(fs, "promote", args, 1, "the preference ID")
	if !ok {
		return code
	}
	scope := ontology.Scope(*to)
	if scope != ontology.ScopeChannel && scope != ontology.ScopeWorkspace || *owner == "" {
		fmt.Fprintln(p.stderr, "bot prefs promote: give --to channel|workspace and --owner KEY")
		fs.Usage()
		return cli.ExitUsage
	}
	id := pos[0]
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	f, err := s.Promote(ctx, id, scope, *owner, p.actor())
	if err != nil {
		return p.fail("promote", id, err)
	}
	fmt.Fprintf(p.stdout, "promoted %s to %s %s as %s: %q → %s\n", id, f.Scope, f.Owner, f.ID, f.Phrase, meaning(f))
	return cli.ExitOK
}

func (p *prefsCmd) edit(ctx context.Context, args []string) int {
	fs := p.flagSet("edit")
	target := fs.String("target", "", "new machine form of the meaning, as JSON (see 'bot prefs show' and exports)")
	meaningFlag := fs.String("meaning", "", "new human wording")
	pos, code, ok := p.parseArgs(fs, "edit", args, 1, "the preference ID")
	if !ok {
		return code
	}
	if strings.TrimSpace(*target) == "" && strings.TrimSpace(*meaningFlag) == "" {
		fmt.Fprintln(p.stderr, "bot prefs edit: give --target, --meaning or both")
		fs.Usage()
		return cli.ExitUsage
	}
	id := pos[0]
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	var newTarget *ontology.Target
	if strings.TrimSpace(*target) != "" {
		t, err := ontology.ParseTarget(*target)
		if err != nil {
			fmt.Fprintf(p.stderr, "bot prefs edit: --target: %v\n", err)
			return cli.ExitUsage
		}
		newTarget = &t
	}
	f, err := s.Edit(ctx, id, newTarget, *meaningFlag, p.actor())
	if err != nil {
		return p.fail("edit", id, err)
	}
	fmt.Fprintf(p.stdout, "edited %s: %q → %s (target %s)\n", f.ID, f.Phrase, meaning(f), f.Target.Summary())
	return cli.ExitOK
}

func (p *prefsCmd) audit(ctx context.Context, args []string) int {
	fs := p.flagSet("audit")
	limit := fs.Int("limit", 50, "how many entries, newest first (0: all)")
	_, code, ok := p.parseArgs(fs, "audit", args, 0, "")
	if !ok {
		return code
	}
	if *limit < 0 {
		fmt.Fprintln(p.stderr, "bot prefs audit: --limit must be 0 or more")
		return cli.ExitUsage
	}
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	entries, err := s.Audit(ctx, *limit)
	if err != nil {
		return p.fail("audit", "", err)
	}
	if len(entries) == 0 {
		fmt.Fprintln(p.stdout, "no admin changes recorded")
		return cli.ExitOK
	}
	fmt.Fprint(p.stdout, auditTable(entries))
	return cli.ExitOK
}

func (p *prefsCmd) export(ctx context.Context, args []string) int {
	fs := p.flagSet("export")
	out := fs.String("out", "", "write to FILE instead of stdout")
	_, code, ok := p.parseArgs(fs, "export", args, 0, "")
	if !ok {
		return code
	}
	s, code := p.open(false)
	if s == nil {
		return code
	}
	defer s.Close()
	if *out == "" || *out == "-" {
		if err := s.Export(ctx, p.stdout); err != nil {
			return p.fail("export", "", err)
		}
		return cli.ExitOK
	}
	// Write a temporary file and rename it, so an interrupted export never
	// leaves a truncated file where a good one was.
	tmp, err := os.CreateTemp(filepath.Dir(*out), "."+filepath.Base(*out)+".*")
	if err != nil {
		return p.fail("export", "", err)
	}
	defer os.Remove(tmp.Name())
	if err := s.Export(ctx, tmp); err != nil {
		tmp.Close()
		return p.fail("export", "", err)
	}
	if err := tmp.Close(); err != nil {
		return p.fail("export", "", fmt.Errorf("write %s: %w", *out, err))
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return p.fail("export", "", err)
	}
	fmt.Fprintf(p.stderr, "exported to %s\n", *out)
	return cli.ExitOK
}

func (p *prefsCmd) importFacts(ctx context.Context, args []string) int {
	fs := p.flagSet("import")
	pos, code, ok := p.parseArgs(fs, "import", args, 1, "the file to import (or - for stdin)")
	if !ok {
		return code
	}
	name := pos[0]
	var r io.Reader = p.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return p.fail("import", "", err)
		}
		defer f.Close()
		r = f
	}
	s, code := p.open(true)
	if s == nil {
		return code
	}
	defer s.Close()
	st, err := s.Import(ctx, r, p.actor())
	var ie *ontology.ImportError
	if errors.As(err, &ie) {
		// One line per problem, each naming the fact: facts[3] ("texas"): unknown kind "colour".
		fmt.Fprintf(p.stderr, "bot prefs import: %s is not a valid export; nothing was imported:\n", name)
		for _, line := range ie.Problems() {
			fmt.Fprintf(p.stderr, "  %s\n", line)
		}
		return cli.ExitFailure
	}
	if err != nil {
		return p.fail("import", "", err)
	}
	fmt.Fprintf(p.stdout, "imported %s: %d added, %d updated, %d unchanged\n", name, st.Added, st.Updated, st.Skipped)
	return cli.ExitOK
}

func (p *prefsCmd) printJSON(sc string, v any) int {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return p.fail(sc, "", err)
	}
	fmt.Fprintf(p.stdout, "%s\n", b)
	return cli.ExitOK
}

func auditTable(entries []ontology.AuditEntry) string {
	rows := make([][]string, 0, len(entries))
	for _, e := range entries {
		phrase := ""
		switch {
		case e.After != nil:
			phrase = e.After.Phrase
		case e.Before != nil:
			phrase = e.Before.Phrase
		}
		rows = append(rows, []string{e.At.UTC().Format(time.DateTime), e.Actor, e.Action, e.FactID, phrase, change(e)})
	}
	return tables.Render([]string{"AT (UTC)", "ACTOR", "ACTION", "FACT", "PHRASE", "CHANGE"}, rows, tables.Options{MaxCellWidth: 60})
}

// change summarises an audit entry in a few words.
func change(e ontology.AuditEntry) string {
	switch {
	case e.Action == ontology.ActionReject:
		return e.Note
	case e.Before == nil && e.After == nil:
		return e.Note
	case e.After == nil && e.Action == ontology.ActionMigrate:
		return "removed: " + meaning(*e.Before) + " (" + e.Note + ")"
	case e.After == nil:
		return "removed: " + meaning(*e.Before)
	case e.Action == ontology.ActionPromote:
		s := fmt.Sprintf("from %s to %s %s", e.After.PromotedFrom, e.After.Scope, e.After.Owner)
		if e.Before != nil {
			s += ", replacing " + meaning(*e.Before)
		}
		return s
	case e.Before == nil:
		return "added: " + meaning(*e.After)
	}
	var parts []string
	if !e.Before.Target.Equal(e.After.Target) {
		parts = append(parts, fmt.Sprintf("target %s → %s", e.Before.Target.Summary(), e.After.Target.Summary()))
	}
	if e.Before.Meaning != e.After.Meaning {
		parts = append(parts, fmt.Sprintf("meaning %q → %q", e.Before.Meaning, e.After.Meaning))
	}
	if len(parts) == 0 {
		return "counters or times"
	}
	return strings.Join(parts, "; ")
}

func meaning(f ontology.Fact) string {
	if f.Meaning != "" {
		return f.Meaning
	}
	return f.Target.Summary()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.DateTime) + " UTC"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
