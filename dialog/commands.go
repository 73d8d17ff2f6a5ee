package dialog

import (
	"context"
	"errors"
	"fmt"
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

func actor(w Who) ontology.Actor {
	return ontology.Actor{ID: w.Identity().UserKey(), Admin: w.Admin}
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
	if ev.Scope == ontology.ScopeWorkspace && m.isConfirmedAnswer(ctx, ev.FactID) {
		// A confirmed answer promoted to the workspace is a verified query.
		return m.verify(ctx, ev, ev.FactID)
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
