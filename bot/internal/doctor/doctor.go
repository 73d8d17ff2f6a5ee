// Package doctor holds bot doctor's checks: the platforms' tokens and
// scopes, a warehouse's account, the model, the stores and the data
// directory. Each check reads and never writes; bot picks them from the
// configuration.
package doctor

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	openai "github.com/sashabaranov/go-openai"
	"github.com/slack-go/slack"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.yaml.in/yaml/v3"

	clarify "github.com/clarify-bot/clarify"
	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/internal/grants"
	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
)

// Status is how a doctor check came out.
type Status int

const (
	StatusOK Status = iota
	StatusWarn
	StatusError
)

func (s Status) String() string {
	return [...]string{"ok", "warn", "error"}[s]
}

// Result is one line of bot doctor.
type Result struct {
	Status Status
	What   string // "warehouse shop", "slack bot token"
	Detail string
	// Short is the detail for the one-line summary at serve start-up
	// (default: Detail).
	Short string
	// Extra lines printed under the result (the SQL that fixes it).
	Extra []string
}

// DiscordREST is the REST base the bot's Discord calls reach: discord.com,
// or the scheme and host of discord.api_url with Discord's own paths, as
// the adapter sends them (a fake, a staging proxy).
func DiscordREST(apiURL string) string {
	const path = "/api/v9"
	if u, err := url.Parse(apiURL); apiURL != "" && err == nil && u.Host != "" {
		return u.Scheme + "://" + u.Host + path
	}
	return "https://discord.com" + path
}

// Env is what the checks reach the outside world with; tests point
// it at fakes.
type Env struct {
	HTTP *http.Client
	// DiscordAPI is Discord's REST base (default https://discord.com/api/v9;
	// bot sets DiscordREST(discord.api_url)).
	DiscordAPI string
	// Manifest is the Slack app manifest whose bot scopes must be granted
	// (default: the embedded manifest.yml).
	Manifest []byte
	// Timeout bounds each check (default 10s).
	Timeout time.Duration
	// Stores checks the conversation and fact stores (bot picks them from
	// the configuration).
	Stores []StoreChecker
}

// WithDefaults fills what is not set.
func (e Env) WithDefaults() Env {
	if e.HTTP == nil {
		e.HTTP = &http.Client{}
	}
	if e.DiscordAPI == "" {
		e.DiscordAPI = "https://discord.com/api/v9"
	}
	if e.Manifest == nil {
		e.Manifest = clarify.SlackManifest
	}
	if e.Timeout <= 0 {
		e.Timeout = 10 * time.Second
	}
	return e
}

// StoreChecker checks one store the bot keeps its state in. The bbolt
// files are one; another store kind (chosen by the configuration) adds
// its own checker.
type StoreChecker func(ctx context.Context) []Result

// Slack is what CheckSlack needs of the Slack configuration.
type Slack struct {
	BotToken, AppToken, APIURL string
	Mode                       string // "socket" or "http"
}

// Discord is what CheckDiscord needs of the Discord configuration.
type Discord struct{ Token, ApplicationID string }

// Warehouse is what CheckWarehouse needs of a warehouse's configuration.
type Warehouse struct {
	Name, DSN  string
	Demo       bool
	DemoOrders int
	// Access: the warehouse has access rules (hidden or sensitive columns,
	// levels), so the account must not read what they hide either.
	Access bool
}

// Model is what CheckModel needs of the model's configuration.
type Model struct {
	Model, APIKey, BaseURL, APIVersion string
	Azure                              bool
}

// CheckServerStore: the store's server answers, its tables are at a schema
// version this build reads (or not created yet), and the account can
// write them. Nothing is changed.
func CheckServerStore(ctx context.Context, dsn string) Result {
	what := "store " + cli.DescribeStore(dsn)
	in, err := mysqlkv.Inspect(ctx, dsn)
	switch {
	case err != nil:
		return Result{Status: StatusError, What: what, Detail: err.Error(), Short: "unreachable or not writable"}
	case in.Schema > in.Known:
		return Result{Status: StatusError, What: what,
			Detail: fmt.Sprintf("server %s; the tables have schema version %d, newer than this build's %d: run the newer build", in.ServerVersion, in.Schema, in.Known),
			Short:  "schema newer than this build"}
	case in.Schema == 0:
		return Result{What: what, Detail: fmt.Sprintf("server %s; no tables yet: the bot creates them at first start (it needs CREATE on the database)", in.ServerVersion)}
	}
	note := ""
	if in.Schema < in.Known {
		note = fmt.Sprintf("; the bot migrates them to %d at start", in.Known)
	}
	return Result{What: what, Detail: fmt.Sprintf("server %s; schema version %d%s; writable", in.ServerVersion, in.Schema, note)}
}

