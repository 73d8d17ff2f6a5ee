package dialog

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/clarify-bot/clarify/internal/colfmt"
	"github.com/clarify-bot/clarify/ontology"
)

// HelpText explains what the bot does and the chat commands.
const HelpText = `Ask me a question about the data in plain words, e.g. "what was revenue in 2024?".
When a question can be read more than one way I ask a short multiple-choice question; I remember your answers, so next time I don't ask.
Commands: "my preferences" lists what I learned about you · "forget <phrase>" drops it · "what can I ask?" describes the data · "what does <word> mean?" · "help" shows this.
Under an answer: "show SQL", "correct", or "not what I meant" (I'll ask again); "more" shows the next rows, "all" the rest, "csv" the whole result as a file.`

// command recognises chat commands typed as messages.
func (m *Manager) command(ctx context.Context, ev Event, text string) ([]Reply, bool) {
	t := strings.ToLower(strings.Trim(text, " ?!."))
	switch t {
	case "help", "/help", "what can you do":
		// The commands, then what the data holds (about.go).
		return []Reply{ephemeral(ev.Conversation, HelpText+"\n\n"+m.overview(ctx, ev.Who, colfmt.LocaleFor(ev.Locale)))}, true
	case "my preferences", "my prefs", "preferences", "prefs", "show my preferences", "what do you know about me":
		r, err := m.prefs(ctx, ev)
		if err != nil {
			return []Reply{ephemeral(ev.Conversation, "I couldn't read your preferences right now.")}, true
		}
		return r, true
	}
	if kind, term := aboutQuestion(text); kind != aboutNone {
		return []Reply{m.aboutReply(ctx, ev, kind, term)}, true
	}
	if rest, ok := strings.CutPrefix(t, "forget "); ok && strings.TrimSpace(rest) != "" {
		ev.Text = strings.Trim(strings.TrimSpace(rest), "'\"")
		r, err := m.forget(ctx, ev)
		if err != nil {
			return []Reply{ephemeral(ev.Conversation, "I couldn't update your preferences right now.")}, true
		}
		return r, true
	}
	return nil, false
}

func factView(f ontology.Fact) FactView {
	return FactView{ID: f.ID, Phrase: f.Phrase, Meaning: f.Meaning, Kind: string(f.Kind), Scope: string(f.Scope), Owner: f.Owner, Learned: f.Created, Uses: f.Uses}
}

// prefs lists the asker's preferences, including the channel's and the
// workspace's; an admin may name another user in Text.
func (m *Manager) prefs(ctx context.Context, ev Event) ([]Reply, error) {
	owners := ownerKeys(ev.Who)
	subject := "" // the asker
	var facts []ontology.Fact
	var err error
	if other := strings.TrimPrefix(strings.TrimSpace(ev.Subject), "@"); other != "" && other != ev.Who.User && ev.Kind == EventPrefs {
		if !ev.Who.Admin {
			return []Reply{ephemeral(ev.Conversation, "Only admins can see other people's preferences.")}, nil
		}
		if m.admin == nil {
			return []Reply{ephemeral(ev.Conversation, "Preference review is not available.")}, nil
		}
		subject = other
		filter := ontology.Filter{Scope: string(ontology.ScopeUser), Owner: ev.Who.Platform + ":" + ev.Who.Workspace + ":" + other, Warehouse: m.cfg.Warehouse, IncludeInactive: true}
		if other == "*" {
			subject = "everyone"
			filter = ontology.Filter{Warehouse: m.cfg.Warehouse, IncludeInactive: true}
		}
		facts, err = m.admin.List(ctx, filter)
	} else {
		facts, err = m.deps.Facts.Applicable(ctx, owners, m.cfg.Warehouse)
	}
	if err != nil {
		return nil, fmt.Errorf("list preferences: %w", err)
	}
	p := &Prefs{Subject: subject, CanAdmin: ev.Who.Admin}
	for _, f := range facts {
		p.Facts = append(p.Facts, factView(f))
	}
	sort.SliceStable(p.Facts, func(i, j int) bool { return p.Facts[i].Phrase < p.Facts[j].Phrase })
	var b strings.Builder
	if len(p.Facts) == 0 {
		b.WriteString("I haven't learned any preferences for you yet. When you answer one of my questions, I remember it.")
	} else {
		title := "Your preferences"
		if subject != "" {
			title = "Preferences of " + subject
		}
		fmt.Fprintf(&b, "%s (%d):", title, len(p.Facts))
		for i, f := range p.Facts {
			fmt.Fprintf(&b, "\n  %d. '%s' = %s", i+1, f.Phrase, lowerFirst(f.Meaning))
			if f.Scope != string(ontology.ScopeUser) {
				fmt.Fprintf(&b, " (%s-wide)", f.Scope)
			}
		}
	}
	return []Reply{{Kind: ReplyPrefs, Conversation: ev.Conversation, Ephemeral: true, Prefs: p, Text: b.String()}}, nil
}

func actor(w Who) ontology.Actor {
	return ontology.Actor{ID: w.Platform + ":" + w.Workspace + ":" + w.User, Admin: w.Admin}
}

