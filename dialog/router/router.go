// Package router sends chat events to the dialog manager of the right
// warehouse and answers "warehouse <name>"; it applies each warehouse's
// access rules and the rate limits' precheck on the way.
package router

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/clarify-bot/clarify/connectors/access"
	"github.com/clarify-bot/clarify/dialog"
)

// Manager is what the router asks of a warehouse's dialog manager.
type Manager interface {
	Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error)
	Owns(ctx context.Context, who dialog.Who, conversation string) (bool, error)
}

var _ Manager = (*dialog.Manager)(nil)

// Warehouse is one configured warehouse as the router sees it.
type Warehouse struct {
	Name           string
	Rules          access.Rules
	MaxConnections int
	// Manager is the dialog manager of the warehouse's access level that
	// applies to the asker (each level runs on its own account), nil
	// until the warehouse first started.
	Manager func(a access.Asker) Manager
	// Ready reports whether questions can go to the warehouse now.
	Ready func() bool
}

// Limiter prechecks new questions against the rate limits: "" to go
// ahead, else the refusal.
type Limiter interface {
	Precheck(ctx context.Context, who dialog.Who) string
}

// Options are the router's optional parts.
type Options struct {
	// Choices keeps the channels' choices in the server store, so that
	// every replica routes a channel alike; nil with files (one process).
	Choices *Choices
	// Limiter prechecks new questions (nil: no limits).
	Limiter Limiter
	// Refused hears each access-rule refusal, RateRefused each refusal of
	// the limiter (metrics); either may be nil.
	Refused, RateRefused func()
}

// Router sends events to the manager of the right warehouse: the one that
// holds the conversation, else the one chosen in the channel with
// "warehouse <name>", else the first configured. A warehouse that is down
// (or not started yet) gets a plain reply instead of a long wait.
type Router struct {
	slots  map[string]Warehouse
	names  []string
	mu     sync.Mutex
	chosen map[string]string // platform:workspace:channel → warehouse
	// lanes remembers which warehouse a conversation went to, for the
	// work pools' fairness (bounded: cleared when full).
	lanes map[string]string
	opts  Options
}

const maxLanes = 4096

// New routes to the warehouses, the first being the default.
func New(warehouses []Warehouse, opts Options) *Router {
	r := &Router{slots: map[string]Warehouse{}, chosen: map[string]string{}, lanes: map[string]string{}, opts: opts}
	for _, w := range warehouses {
		r.slots[w.Name] = w
		r.names = append(r.names, w.Name)
	}
	return r
}

// Manager is the dialog manager of a started warehouse, for people of its
// default access level.
func (r *Router) Manager(name string) (Manager, bool) {
	return r.managerFor(name, access.Asker{})
}

// managerFor is the manager of the access level that applies to a.
func (r *Router) managerFor(name string, a access.Asker) (Manager, bool) {
	s, ok := r.slots[name]
	if !ok {
		return nil, false
	}
	mgr := s.Manager(a)
	return mgr, mgr != nil
}

func (r *Router) rules(name string) access.Rules {
	if s, ok := r.slots[name]; ok {
		return s.Rules
	}
	return access.Rules{}
}

// Warehouses lists the configured warehouse names.
func (r *Router) Warehouses() []string { return append([]string(nil), r.names...) }

func channelKey(w dialog.Who) string { return w.Identity().ChannelKey() }

// Choose selects the warehouse for new questions in the event's channel.
func (r *Router) Choose(who dialog.Who, name string) (string, error) {
	name = strings.TrimSpace(name)
	if _, ok := r.slots[name]; !ok {
		names := append([]string(nil), r.names...)
		sort.Strings(names)
		return "", fmt.Errorf("there is no warehouse called %q; the warehouses are: %s", name, strings.Join(names, ", "))
	}
	if msg := r.denied(name, who); msg != "" {
		return "", errors.New(msg)
	}
	if err := r.opts.Choices.set(channelKey(who), name); err != nil {
		return "", fmt.Errorf("cannot remember the choice: %w", err)
	}
	r.mu.Lock()
	r.chosen[channelKey(who)] = name
	r.mu.Unlock()
	return name, nil
}