// --- Slack ---

// checkSlack: the bot token works (auth.test), the scopes Slack granted
// cover the manifest's bot scopes, and in socket mode the app token opens
// a connection URL (without connecting to it).
func CheckSlack(ctx context.Context, sc Slack, env Env) []Result {
	opts := []slack.Option{slack.OptionHTTPClient(env.HTTP)}
	if sc.APIURL != "" {
		opts = append(opts, slack.OptionAPIURL(sc.APIURL))
	}
	if sc.AppToken != "" {
		opts = append(opts, slack.OptionAppLevelToken(sc.AppToken))
	}
	api := slack.New(sc.BotToken, opts...)
	var out []Result
	auth, err := api.AuthTestContext(ctx)
	if err != nil {
		return append(out, Result{Status: StatusError, What: "slack bot token", Detail: fmt.Sprintf("auth.test: %v (check SLACK_BOT_TOKEN)", err)})
	}
	out = append(out, Result{What: "slack bot token", Detail: fmt.Sprintf("workspace %q (%s) as @%s", auth.Team, auth.TeamID, auth.User)})
	out = append(out, compareScopes(auth.Header, env.Manifest))

	if sc.Mode == "socket" {
		if _, _, err := api.StartSocketModeContext(ctx); err != nil {
			out = append(out, Result{Status: StatusError, What: "slack app token", Detail: fmt.Sprintf("apps.connections.open: %v (check SLACK_APP_TOKEN and its connections:write scope)", err)})
		} else {
			out = append(out, Result{What: "slack app token", Detail: "socket mode: apps.connections.open works"})
		}
	}
	return out
}

// compareScopes checks the X-OAuth-Scopes Slack sent against the
// manifest's bot scopes: a missing one is an error, extra ones are fine.
func compareScopes(h http.Header, manifest []byte) Result {
	const what = "slack scopes"
	want, err := ManifestBotScopes(manifest)
	if err != nil {
		return Result{Status: StatusWarn, What: what, Detail: err.Error()}
	}
	raw := h.Get("X-OAuth-Scopes")
	if raw == "" {
		return Result{Status: StatusWarn, What: what, Detail: "Slack sent no X-OAuth-Scopes header; cannot compare with manifest.yml"}
	}
	granted := map[string]bool{}
	for _, s := range strings.Split(raw, ",") {
		granted[strings.TrimSpace(s)] = true
	}
	var missing, followUps []string
	for _, s := range want {
		switch {
		case granted[s]:
		case followUpScopes[s]:
			followUps = append(followUps, s)
		default:
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		missing = append(missing, followUps...)
		return Result{Status: StatusError, What: what,
			Detail: fmt.Sprintf("missing %s (add them to the app's bot scopes as in manifest.yml and reinstall the app)", strings.Join(missing, ", ")),
			Short:  "missing " + strings.Join(missing, ", ")}
	}
	if len(followUps) > 0 {
		// An app installed before thread follow-ups still answers mentions.
		return Result{Status: StatusWarn, What: what,
			Detail: fmt.Sprintf("missing %s: replies in a thread need an @mention until they are granted (add them and the message.channels and message.groups events as in manifest.yml, then reinstall the app)", strings.Join(followUps, ", ")),
			Short:  "missing " + strings.Join(followUps, ", ")}
	}
	return Result{What: what, Detail: fmt.Sprintf("all %d bot scopes of manifest.yml granted", len(want))}
}

// followUpScopes are the scopes only thread follow-ups without a mention
// need (message.channels, message.groups).
var followUpScopes = map[string]bool{"channels:history": true, "groups:history": true}

func ManifestBotScopes(manifest []byte) ([]string, error) {
	var m struct {
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
	}
	if err := yaml.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("read the manifest: %w", err)
	}
	if len(m.OAuth.Scopes.Bot) == 0 {
		return nil, errors.New("the manifest lists no bot scopes (oauth_config.scopes.bot)")
	}
	return m.OAuth.Scopes.Bot, nil
}