// forget drops the asker's preferences for a phrase.
func (m *Manager) forget(ctx context.Context, ev Event) ([]Reply, error) {
	phrase := ontology.NormalizePhrase(ev.Text)
	if phrase == "" {
		return []Reply{ephemeral(ev.Conversation, "Tell me which word to forget, e.g. \"forget revenue\".")}, nil
	}
	if m.admin == nil {
		return []Reply{ephemeral(ev.Conversation, "Forgetting preferences is not available.")}, nil
	}
	n, err := m.admin.Forget(ctx, ownerKeys(ev.Who).User, m.cfg.Warehouse, phrase, actor(ev.Who))
	if err != nil {
		return nil, fmt.Errorf("forget %q: %w", phrase, err)
	}
	if n == 0 {
		return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("You had no preference for '%s'.", phrase))}, nil
	}
	return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("Done — I forgot what '%s' means to you. I'll ask next time.", phrase))}, nil
}

// deleteFact deletes one fact: people their own, admins any.
func (m *Manager) deleteFact(ctx context.Context, ev Event) ([]Reply, error) {
	if m.admin == nil {
		return []Reply{ephemeral(ev.Conversation, "Deleting preferences is not available.")}, nil
	}
	f, err := m.admin.Get(ctx, ev.FactID)
	if errors.Is(err, ontology.ErrNotFound) {
		return []Reply{ephemeral(ev.Conversation, "That preference no longer exists.")}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("delete preference: %w", err)
	}
	if f.Owner != ownerKeys(ev.Who).User && !ev.Who.Admin {
		return []Reply{ephemeral(ev.Conversation, "You can only delete your own preferences.")}, nil
	}
	if err := m.admin.Delete(ctx, f.ID, actor(ev.Who)); err != nil {
		if errors.Is(err, ontology.ErrForbidden) {
			return []Reply{ephemeral(ev.Conversation, "You can only delete your own preferences.")}, nil
		}
		return nil, fmt.Errorf("delete preference: %w", err)
	}
	return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("Deleted: '%s' = %s.", f.Phrase, lowerFirst(f.Meaning)))}, nil
}

// promote makes a fact channel- or workspace-wide; admins only.
func (m *Manager) promote(ctx context.Context, ev Event) ([]Reply, error) {
	if !ev.Who.Admin {
		return []Reply{ephemeral(ev.Conversation, "Only admins can promote preferences.")}, nil
	}
	if m.admin == nil {
		return []Reply{ephemeral(ev.Conversation, "Promoting preferences is not available.")}, nil
	}
	if src, err := m.admin.Get(ctx, ev.FactID); err == nil && src.Kind == ontology.KindQuery && ev.Scope == ontology.ScopeWorkspace {
		// A confirmed answer promoted to the workspace is a verified query.
		return m.verify(ctx, ev, src)
	}
	owners := ownerKeys(ev.Who)
	scope := ev.Scope
	var owner string
	switch scope {
	case ontology.ScopeChannel:
		owner = owners.Channel
	case ontology.ScopeWorkspace:
		owner = owners.Workspace
	default:
		return []Reply{ephemeral(ev.Conversation, "Promote to \"channel\" or \"workspace\"?")}, nil
	}
	f, err := m.admin.Promote(ctx, ev.FactID, scope, owner, actor(ev.Who))
	switch {
	case errors.Is(err, ontology.ErrNotFound):
		return []Reply{ephemeral(ev.Conversation, "That preference no longer exists.")}, nil
	case errors.Is(err, ontology.ErrForbidden):
		return []Reply{ephemeral(ev.Conversation, "Only admins can promote preferences.")}, nil
	case err != nil:
		return nil, fmt.Errorf("promote preference: %w", err)
	}
	return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("Everyone in this %s now gets '%s' = %s unless they chose otherwise.", scope, f.Phrase, lowerFirst(f.Meaning)))}, nil
}

// editFact rewords a fact: admins any, people their own.
func (m *Manager) editFact(ctx context.Context, ev Event) ([]Reply, error) {
	meaning := normalizeText(ev.Text)
	if meaning == "" {
		return []Reply{ephemeral(ev.Conversation, "Give the new wording of the preference.")}, nil
	}
	if m.admin == nil {
		return []Reply{ephemeral(ev.Conversation, "Editing preferences is not available.")}, nil
	}
	f, err := m.admin.Get(ctx, ev.FactID)
	if errors.Is(err, ontology.ErrNotFound) {
		return []Reply{ephemeral(ev.Conversation, "That preference no longer exists.")}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("edit preference: %w", err)
	}
	if f.Owner != ownerKeys(ev.Who).User && !ev.Who.Admin {
		return []Reply{ephemeral(ev.Conversation, "You can only edit your own preferences.")}, nil
	}
	f, err = m.admin.Edit(ctx, f.ID, nil, meaning, actor(ev.Who))
	if errors.Is(err, ontology.ErrForbidden) {
		return []Reply{ephemeral(ev.Conversation, "You can only edit your own preferences.")}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("edit preference: %w", err)
	}
	return []Reply{ephemeral(ev.Conversation, fmt.Sprintf("Updated: '%s' = %s.", f.Phrase, lowerFirst(f.Meaning)))}, nil
}
