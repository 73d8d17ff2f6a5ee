// Package config is the bot's configuration: a YAML file, then environment
// variables for secrets, then defaults; validated once and passed down as
// values (docs/CONFIGURATION.md).
package config

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.yaml.in/yaml/v3"

	"github.com/clarify-bot/clarify/bot/internal/cli"
	"github.com/clarify-bot/clarify/bot/internal/modelengine"
	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/connectors/sqlguard"
	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
)

// Config is the whole bot configuration: a YAML file, then environment
// variables for secrets, then defaults; validated once here and passed
// down as values. Nothing else reads the environment.
type Config struct {
	DataDir    string            `yaml:"data_dir"`
	LogLevel   string            `yaml:"log_level"` // debug, info, warn, error
	HTTP       HTTPConfig        `yaml:"http"`
	Warehouses []WarehouseConfig `yaml:"warehouses"`
	Dialog     DialogConfig      `yaml:"dialog"`
	LLM        LLMConfig         `yaml:"llm"`
	Slack      SlackConfig       `yaml:"slack"`
	Discord    DiscordConfig     `yaml:"discord"`
	Limits     LimitsConfig      `yaml:"limits"`
	Audit      AuditConfig       `yaml:"audit"`
	Store      StoreConfig       `yaml:"store"`
	Admin      AdminConfig       `yaml:"admin"` // bot/internal/adminweb
}

// StoreConfig says where the bot keeps what it learns and its
// conversations: bbolt files in data_dir (DSN empty, one process), or a
// database on a MySQL-protocol server shared by replicas.
type StoreConfig struct {
	// DSN in go-sql-driver form, naming a database the bot may create
	// tables in: user:pass@tcp(host:3306)/clarify.
	DSN string `yaml:"dsn"`
	// MaxConnections bounds the connections each replica opens to the
	// store's server (default 10): a burst waits for a connection instead
	// of exhausting the server's max_connections.
	MaxConnections int `yaml:"max_connections"`
	// LeaseTTL is how long a conversation's turn lock and a replica's
	// heartbeat outlive a replica that died (default 10s): the time after
	// which another replica takes over its conversation and replaces its
	// placeholders.
	LeaseTTL time.Duration `yaml:"lease_ttl"`
}

// HTTPConfig is the bot's own HTTP server: /healthz, and Slack's endpoints in HTTP mode.
type HTTPConfig struct {
	Addr string `yaml:"addr"` // default ":8080"; "" with Slack in socket mode still serves /healthz
	// PprofAddr serves Go's profiles (/debug/pprof/) on a loopback address
	// of their own ("127.0.0.1:6060"); "" (the default) serves none. They
	// show the bot's memory and stacks, so another address is refused.
	PprofAddr string `yaml:"pprof_addr"`
}

// ServeDemoOrders is the size of a demo warehouse bot serve runs in its
// own process (demo_orders): small enough that a replica stays under 300 MB
// resident after a burst of questions (BenchmarkServeDemoMemory); bot demo
// and the evaluation keep demodata.DefaultOrders.
const ServeDemoOrders = 20_000

// CheckPprofAddr accepts "" or host:port with a loopback host.
func CheckPprofAddr(addr string) error {
	if addr == "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err == nil {
		if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("http.pprof_addr %q: profiles are served on a loopback address only, e.g. 127.0.0.1:6060", addr)
}

// WarehouseConfig is one warehouse people can ask about.
type WarehouseConfig struct {
	Name string `yaml:"name"`
	// DSN in go-sql-driver form; or Demo for the built-in demo warehouse.
	DSN          string        `yaml:"dsn"`
	Demo         bool          `yaml:"demo"`
	DemoOrders   int           `yaml:"demo_orders"`
	QueryTimeout time.Duration `yaml:"query_timeout"`
	MaxRows      int           `yaml:"max_rows"`
	// MaxConnections bounds the connections to the warehouse (default 8);
	// it also caps the questions about it worked on at once, so that a
	// slow warehouse cannot hold every worker.
	MaxConnections int `yaml:"max_connections"`
	// Synonyms add domain words for column search ("arr": ["annual", "recurring", "revenue"]).
	Synonyms map[string][]string `yaml:"synonyms"`
	// Access says who may ask and which tables and columns are hidden or
	// sensitive; names are checked against the schema at start-up. Its
	// levels give some people other rules, on accounts of their own
	// (bot/internal/enforce).
	Access access.Rules `yaml:"access"`
	// Glossary is a team glossary file (connectors/glossary) loaded as
	// workspace facts at start and on SIGHUP.
	Glossary string `yaml:"glossary"`
	// Functions are stored or loadable functions statements may call,
	// "name" or "database.name"; built-ins are allowed by server kind.
	Functions []string `yaml:"functions"`
	// MaxResultBytes caps the bytes of one result (default 8 MiB).
	MaxResultBytes int `yaml:"max_result_bytes"`
}