// --- Discord ---

// checkDiscord: the token is a valid bot token (GET /users/@me) and
// belongs to the configured application (GET /oauth2/applications/@me).
func CheckDiscord(ctx context.Context, dc Discord, env Env) []Result {
	var me struct {
		ID       string `json:"id"`
		Username string `json:"username"`
		Bot      bool   `json:"bot"`
	}
	if err := discordGet(ctx, env, dc.Token, "/users/@me", &me); err != nil {
		return []Result{{Status: StatusError, What: "discord token", Detail: fmt.Sprintf("%v (check DISCORD_BOT_TOKEN)", err)}}
	}
	if !me.Bot {
		return []Result{{Status: StatusError, What: "discord token", Detail: fmt.Sprintf("the token belongs to %s (%s), which is not a bot", me.Username, me.ID)}}
	}
	out := []Result{{What: "discord token", Detail: fmt.Sprintf("bot %s (%s)", me.Username, me.ID)}}
	var app struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	const what = "discord application"
	switch err := discordGet(ctx, env, dc.Token, "/oauth2/applications/@me", &app); {
	case err != nil:
		out = append(out, Result{Status: StatusWarn, What: what, Detail: fmt.Sprintf("cannot read the application: %v", err)})
	case dc.ApplicationID == "":
		out = append(out, Result{What: what, Detail: fmt.Sprintf("%s (%s); application_id not set, taken from the gateway", app.Name, app.ID)})
	case dc.ApplicationID != app.ID:
		out = append(out, Result{Status: StatusError, What: what,
			Detail: fmt.Sprintf("application_id is %s but the token belongs to application %s (%s)", dc.ApplicationID, app.ID, app.Name),
			Short:  "application_id does not match the token"})
	default:
		out = append(out, Result{What: what, Detail: fmt.Sprintf("%s (%s) matches application_id", app.Name, app.ID)})
	}
	return out
}

func discordGet(ctx context.Context, env Env, token, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(env.DiscordAPI, "/")+path, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	req.Header.Set("Authorization", "Bot "+token)
	req.Header.Set("User-Agent", "DiscordBot (https://github.com/clarify-bot/clarify, doctor)")
	resp, err := env.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", path, resp.Status, clip(strings.TrimSpace(string(body)), 120))
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return nil
}

// clip shortens s to n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// --- warehouses ---

