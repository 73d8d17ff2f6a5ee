package dialog

import (
	"context"
	crand "crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/clarify-bot/clarify/connectors/catalog"
	"github.com/clarify-bot/clarify/dialog/link"
	"github.com/clarify-bot/clarify/internal/sqlresult"
	"github.com/clarify-bot/clarify/ontology"
)

// Config tunes the manager. Zero fields take the defaults.
type Config struct {
	// Warehouse names the warehouse this manager answers about (facts are per warehouse).
	Warehouse string
	// Tau: stop asking once one interpretation has at least this probability.
	Tau float64
	// MaxRounds caps the clarifications asked per question; NeverAsk
	// (any negative value) answers without asking.
	MaxRounds int
	// MaxCandidates caps the candidates executed per round.
	MaxCandidates int
	// NoWordQuestions never asks what a word the schema does not use
	// means (vocab.go); remembered words and the glossary's synonyms still
	// apply. bot serve sets it when dialog.ask_about_words is false.
	NoWordQuestions bool
	// Parallel caps candidates running at once.
	Parallel int
	// CandidateLimits bound each candidate's execution.
	CandidateLimits sqlresult.Limits
	// AnswerLimits bound the final query (the rows people can download).
	AnswerLimits sqlresult.Limits
	// SharedScanRows caps the rows of one statement run for several
	// candidates that read the same rows (see sharedscan.go); zero takes
	// AnswerLimits.MaxRows, a negative value runs every candidate on its own.
	SharedScanRows int
	// DisplayRows is how many rows an answer shows inline, and each
	// "more" after it.
	DisplayRows int
	// KeptCells bounds the answers' results kept in memory for "more",
	// "all" and "csv" (rows × columns, least recently used dropped first);
	// zero takes 2,000,000, a negative value keeps none (every page runs
	// the answer's statement again).
	KeptCells int
	// TTL is how long a conversation can be resumed.
	TTL time.Duration
	// MaxQuestionLength refuses longer messages with a clear note.
	MaxQuestionLength int
	// Strategy chooses the decision point to ask about: StrategyEIG (the
	// default), or StrategyRandom / StrategyMaxProb for ablations.
	Strategy string
	// Seed seeds StrategyRandom.
	Seed   uint64
	Now    func() time.Time
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Tau <= 0 {
		c.Tau = 0.8
	}
	switch {
	case c.MaxRounds == 0:
		c.MaxRounds = 4
	case c.MaxRounds < 0:
		c.MaxRounds = 0
	}
	if c.MaxCandidates <= 0 {
		c.MaxCandidates = 32
	}
	if c.Parallel <= 0 {
		c.Parallel = 4
	}
	if c.CandidateLimits.Timeout <= 0 {
		c.CandidateLimits.Timeout = 10 * time.Second
	}
	if c.CandidateLimits.MaxRows <= 0 {
		c.CandidateLimits.MaxRows = 1000
	}
	if c.AnswerLimits.Timeout <= 0 {
		c.AnswerLimits.Timeout = 30 * time.Second
	}
	if c.AnswerLimits.MaxRows <= 0 {
		c.AnswerLimits.MaxRows = 10_000
	}
	if c.SharedScanRows == 0 {
		c.SharedScanRows = max(c.AnswerLimits.MaxRows, c.CandidateLimits.MaxRows)
	}
	if c.DisplayRows <= 0 {
		c.DisplayRows = 20
	}
	if c.KeptCells == 0 {
		c.KeptCells = 2_000_000
	}
	if c.TTL <= 0 {
		c.TTL = 7 * 24 * time.Hour
	}
	if c.MaxQuestionLength <= 0 {
		c.MaxQuestionLength = 2000
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// NeverAsk as Config.MaxRounds answers every question with its likeliest
// reading, asking nothing (to measure what asking is worth).
const NeverAsk = -1

// Facts is the part of the ontology the conversation flow uses.
type Facts interface {
	Applicable(ctx context.Context, owners ontology.Owners, warehouse string) ([]ontology.Fact, error)
	Learn(ctx context.Context, f ontology.Fact) (ontology.Fact, error)
	RecordUse(ctx context.Context, id string) error
	Confirm(ctx context.Context, id string) error
	// Reject weakens fact id for person by (an owner key): their own fact
	// for everyone, a shared one for them alone; another person's fact is
	// refused with ontology.ErrForbidden.
	Reject(ctx context.Context, id, by string) (ontology.Fact, error)
}

// FactAdmin is the part of the ontology the preference commands use.
type FactAdmin interface {
	List(ctx context.Context, f ontology.Filter) ([]ontology.Fact, error)
	Get(ctx context.Context, id string) (ontology.Fact, error)
	Delete(ctx context.Context, id string, actor ontology.Actor) error
	Forget(ctx context.Context, owner, warehouse, phrase string, actor ontology.Actor) (int, error)
	Promote(ctx context.Context, id string, to ontology.Scope, owner string, actor ontology.Actor) (ontology.Fact, error)
	Edit(ctx context.Context, id string, target *ontology.Target, meaning string, actor ontology.Actor) (ontology.Fact, error)
}

// States stores conversation state (a *convstore.Store). Load fails with
// an error matching ErrConversationNotFound or ErrConversationExpired when
// there is nothing to resume.
type States interface {
	Save(ctx context.Context, id string, state []byte, expires time.Time) error
	Load(ctx context.Context, id string) ([]byte, error)
}

// StateLocker is implemented by States that several processes share (a
// server store behind replicas): Lock holds a conversation against the
// other processes for one turn, so that two clicks racing on two replicas
// take turns instead of losing an update. Within a process the manager's
// own mutexes serialise turns.
type StateLocker interface {
	Lock(ctx context.Context, key string) (unlock func(), err error)
}

// Errors a States implementation returns from Load.
var (
	// ErrConversationNotFound: no conversation with that id.
	ErrConversationNotFound = errors.New("conversation not found")
	// ErrConversationExpired: the conversation exists but has expired.
	ErrConversationExpired = errors.New("conversation expired")
)

// Deps are the manager's collaborators.
type Deps struct {
	Engine Engine
	// Fallback answers when Engine fails (the offline engine behind a model).
	Fallback Engine
	// Pool, when set, adds its readings to the main engine's as one
	// candidate set (the offline engine beside a model): its readings are
	// evidence for the model's and stand for what the model's samples may
	// have missed (calibrate.go).
	Pool    Engine
	Exec    Executor
	Catalog *catalog.Catalog
	Facts   Facts
	// Admin serves the preference commands (list others', forget, delete,
	// promote, edit); nil turns them off with a clear note.
	Admin  FactAdmin
	States States

	// Observe hears questions, clarifications, answers and refusals (nil: nothing).
	Observe Observer
	// Gate admits new questions (rate limits); nil admits all.
	Gate Gate
	// Questions records every answered, refused or failed question in the
	// audit log (an *ontology.Store); nil records nothing.
	Questions QuestionLog
}

// Manager runs conversations. It is safe for concurrent use; events of one
// conversation are handled one at a time.
type Manager struct {
	cfg    Config
	deps   Deps
	labels *Labels
	canon  func(string) string
	admin  FactAdmin
	locks  [64]sync.Mutex
	log    *slog.Logger
	rngMu  sync.Mutex
	rng    *rand.Rand
	obs    Observer
	// kept holds recent answers' results for paging (paging.go).
	kept *keptResults
	// cal learns how often the model engine's samples are right.
	cal calibrator
	// linker links the questions' words to the schema (vocab.go).
	linker *link.Linker
}

// New checks the dependencies and builds a manager.
func New(cfg Config, deps Deps) (*Manager, error) {
	cfg = cfg.withDefaults()
	switch {
	case deps.Engine == nil:
		return nil, errors.New("dialog: no engine")
	case deps.Exec == nil:
		return nil, errors.New("dialog: no warehouse executor")
	case deps.Catalog == nil:
		return nil, errors.New("dialog: no catalog")
	case deps.Facts == nil:
		return nil, errors.New("dialog: no fact store")
	case deps.States == nil:
		return nil, errors.New("dialog: no conversation store")
	}
	switch cfg.Strategy {
	case "", StrategyEIG, StrategyRandom, StrategyMaxProb:
	default:
		return nil, fmt.Errorf("dialog: unknown strategy %q (want eig, random or max-prob)", cfg.Strategy)
	}
	m := &Manager{cfg: cfg, deps: deps, labels: NewLabels(deps.Catalog.Snapshot()), log: cfg.Logger, rng: rand.New(rand.NewPCG(cfg.Seed, 0x5eed))}
	m.canon = m.labels.canonValue()
	m.kept = newKeptResults(cfg.KeptCells)
	m.linker = newLinker(deps)
	m.admin = deps.Admin
	m.obs = deps.Observe
	if m.obs == nil {
		m.obs = NopObserver{}
	}
	return m, nil
}

// Labels words the schema of this manager's warehouse.
func (m *Manager) Labels() *Labels { return m.labels }

func (m *Manager) lock(key string) func() {
	h := fnv.New32a()
	h.Write([]byte(key))
	mu := &m.locks[h.Sum32()%uint32(len(m.locks))]
	mu.Lock()
	return mu.Unlock
}

func stateKey(ev Event) string {
	return ev.Who.Identity().InWorkspace(ev.Conversation)
}

func ownerKeys(w Who) ontology.Owners { return w.Identity().Owners() }

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func newID() string {
	b := make([]byte, 5)
	_, _ = crand.Read(b)
	return idEncoding.EncodeToString(b)
}

func notice(conv, text string) Reply {
	return Reply{Kind: ReplyNotice, Conversation: conv, Text: text}
}

func ephemeral(conv, text string) Reply {
	r := notice(conv, text)
	r.Ephemeral = true
	return r
}

// Handle processes one event and returns what to say. User mistakes and
// warehouse problems come back as notices; an error (a *Failure, already
// logged) means the bot itself failed, and the adapter says FailureText.
func (m *Manager) Handle(ctx context.Context, ev Event) ([]Reply, error) {
	replies, err := m.handle(ctx, ev)
	if err != nil {
		var f *Failure
		if !errors.As(err, &f) {
			f = m.fail("cannot handle the event", err)
		}
		return replies, f
	}
	return replies, nil
}

func (m *Manager) handle(ctx context.Context, ev Event) ([]Reply, error) {
	if ev.At.IsZero() {
		ev.At = m.cfg.Now()
	}
	switch ev.Kind {
	case EventPrefs:
		return m.prefs(ctx, ev)
	case EventForget:
		return m.forget(ctx, ev)
	case EventDeleteFact:
		return m.deleteFact(ctx, ev)
	case EventPromote:
		return m.promote(ctx, ev)
	case EventEditFact:
		return m.editFact(ctx, ev)
	}
	if ev.Conversation == "" {
		return nil, errors.New("dialog: event without a conversation")
	}
	unlock := m.lock(stateKey(ev))
	defer unlock()
	if l, ok := m.deps.States.(StateLocker); ok {
		release, err := l.Lock(ctx, stateKey(ev))
		if err != nil {
			return nil, fmt.Errorf("lock conversation %s: %w: %w", stateKey(ev), ErrStore, err)
		}
		defer release()
	}
	switch ev.Kind {
	case EventMessage:
		return m.message(ctx, ev)
	case EventChoose, EventOther:
		return m.answerClarification(ctx, ev)
	case EventCorrect, EventWrong, EventShowSQL, EventChange:
		return m.feedback(ctx, ev)
	case EventMore, EventAllRows, EventCSV:
		return m.pageEvent(ctx, ev)
	}
	return nil, fmt.Errorf("dialog: unknown event kind %d", ev.Kind)
}

// load reads a conversation; missing or expired ones give (nil, nil, note).
func (m *Manager) load(ctx context.Context, key string) (*convState, string, error) {
	b, err := m.deps.States.Load(ctx, key)
	switch {
	case errors.Is(err, ErrConversationNotFound):
		return nil, "I can't find that conversation any more. Please ask your question again.", nil
	case errors.Is(err, ErrConversationExpired):
		return nil, "That conversation has expired. Please ask your question again.", nil
	case err != nil:
		return nil, "", fmt.Errorf("load conversation %s: %w: %w", key, ErrStore, err)
	}
	st, err := decodeState(b, m.slots)
	if err != nil {
		m.log.Warn("unreadable conversation state; starting over", "key", key, "err", err)
		return nil, "I couldn't resume that conversation. Please ask your question again.", nil
	}
	st.began = m.cfg.Now()
	return st, "", nil
}

func (m *Manager) save(ctx context.Context, st *convState) error {
	st.Updated = m.cfg.Now()
	st.spend(st.Updated)
	b, err := st.encode()
	if err != nil {
		return err
	}
	if err := m.deps.States.Save(ctx, st.Key, b, st.Updated.Add(m.cfg.TTL)); err != nil {
		return fmt.Errorf("save conversation %s: %w: %w", st.Key, ErrStore, err)
	}
	return nil
}

// normalizeText collapses whitespace and drops control characters.
func normalizeText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			continue
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// Trace summarises a conversation for evaluation and debugging.
type Trace struct {
	Engine string `json:"engine"`
	// Candidates, Failed and Interpretations describe the first round.
	Candidates      int `json:"candidates"`
	Failed          int `json:"failed"`
	Interpretations int `json:"interpretations"`
	// Entropy is H(Y) of the first round's interpretations, in bits.
	Entropy float64 `json:"entropy"`
	// Questions counts the clarifications asked; FactsUsed the remembered
	// choices applied instead of asking.
	Questions int `json:"questions"`
	FactsUsed int `json:"facts_used"`
	// SQL lists the first round's candidates, most likely first.
	SQL []string `json:"sql,omitempty"`
	// TopP is the first round's probability of its likeliest
	// interpretation, and TopSQL that interpretation's query: how sure
	// the bot was before asking, for calibration.
	TopP   float64 `json:"top_p,omitempty"`
	TopSQL string  `json:"top_sql,omitempty"`
	// AnswerP is the probability of the answered interpretation when the
	// bot answered.
	AnswerP float64 `json:"answer_p,omitempty"`
	// Prompt lists the "table.column" names the model was shown in the
	// first round (empty for the offline engine).
	Prompt []string `json:"prompt,omitempty"`
	// Tokens are the model tokens the whole conversation spent.
	Tokens int `json:"tokens,omitempty"`
}

// Trace reads the summary of a conversation.
func (m *Manager) Trace(ctx context.Context, who Who, conversation string) (*Trace, error) {
	st, note, err := m.load(ctx, stateKey(Event{Who: who, Conversation: conversation}))
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errors.New(note)
	}
	t := Trace{}
	if st.First != nil {
		t = *st.First
	}
	t.Questions, t.FactsUsed = st.Questions, len(st.Applied)
	t.AnswerP, t.Tokens = st.AnswerP, st.Tokens
	return &t, nil
}

// Owns reports whether this manager's warehouse holds the conversation, so
// that a router over several warehouses sends its events to the right one.
func (m *Manager) Owns(ctx context.Context, who Who, conversation string) (bool, error) {
	st, _, err := m.load(ctx, stateKey(Event{Who: who, Conversation: conversation}))
	if err != nil || st == nil {
		return false, err
	}
	return st.Warehouse == m.cfg.Warehouse, nil
}

// Warehouse names the warehouse this manager answers about.
func (m *Manager) Warehouse() string { return m.cfg.Warehouse }