// DBConfig is the connection settings of w for warehouse.Open.
func (w WarehouseConfig) DBConfig(logger *slog.Logger) warehouse.Config {
	return warehouse.Config{DSN: w.DSN, QueryTimeout: w.QueryTimeout, MaxRows: w.MaxRows, MaxBytes: w.MaxResultBytes,
		Functions: w.Functions, Logger: logger}
}

// DialogConfig tunes clarification.
type DialogConfig struct {
	Tau              float64       `yaml:"tau"`
	MaxRounds        int           `yaml:"max_rounds"`
	MaxCandidates    int           `yaml:"max_candidates"`
	CandidateTimeout time.Duration `yaml:"candidate_timeout"`
	AnswerMaxRows    int           `yaml:"answer_max_rows"`
	// SharedScanRows caps a statement run for several readings at once;
	// -1 runs every reading on its own.
	SharedScanRows int `yaml:"shared_scan_rows"`
	DisplayRows    int `yaml:"display_rows"`
	// AskAboutWords asks what a word the schema does not use means
	// ("By 'clients', do you mean…"); on unless set to false
	// (docs/TEACHING.md).
	AskAboutWords *bool `yaml:"ask_about_words"`
	// KeptCells bounds the results kept in memory for "more" and "csv"
	// (rows × columns); -1 keeps none (each page runs the answer again).
	KeptCells       int           `yaml:"kept_cells"`
	ConversationTTL time.Duration `yaml:"conversation_ttl"`
}

// LLMConfig selects a chat-completions model (bot/internal/modelengine).
type (
	LLMConfig  = modelengine.Config
	TokenPrice = modelengine.TokenPrice
)

// SlackConfig configures the Slack adapter; empty tokens mean no Slack.
type SlackConfig struct {
	BotToken      string   `yaml:"bot_token"`
	AppToken      string   `yaml:"app_token"`
	SigningSecret string   `yaml:"signing_secret"`
	Mode          string   `yaml:"mode"` // "socket" (default) or "http"
	Admins        []string `yaml:"admins"`
	// Workers bounds the turns worked on at once (default 16);
	// PerPersonTurns one person's (default 2).
	Workers        int    `yaml:"workers"`
	PerPersonTurns int    `yaml:"per_person_turns"`
	APIURL         string `yaml:"api_url"` // for tests and staging: another Slack Web API
}

// DiscordConfig configures the Discord adapter; an empty token means no Discord.
type DiscordConfig struct {
	Token         string           `yaml:"token"`
	ApplicationID string           `yaml:"application_id"`
	GuildID       string           `yaml:"guild_id"` // register commands in one guild (development)
	DataChannels  []DiscordChannel `yaml:"data_channels"`
	AdminRoles    []string         `yaml:"admin_roles"`
	Admins        []string         `yaml:"admins"`
	ShardID       int              `yaml:"shard_id"`
	ShardCount    int              `yaml:"shard_count"`
	Workers       int              `yaml:"workers"`
	// APIURL sends the REST calls (and the gateway lookup) to another
	// server than discord.com, e.g. http://127.0.0.1:8081 for a fake or a
	// staging proxy; GatewayURL overrides the gateway the lookup returns
	// (wss://…). For tests and staging only.
	APIURL     string `yaml:"api_url"`
	GatewayURL string `yaml:"gateway_url"`
}

// DiscordChannel is a channel where the bot answers questions.
type DiscordChannel struct {
	ID string `yaml:"id"`
	// AnyMessage: every message is a question, not only mentions.
	AnyMessage bool `yaml:"any_message"`
}

// LimitsConfig caps how fast new questions may come, per person and per
// channel (answers to clarifications and clicks are not counted); zero
// means no limit.
type LimitsConfig struct {
	UserQuestionsPerMinute    int `yaml:"user_questions_per_minute"`
	ChannelQuestionsPerMinute int `yaml:"channel_questions_per_minute"`
	// Burst is how many questions one person may ask at once before the
	// rate applies (default 3); ChannelBurst how many a channel takes at
	// once (default 10: several people asking together is normal).
	Burst        int `yaml:"burst"`
	ChannelBurst int `yaml:"channel_burst"`
}

