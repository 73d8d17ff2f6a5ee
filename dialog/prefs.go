package dialog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clarify-bot/clarify/ontology"
)

// What people see of their ontology: one row per meaning, with the phrase,
// what it means, whose it is (scope), where it came from (source) and how
// often it decided an answer. A glossary measure is stored as two facts
// (the column and the aggregate, so that it decides either kind of
// question); it is one meaning and one row. Answers marked correct are
// feedback, not preferences: only admins see them, as candidate verified
// queries.

// Sources of a fact as people read them.
const (
	SourceAnswer   = "your answer"
	SourceLearned  = "learned from an answer"
	SourcePromoted = "promoted by an admin"
	SourceVerified = "verified query"
	SourceGlossary = "team glossary"
	SourceFeedback = "answer marked correct"
)

func factView(f ontology.Fact, viewer string) FactView {
	v := FactView{ID: f.ID, Phrase: f.Phrase, Meaning: f.Meaning, Kind: string(f.Kind), Scope: f.Scope, Owner: f.Owner,
		Learned: f.Created, Uses: f.Uses, Active: f.Active(), Rejections: f.Rejections + f.Overruled}
	switch {
	case f.FromGlossary():
		v.Source = SourceGlossary + " '" + f.Source.Glossary() + "'"
	case f.Kind == ontology.KindQuery && f.VerifiedBy != "":
		v.Source = SourceVerified + " (verified by " + f.VerifiedBy + ")"
	case f.PromotedFrom != "":
		v.Source = SourcePromoted
	case f.Owner == viewer:
		v.Source = SourceAnswer
	default:
		v.Source = SourceLearned
	}
	if v.Meaning == "" {
		v.Meaning = f.Target.Summary()
	}
	return v
}

// mergeViews keeps one row per meaning: facts of one owner and source
// with the same phrase and wording (a glossary measure's column and
// aggregate facts) are one row, their uses added.
func mergeViews(views []FactView) []FactView {
	var out []FactView
	for _, v := range views {
		i := slices.IndexFunc(out, func(o FactView) bool {
			return o.Phrase == v.Phrase && o.Owner == v.Owner && o.Scope == v.Scope && o.Source == v.Source &&
				strings.EqualFold(o.Meaning, v.Meaning) && o.Kind != string(ontology.KindQuery) && v.Kind != string(ontology.KindQuery)
		})
		if i < 0 {
			out = append(out, v)
			continue
		}
		out[i].Uses += v.Uses
		out[i].Rejections = max(out[i].Rejections, v.Rejections)
		out[i].Active = out[i].Active && v.Active
	}
	return out
}