// checkWarehouse connects, reads the server version and the account's
// grants. Only SELECT VERSION() and SHOW GRANTS are sent: nothing that
// can write.
func CheckWarehouse(ctx context.Context, wc Warehouse) Result {
	what := "warehouse " + wc.Name
	if wc.Demo {
		return Result{What: what, Detail: fmt.Sprintf("built-in demo warehouse (%d orders)", wc.DemoOrders)}
	}
	mc, err := mysql.ParseDSN(wc.DSN)
	if err != nil {
		return Result{Status: StatusError, What: what, Detail: fmt.Sprintf("invalid dsn: %v", err)}
	}
	if deadline, ok := ctx.Deadline(); ok && mc.Timeout <= 0 {
		mc.Timeout = time.Until(deadline)
	}
	conn, err := mysql.NewConnector(mc)
	if err != nil {
		return Result{Status: StatusError, What: what, Detail: fmt.Sprintf("connector: %v", err)}
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return Result{Status: StatusError, What: what, Detail: fmt.Sprintf("cannot reach %s as %q: %v", mc.Addr, mc.User, err), Short: "unreachable"}
	}
	// The engine's kind and version, and the session settings it accepted.
	if rep, err := warehouse.CheckEngine(ctx, db); err == nil {
		version = rep.String()
	}
	stmts, err := grants.Show(ctx, db)
	if err != nil {
		return Result{Status: StatusWarn, What: what,
			Detail: fmt.Sprintf("%s, server %s; cannot read the account's grants (%v), so cannot tell whether it is read-only", mc.Addr, version, err),
			Short:  "cannot read the account's grants"}
	}
	f, perr := grants.Analyze(stmts, mc.DBName)
	var problems []string
	if len(f.Write) > 0 {
		problems = append(problems, "the account can write ("+strings.Join(f.Write, "; ")+")")
	}
	if len(f.System) > 0 {
		problems = append(problems, "the account can read mysql.* ("+strings.Join(f.System, "; ")+")")
	}
	if len(f.Risky) > 0 {
		problems = append(problems, "the account has "+strings.Join(f.Risky, ", "))
	}
	if len(problems) == 0 {
		detail := fmt.Sprintf("%s, server %s, read-only account", mc.Addr, version)
		if len(f.Roles) > 0 {
			detail += fmt.Sprintf(" (roles %s not inspected)", strings.Join(f.Roles, ", "))
		}
		if perr != nil {
			return Result{Status: StatusWarn, What: what, Detail: detail + fmt.Sprintf("; some grants unreadable: %v", perr), Short: "some grants unreadable"}
		}
		return Result{What: what, Detail: detail}
	}
	short := "the account can write"
	switch {
	case len(f.Write) > 0:
	case len(f.System) > 0:
		short = "the account can read mysql.*"
	default:
		short = "the account has PROCESS, SUPER or FILE"
	}
	extra := append([]string{"The bot only needs to read " + mc.DBName + ". Create a read-only account and put it in the dsn:"}, grants.ReadOnlySetup(mc.DBName)...)
	if wc.Access {
		// With access rules, the account must not read what they hide either.
		extra = []string{"The bot only needs to read what its access rules let it. Create its read-only accounts with column privileges:",
			fmt.Sprintf("bot access grants --config FILE --warehouse %s", wc.Name)}
	}
	if len(f.Risky) > 0 {
		extra = append(extra, "or take the global privileges from this account:", fmt.Sprintf("REVOKE %s ON *.* FROM '%s'@'%%';", grants.RiskyNames(f.Risky), mc.User))
	}
	return Result{Status: StatusWarn, What: what,
		Detail: fmt.Sprintf("%s, server %s; %s", mc.Addr, version, strings.Join(problems, "; ")),
		Short:  short, Extra: extra}
}

// --- model ---

// checkModel: the server answers GET /models and lists the model.
func CheckModel(ctx context.Context, lc Model, env Env) Result {
	const what = "model"
	if strings.TrimSpace(lc.Model) == "" {
		return Result{What: what, Detail: "none configured; the offline engine answers"}
	}
	var oc openai.ClientConfig
	if lc.Azure {
		oc = openai.DefaultAzureConfig(lc.APIKey, lc.BaseURL)
		if lc.APIVersion != "" {
			oc.APIVersion = lc.APIVersion
		}
	} else {
		oc = openai.DefaultConfig(lc.APIKey)
		if lc.BaseURL != "" {
			oc.BaseURL = strings.TrimRight(lc.BaseURL, "/")
		}
	}
	oc.HTTPClient = env.HTTP
	list, err := openai.NewClientWithConfig(oc).ListModels(ctx)
	if err != nil {
		var ae *openai.APIError
		var re *openai.RequestError
		if errors.As(err, &ae) && ae.HTTPStatusCode == http.StatusNotFound || errors.As(err, &re) && re.HTTPStatusCode == http.StatusNotFound {
			// Some compatible servers answer chat completions but list nothing.
			return Result{Status: StatusWarn, What: what, Detail: fmt.Sprintf("%s: the server does not list models; cannot check that %q exists", oc.BaseURL, lc.Model)}
		}
		return Result{Status: StatusError, What: what, Detail: fmt.Sprintf("%s: %v", oc.BaseURL, err), Short: "the model server refused or did not answer"}
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	if slices.Contains(ids, lc.Model) {
		return Result{What: what, Detail: fmt.Sprintf("%s at %s", lc.Model, oc.BaseURL)}
	}
	status := StatusError
	if lc.Azure {
		// Azure lists base models, not deployment names.
		status = StatusWarn
	}
	shown := ids
	if len(shown) > 8 {
		shown = append(slices.Clone(shown[:8]), "…")
	}
	return Result{Status: status, What: what,
		Detail: fmt.Sprintf("%q is not among the %d models %s lists (%s)", lc.Model, len(ids), oc.BaseURL, strings.Join(shown, ", ")),
		Short:  fmt.Sprintf("%q not found", lc.Model)}
}

// --- bbolt store ---

// CheckBoltStore: the data directory is writable (or can be created) and
// every bbolt file in it opens read-only with a readable schema version.
// A file locked by a running bot is fine.
func CheckBoltStore(ctx context.Context, dir string) []Result {
	out := []Result{CheckDataDir(dir)}
	files, _ := filepath.Glob(filepath.Join(dir, "*.db"))
	if len(files) == 0 && out[0].Status == StatusOK {
		out = append(out, Result{What: "store", Detail: "no bbolt files yet; they are created at first start"})
	}
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		out = append(out, checkBoltFile(f))
	}
	return out
}