// Load reads the file (if path is not empty), applies the
// environment (getenv is os.Getenv in main), fills defaults and validates.
func Load(path string, getenv func(string) string) (Config, error) {
	var c Config
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("read config: %w", err)
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		switch err := dec.Decode(&c); {
		case errors.Is(err, io.EOF):
			// Without a file the bot starts on the demo warehouse; an empty
			// file is a mistake (a deployment's secret not mounted), and
			// must not put the demo in front of a team.
			return c, fmt.Errorf("config %s is empty: name at least one warehouse (warehouses: [{name: …, dsn: …}]), or leave --config out to run the demo", path)
		case err != nil:
			return c, fmt.Errorf("config %s: %w", path, err)
		}
	}
	c.applyEnv(getenv)
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}

func (c *Config) applyEnv(getenv func(string) string) {
	set := func(dst *string, key string) {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			*dst = v
		}
	}
	set(&c.DataDir, "CLARIFY_DATA_DIR")
	set(&c.Store.DSN, "CLARIFY_STORE_DSN")
	set(&c.Admin.Secret, "CLARIFY_ADMIN_SECRET")
	set(&c.Slack.BotToken, "SLACK_BOT_TOKEN")
	set(&c.Slack.AppToken, "SLACK_APP_TOKEN")
	set(&c.Slack.SigningSecret, "SLACK_SIGNING_SECRET")
	set(&c.Discord.Token, "DISCORD_BOT_TOKEN")
	set(&c.Discord.ApplicationID, "DISCORD_APPLICATION_ID")
	set(&c.LLM.APIKey, "OPENAI_API_KEY")
	set(&c.LLM.BaseURL, "OPENAI_BASE_URL")
	set(&c.LLM.Model, "OPENAI_MODEL")
	if dsn := strings.TrimSpace(getenv("CLARIFY_DSN")); dsn != "" {
		c.Warehouses = append([]WarehouseConfig{{Name: "default", DSN: dsn}}, c.Warehouses...)
	}
}