// prefs lists the asker's preferences, including the channel's and the
// workspace's; an admin may name another user in Subject, or "*" for
// everyone's (with the answers people marked correct, to verify).
func (m *Manager) prefs(ctx context.Context, ev Event) ([]Reply, error) {
	owners := ownerKeys(ev.Who)
	subject := "" // the asker
	var facts []ontology.Fact
	var candidates []ontology.ConfirmedAnswer
	var err error
	if other := strings.TrimPrefix(strings.TrimSpace(ev.Subject), "@"); other != "" && other != ev.Who.User && ev.Kind == EventPrefs {
		if !ev.Who.Admin {
			return []Reply{ephemeral(ev.Conversation, "Only admins can see other people's preferences.")}, nil
		}
		if m.admin == nil {
			return []Reply{ephemeral(ev.Conversation, "Preference review is not available.")}, nil
		}
		subject = other
		id := ev.Who.Identity()
		id.User = other
		owner := id.UserKey()
		filter := ontology.Filter{Scope: ontology.ScopeUser, Owner: owner, Warehouse: m.cfg.Warehouse, IncludeInactive: true}
		if other == "*" {
			subject, owner = "everyone", ""
			filter = ontology.Filter{Warehouse: m.cfg.Warehouse, IncludeInactive: true}
		}
		facts, err = m.admin.List(ctx, filter)
		if cl, ok := m.admin.(confirmedLister); ok && err == nil {
			candidates, err = cl.ConfirmedAnswers(ctx, owner, m.cfg.Warehouse)
		}
	} else {
		facts, err = m.deps.Facts.Applicable(ctx, owners, m.cfg.Warehouse)
	}
	if err != nil {
		return nil, fmt.Errorf("list preferences: %w", err)
	}
	p := &Prefs{Subject: subject, CanAdmin: ev.Who.Admin}
	var views []FactView
	for _, f := range facts {
		if f.Kind == ontology.KindQuery && f.VerifiedBy == "" {
			continue // feedback of an older store, not a preference
		}
		views = append(views, factView(f, owners.User))
	}
	slices.SortStableFunc(views, func(a, b FactView) int { return strings.Compare(a.Phrase, b.Phrase) })
	p.Facts = mergeViews(views)
	for _, c := range candidates {
		if c.VerifiedAs != "" {
			continue
		}
		p.Facts = append(p.Facts, FactView{ID: c.ID, Phrase: c.Question, Meaning: fmt.Sprintf("Answer marked correct (%d×), not verified yet", c.Count),
			Kind: string(ontology.KindQuery), Scope: ontology.ScopeUser, Owner: c.Owner, Learned: c.First, Source: SourceFeedback, Active: true, Candidate: true})
	}
	return []Reply{{Kind: ReplyPrefs, Conversation: ev.Conversation, Ephemeral: true, Prefs: p, Text: prefsText(p, subject)}}, nil
}

// prefsText renders a preferences list as plain text.
func prefsText(p *Prefs, subject string) string {
	var b strings.Builder
	if len(p.Facts) == 0 {
		return "I haven't learned any preferences for you yet. When you answer one of my questions, I remember it."
	}
	title := "Your preferences"
	if subject != "" {
		title = "Preferences of " + subject
	}
	fmt.Fprintf(&b, "%s (%d):", title, len(p.Facts))
	for i, f := range p.Facts {
		fmt.Fprintf(&b, "\n  %d. '%s' = %s — %s", i+1, f.Phrase, lowerFirst(f.Meaning), f.Details())
	}
	return b.String()
}

// Details words a fact's scope, source, uses and state: "yours, from your
// answer, used 3 times"; "workspace-wide, team glossary 'demo', used
// once, set aside for you".
func (f FactView) Details() string {
	var parts []string
	switch f.Scope {
	case ontology.ScopeChannel:
		parts = append(parts, "channel-wide")
	case ontology.ScopeWorkspace:
		parts = append(parts, "workspace-wide")
	default:
		parts = append(parts, "personal")
	}
	if f.Source != "" {
		parts = append(parts, f.Source)
	}
	if !f.Candidate {
		switch f.Uses {
		case 0:
			parts = append(parts, "not used yet")
		case 1:
			parts = append(parts, "used once")
		default:
			parts = append(parts, fmt.Sprintf("used %d times", f.Uses))
		}
	}
	switch {
	case !f.Active && f.Scope != ontology.ScopeUser:
		parts = append(parts, "set aside: not what was meant")
	case !f.Active:
		parts = append(parts, "inactive: I'll ask again")
	case f.Rejections > 0:
		parts = append(parts, fmt.Sprintf("weakened: 'not what I meant' %d×", f.Rejections))
	}
	return strings.Join(parts, ", ")
}

// isConfirmedAnswer reports whether id is an answer someone marked
// correct (or a query fact of an older store), which promoting verifies.
func (m *Manager) isConfirmedAnswer(ctx context.Context, id string) bool {
	if cl, ok := m.admin.(confirmedLister); ok {
		if _, err := cl.ConfirmedAnswer(ctx, id); err == nil {
			return true
		}
	}
	f, err := m.admin.Get(ctx, id)
	return err == nil && f.Kind == ontology.KindQuery && f.VerifiedBy == ""
}
