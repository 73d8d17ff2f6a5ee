package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/clarify-bot/clarify/dialog"
)

// router sends events to the manager of the right warehouse: the one that
// holds the conversation, else the one chosen in the channel with
// "warehouse <name>", else the first configured.
type router struct {
	managers map[string]*dialog.Manager
	names    []string
	mu       sync.Mutex
	chosen   map[string]string // platform:workspace:channel → warehouse
	// shared keeps the choices in the server store, so that every replica
	// routes a channel alike; nil with files (one process).
	shared *channelChoices
}

func newRouter(stacks []*stack) *router {
	r := &router{managers: map[string]*dialog.Manager{}, chosen: map[string]string{}}
	for _, s := range stacks {
		r.managers[s.name] = s.manager
		r.names = append(r.names, s.name)
	}
	return r
}

// Warehouses lists the configured warehouse names.
func (r *router) Warehouses() []string { return append([]string(nil), r.names...) }

func channelKey(w dialog.Who) string { return w.Platform + ":" + w.Workspace + ":" + w.Channel }

// Choose selects the warehouse for new questions in the event's channel.
func (r *router) Choose(who dialog.Who, name string) (string, error) {
	name = strings.TrimSpace(name)
	if _, ok := r.managers[name]; !ok {
		names := append([]string(nil), r.names...)
		sort.Strings(names)
		return "", fmt.Errorf("there is no warehouse called %q; the warehouses are: %s", name, strings.Join(names, ", "))
	}
	if err := r.shared.set(channelKey(who), name); err != nil {
		return "", fmt.Errorf("cannot remember the choice: %w", err)
	}
	r.mu.Lock()
	r.chosen[channelKey(who)] = name
	r.mu.Unlock()
	return name, nil
}

// Current is the warehouse new questions in the channel go to.
func (r *router) Current(who dialog.Who) string {
	if n, ok := r.shared.get(channelKey(who)); ok {
		if _, known := r.managers[n]; known {
			return n
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n, ok := r.chosen[channelKey(who)]; ok {
		return n
	}
	return r.names[0]
}

// Handle implements the adapters' Dialog interface.
func (r *router) Handle(ctx context.Context, ev dialog.Event) ([]dialog.Reply, error) {
	if ev.Kind == dialog.EventMessage {
		t := strings.ToLower(strings.TrimSpace(ev.Text))
		if rest, ok := strings.CutPrefix(t, "warehouse "); ok || t == "warehouse" || t == "warehouses" {
			return []dialog.Reply{r.warehouseCommand(ev, strings.TrimSpace(rest))}, nil
		}
	}
	if len(r.names) > 1 && ev.Conversation != "" {
		for _, name := range r.names {
			owns, err := r.managers[name].Owns(ctx, ev.Who, ev.Conversation)
			if err != nil {
				return nil, err
			}
			if owns {
				return r.managers[name].Handle(ctx, ev)
			}
		}
	}
	return r.managers[r.Current(ev.Who)].Handle(ctx, ev)
}

func (r *router) warehouseCommand(ev dialog.Event, name string) dialog.Reply {
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
	return reply
}