// ApplyDefaults fills what the file and the environment left unset.
func (c *Config) ApplyDefaults() {
	if c.DataDir == "" {
		c.DataDir = cli.DefaultDataDir()
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
	if c.HTTP.Addr == "" {
		c.HTTP.Addr = ":8080"
	}
	if len(c.Warehouses) == 0 {
		c.Warehouses = []WarehouseConfig{{Name: "demo", Demo: true}}
	}
	for i := range c.Warehouses {
		w := &c.Warehouses[i]
		if w.Demo && w.DemoOrders <= 0 {
			w.DemoOrders = ServeDemoOrders
		}
	}
	if c.Slack.Mode == "" {
		c.Slack.Mode = "socket"
	}
	if c.LLM.Samples <= 0 {
		c.LLM.Samples = 5
	}
	if c.LLM.Temperature == 0 {
		c.LLM.Temperature = 0.7
	}
	if c.LLM.Timeout <= 0 {
		c.LLM.Timeout = 60 * time.Second
	}
	if c.Limits.Burst == 0 {
		c.Limits.Burst = 3
	}
	if c.Limits.ChannelBurst == 0 {
		c.Limits.ChannelBurst = max(10, c.Limits.Burst)
	}
	if c.Store.MaxConnections <= 0 {
		c.Store.MaxConnections = 10
	}
	if c.Store.LeaseTTL <= 0 {
		c.Store.LeaseTTL = 10 * time.Second
	}
	for i := range c.Warehouses {
		if c.Warehouses[i].MaxConnections <= 0 {
			c.Warehouses[i].MaxConnections = warehouse.DefaultMaxOpenConns
		}
	}
	if c.Slack.Workers <= 0 {
		c.Slack.Workers = 16
	}
	if c.Slack.PerPersonTurns <= 0 {
		c.Slack.PerPersonTurns = 2
	}
}

// Validate checks what can be checked without the network.
func (c *Config) Validate() error {
	var errs []error
	if err := CheckPprofAddr(c.HTTP.PprofAddr); err != nil {
		errs = append(errs, err)
	}
	names := map[string]bool{}
	for i, w := range c.Warehouses {
		switch {
		case w.Name == "":
			errs = append(errs, fmt.Errorf("warehouses[%d]: name is required", i))
		case names[w.Name]:
			errs = append(errs, fmt.Errorf("warehouses[%d]: duplicate name %q", i, w.Name))
		}
		names[w.Name] = true
		switch {
		case w.Demo && w.DSN != "":
			errs = append(errs, fmt.Errorf("warehouse %q: give either demo or dsn, not both", w.Name))
		case !w.Demo && w.DSN == "":
			errs = append(errs, fmt.Errorf("warehouse %q: dsn is required (user:pass@tcp(host:3306)/db)", w.Name))
		case w.DSN != "":
			cfg, err := mysql.ParseDSN(w.DSN)
			if err != nil {
				errs = append(errs, fmt.Errorf("warehouse %q: invalid dsn: %w", w.Name, err))
			} else if cfg.DBName == "" {
				errs = append(errs, fmt.Errorf("warehouse %q: the dsn names no database (…/dbname)", w.Name))
			} else if err := warehouse.CheckSession(cfg); err != nil {
				errs = append(errs, fmt.Errorf("warehouse %q: %w", w.Name, err))
			}
		}
		if err := sqlguard.ValidateFunctions(w.Functions); err != nil {
			errs = append(errs, fmt.Errorf("warehouse %q: %w", w.Name, err))
		}
		if w.MaxResultBytes < 0 {
			errs = append(errs, fmt.Errorf("warehouse %q: max_result_bytes must not be negative", w.Name))
		}
		if err := w.Access.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("warehouse %q: %w", w.Name, err))
		}
		errs = append(errs, w.validateLevels()...)
	}
	if err := cli.ValidateStoreDSN(c.Store.DSN); err != nil {
		errs = append(errs, err)
	}
	if err := c.Admin.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Slack.BotToken != "" || c.Slack.AppToken != "" || c.Slack.SigningSecret != "" {
		if !strings.HasPrefix(c.Slack.BotToken, "xoxb-") {
			errs = append(errs, errors.New("slack: bot_token (SLACK_BOT_TOKEN) must be a bot token starting with xoxb-"))
		}
		switch c.Slack.Mode {
		case "socket":
			if !strings.HasPrefix(c.Slack.AppToken, "xapp-") {
				errs = append(errs, errors.New("slack: socket mode needs an app-level token (SLACK_APP_TOKEN) starting with xapp-, with the connections:write scope"))
			}
		case "http":
			if c.Slack.SigningSecret == "" {
				errs = append(errs, errors.New("slack: http mode needs the signing secret (SLACK_SIGNING_SECRET)"))
			}
		default:
			errs = append(errs, fmt.Errorf("slack: mode must be socket or http, not %q", c.Slack.Mode))
		}
	}
	if c.Discord.ShardCount < 0 || c.Discord.ShardCount > 0 && (c.Discord.ShardID < 0 || c.Discord.ShardID >= c.Discord.ShardCount) {
		errs = append(errs, fmt.Errorf("discord: shard_id %d is outside 0..shard_count-1 (%d)", c.Discord.ShardID, c.Discord.ShardCount))
	}
	if c.LLM.Model == "" && c.LLM.APIKey != "" && c.LLM.BaseURL == "" {
		errs = append(errs, errors.New("llm: an API key is set but no model (llm.model or OPENAI_MODEL)"))
	}
	if c.Dialog.Tau < 0 || c.Dialog.Tau > 1 {
		errs = append(errs, fmt.Errorf("dialog: tau must be between 0 and 1, not %v", c.Dialog.Tau))
	}
	if c.Limits.UserQuestionsPerMinute < 0 || c.Limits.ChannelQuestionsPerMinute < 0 || c.Limits.Burst < 0 || c.Limits.ChannelBurst < 0 {
		errs = append(errs, errors.New("limits: questions per minute and bursts must not be negative (0 means no limit)"))
	}
	if c.Store.LeaseTTL > 0 && c.Store.LeaseTTL < 3*time.Second {
		errs = append(errs, fmt.Errorf("store: lease_ttl %s is too short; a busy server store may not renew it in time (at least 3s)", c.Store.LeaseTTL))
	}
	for _, u := range []struct{ key, v string }{{"discord.api_url", c.Discord.APIURL}, {"discord.gateway_url", c.Discord.GatewayURL}, {"slack.api_url", c.Slack.APIURL}} {
		if u.v == "" {
			continue
		}
		if p, err := url.Parse(u.v); err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https" && p.Scheme != "ws" && p.Scheme != "wss") {
			errs = append(errs, fmt.Errorf("%s %q: want an absolute http(s):// (or ws(s):// for the gateway) URL", u.key, u.v))
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log_level must be debug, info, warn or error, not %q", c.LogLevel))
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid configuration:\n  %w", joinErrs(errs))
	}
	return nil
}

func joinErrs(errs []error) error {
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New(strings.Join(msgs, "\n  "))
}

// ManagerConfig turns the file's dialog section into the manager's config.
func (d DialogConfig) ManagerConfig() dialog.Config {
	return dialog.Config{
		Tau: d.Tau, MaxRounds: d.MaxRounds, MaxCandidates: d.MaxCandidates,
		NoWordQuestions: d.AskAboutWords != nil && !*d.AskAboutWords,
		CandidateLimits: warehouse.Limits{Timeout: d.CandidateTimeout},
		AnswerLimits:    warehouse.Limits{MaxRows: d.AnswerMaxRows},
		SharedScanRows:  d.SharedScanRows,
		DisplayRows:     d.DisplayRows, KeptCells: d.KeptCells, TTL: d.ConversationTTL,
	}
}