func CheckDataDir(dir string) Result {
	what := "data dir " + dir
	info, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		parent := filepath.Dir(dir)
		for parent != filepath.Dir(parent) {
			if _, err := os.Stat(parent); err == nil {
				break
			}
			parent = filepath.Dir(parent)
		}
		if err := probeWritable(parent); err != nil {
			return Result{Status: StatusError, What: what, Detail: fmt.Sprintf("does not exist and cannot be created: %v", err), Short: "cannot be created"}
		}
		return Result{What: what, Detail: "does not exist yet; it will be created"}
	}
	if err != nil {
		return Result{Status: StatusError, What: what, Detail: err.Error()}
	}
	if !info.IsDir() {
		return Result{Status: StatusError, What: what, Detail: "is not a directory"}
	}
	if err := probeWritable(dir); err != nil {
		return Result{Status: StatusError, What: what, Detail: fmt.Sprintf("not writable: %v", err), Short: "not writable"}
	}
	return Result{What: what, Detail: "writable"}
}

// probeWritable creates and removes a file in dir.
func probeWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".clarify-doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// checkBoltFile opens the file read-only (a shared lock, so it never
// changes the file) and reads meta/schema, as internal/kv writes it for bbolt files.
func checkBoltFile(path string) Result {
	what := "store " + filepath.Base(path)
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 500 * time.Millisecond})
	if errors.Is(err, berrors.ErrTimeout) {
		return Result{What: what, Detail: "in use by a running bot (locked); not inspected"}
	}
	if err != nil {
		return Result{Status: StatusError, What: what, Detail: fmt.Sprintf("cannot open: %v", err), Short: "cannot open"}
	}
	defer db.Close()
	var version string
	err = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte("meta")); b != nil {
			version = string(b.Get([]byte("schema")))
		}
		return nil
	})
	switch {
	case err != nil:
		return Result{Status: StatusError, What: what, Detail: fmt.Sprintf("cannot read: %v", err), Short: "cannot read"}
	case version == "":
		return Result{Status: StatusWarn, What: what, Detail: "opens, but has no schema version (meta/schema); is it a Clarify file?", Short: "no schema version"}
	}
	return Result{What: what, Detail: "schema version " + version}
}

// --- output ---

// PrintResults writes one line per check, the extra lines indented, and
// reports whether any check failed.
func PrintResults(w io.Writer, results []Result) (failed bool) {
	for _, r := range results {
		fmt.Fprintf(w, "%-5s  %s: %s\n", r.Status, r.What, r.Detail)
		for _, x := range r.Extra {
			fmt.Fprintf(w, "         %s\n", x)
		}
		failed = failed || r.Status == StatusError
	}
	return failed
}

// Summary is the one line serve logs: counts, and the first problem.
func Summary(results []Result) (line string, worst Status) {
	var counts [3]int
	var first *Result
	for i, r := range results {
		counts[r.Status]++
		if r.Status > worst {
			worst = r.Status
		}
		if r.Status != StatusOK && (first == nil || r.Status > first.Status) {
			first = &results[i]
		}
	}
	parts := []string{fmt.Sprintf("%d ok", counts[StatusOK])}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	if counts[StatusWarn] > 0 {
		parts = append(parts, plural(counts[StatusWarn], "warning", "warnings"))
	}
	if counts[StatusError] > 0 {
		parts = append(parts, plural(counts[StatusError], "error", "errors"))
	}
	line = "doctor: " + strings.Join(parts, ", ")
	if first != nil {
		short := first.Short
		if short == "" {
			short = first.Detail
		}
		line += fmt.Sprintf(" (%s: %s; see bot doctor)", first.What, short)
	}
	return line, worst
}