// Current is the warehouse new questions in the channel go to.
func (r *Router) Current(who dialog.Who) string {
	if n, ok := r.opts.Choices.get(channelKey(who)); ok {
		if _, known := r.slots[n]; known {
			return n
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.chosen[channelKey(who)]; ok {
		return n
	}
	// The first warehouse this person may ask here, so that access rules
	// on the first one do not hide the others.
	for _, n := range r.names {
		if r.denied(n, who) == "" {
			return n
		}
	}
	return r.names[0]
}

// Handle implements the adapters' Dialog interface.
func (r *Router) Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	if ev.Kind == dialog.EventMessage {
		t := strings.ToLower(strings.TrimSpace(ev.Text))
		if rest, ok := strings.CutPrefix(t, "warehouse "); ok || t == "warehouse" || t == "warehouses" {
			return []dialog.Reply{r.warehouseCommand(ev, strings.TrimSpace(rest))}, nil
		}
	}
	if len(r.names) > 1 && ev.Conversation != "" {
		name, err := r.owner(ctx, ev.Who, ev.Conversation)
		if err != nil {
			return nil, err
		}
		if name != "" {
			return r.handle(ctx, name, ev)
		}
	}
	return r.handle(ctx, r.Current(ev.Who), ev)
}

// owner is the started warehouse that holds the conversation, "" if none.
func (r *Router) owner(ctx context.Context, who dialog.Who, conversation string) (string, error) {
	for _, name := range r.names {
		mgr, ok := r.managerFor(name, AskerOf(who))
		if !ok {
			continue
		}
		owns, err := mgr.Owns(ctx, who, conversation)
		if err != nil {
			return "", err
		}
		if owns {
			return name, nil
		}
	}
	return "", nil
}

// handle passes the event to the warehouse's manager if its access rules
// let this person ask it here and it is up, else replies why not.
func (r *Router) handle(ctx context.Context, name string, ev dialog.Event) ([]dialog.Reply, error) {
	denied := r.denied
	if personal(ev.Kind) {
		denied = r.deniedPerson
	}
	if msg := denied(name, ev.Who); msg != "" {
		if r.opts.Refused != nil {
			r.opts.Refused()
		}
		return []dialog.Reply{{Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Text: msg}}, nil
	}
	r.remember(ev.Conversation, name)
	mgr, started := r.managerFor(name, AskerOf(ev.Who))
	if !started || !r.slots[name].Ready() {
		return []dialog.Reply{{Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Text: UnreachableText(name)}}, nil
	}
	return mgr.Handle(ctx, ev)
}

// UnreachableText is the reply for a question to a warehouse that is down.
func UnreachableText(name string) string {
	return fmt.Sprintf("The %q warehouse is unreachable right now; I'll keep retrying. Please ask again in a few minutes.", name)
}

func (r *Router) remember(conversation, name string) {
	if conversation == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lanes) >= maxLanes {
		clear(r.lanes)
	}
	r.lanes[conversation] = name
}

// Lane is the warehouse an event will most likely ask, without a store
// read: the conversation's, when this process saw it, else the channel's.
func (r *Router) Lane(who dialog.Who, conversation string) string {
	r.mu.Lock()
	name, ok := r.lanes[conversation]
	r.mu.Unlock()
	if ok {
		return name
	}
	return r.Current(who)
}

// Knows reports whether a started warehouse holds the conversation (a
// thread the bot answers in).
func (r *Router) Knows(ctx context.Context, who dialog.Who, conversation string) (bool, error) {
	name, err := r.owner(ctx, who, conversation)
	return name != "", err
}

// Precheck is the rate limits' refusal of a new question, "" to go ahead.
func (r *Router) Precheck(ctx context.Context, who dialog.Who) string {
	if r.opts.Limiter == nil {
		return ""
	}
	msg := r.opts.Limiter.Precheck(ctx, who)
	if msg != "" && r.opts.RateRefused != nil {
		r.opts.RateRefused()
	}
	return msg
}

// Limit caps the turns worked on at once for a warehouse: its pool size.
func (r *Router) Limit(name string) int {
	if s, ok := r.slots[name]; ok {
		return s.MaxConnections
	}
	return 0
}

// denied is the refusal for asking warehouse name, "" when allowed.
func (r *Router) denied(name string, who dialog.Who) string {
	return DeniedMessage(name, r.rules(name), AskerOf(who))
}

// personal events are about the person's own preferences, wherever they
// are (the App Home, a direct message): they read no warehouse data.
func personal(k dialog.EventKind) bool {
	return k == dialog.EventPrefs || k == dialog.EventForget
}

// deniedPerson is denied without the channel rules: who may ask the
// warehouse may see and forget their own preferences of it anywhere.
func (r *Router) deniedPerson(name string, who dialog.Who) string {
	rules := r.rules(name)
	rules.Channels = nil
	return DeniedMessage(name, rules, AskerOf(who))
}

// DeniedMessage says why a may not ask warehouse name, "" when it may.
func DeniedMessage(name string, rules access.Rules, a access.Asker) string {
	if rules.Allows(a) {
		return ""
	}
	if !(access.Rules{Channels: rules.Channels}).Allows(a) {
		return fmt.Sprintf("This channel can't ask the warehouse %q. Ask an admin to add it.", name)
	}
	return fmt.Sprintf("You can't ask the warehouse %q. Ask an admin to add you.", name)
}

// AskerOf keys the person as the access rules and the ontology do; every
// admin also has the role "admin".
func AskerOf(w dialog.Who) access.Asker {
	a := access.Asker{
		Channel: w.Identity().ChannelKey(),
		User:    w.Identity().UserKey(),
	}
	if w.Roles != "" {
		a.Roles = strings.Split(w.Roles, ",")
	}
	if w.Admin {
		a.Roles = append(a.Roles, "admin")
	}
	return a
}

func (r *Router) warehouseCommand(ev dialog.Event, name string) dialog.Reply {
	reply := dialog.Reply{Kind: dialog.ReplyNotice, Conversation: ev.Conversation, Ephemeral: true}
	if name == "" {
		reply.Text = fmt.Sprintf("Questions here go to the %q warehouse. Available: %s. Say \"warehouse <name>\" to switch.", r.Current(ev.Who), strings.Join(r.names, ", "))
		return reply
	}
	chosen, err := r.Choose(ev.Who, name)
	if err != nil {
		reply.Text = err.Error()
		return reply
	}
	reply.Text = fmt.Sprintf("New questions in this channel now go to the %q warehouse.", chosen)
	if s, ok := r.slots[chosen]; ok && !s.Ready() {
		reply.Text += " It is unreachable right now; I'll keep retrying."
	}
	return reply
}
