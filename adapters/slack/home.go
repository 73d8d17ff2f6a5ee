package slack

import (
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// helpText is the /clarify help.
const helpText = `*Ask me about the data* by mentioning me in a channel (@Clarify what was revenue in 2024?) or in a direct message. I answer in the thread; follow-ups in the thread ("and by month?", "only Texas") refine the question.
When a question can be read more than one way I ask with buttons, and remember your choice for next time. Under an answer, *Show more* (or "more" in the thread) brings the next rows, "csv" the whole result as a file. Ask "what does revenue mean?" to see how I read a word.
*Commands*
• ` + "`/clarify prefs`" + ` — what I learned about you, with delete buttons
• ` + "`/clarify forget <phrase>`" + ` — forget what a word means to you
• ` + "`/clarify warehouse [name]`" + ` — which warehouse questions in this channel go to
• ` + "`/clarify help`" + ` — this help, and what the data holds
Admins: ` + "`/clarify prefs @someone`" + ` or ` + "`/clarify prefs *`" + `; promote, edit and delete from the App Home; ` + "`/clarify admin`" + ` for a sign-in link to the admin console.`

// factBlock is one learned preference, with what the viewer may do to it:
// admins get a menu (promote, edit, delete), owners a delete button.
// list prefixes its block id, and i numbers its action id, so that one
// fact can appear in two lists of a view.
func factBlock(f dialog.FactView, list string, i int, team string, canAdmin, showOwner bool, origin ref) slack.Block {
	var meta []string
	switch f.Scope {
	case ontology.ScopeChannel:
		meta = append(meta, "for "+ownerLabel(f.Owner, team))
	case ontology.ScopeWorkspace:
		meta = append(meta, "for the whole workspace")
	default:
		if showOwner {
			meta = append(meta, "of "+ownerLabel(f.Owner, team))
		}
	}
	if !f.Learned.IsZero() {
		meta = append(meta, "learned "+f.Learned.UTC().Format("2006-01-02"))
	}
	if f.Source != "" {
		meta = append(meta, esc(clip(f.Source, 100)))
	}
	meta = append(meta, fmt.Sprintf("used %d×", f.Uses))
	text := fmt.Sprintf("*%s* → %s\n%s", escClip(oneLine(f.Phrase), 200), escClip(oneLine(f.Meaning), 1500), strings.Join(meta, " · "))
	id := list + "fact." + f.ID
	if utf16Len(id) > maxBlockID {
		id = indexed(list+"fact", i)
	}
	var acc slack.BlockElement
	v := origin
	v.Fact = f.ID
	switch {
	case canAdmin:
		opt := func(do, label string) *slack.OptionBlockObject {
			o := v
			o.Do = do
			o.ResponseURL, o.MessageTS = "", ""
			return slack.NewOptionBlockObject(o.encode(), plain(label, maxOptionText), nil)
		}
		acc = slack.NewOverflowBlockElement(indexed(actFactMenu, i),
			opt(doPromoteChannel, "Promote to a channel…"),
			opt(doPromoteWorkspace, "Promote to the workspace"),
			opt(doEdit, "Edit…"),
			opt(doDelete, "Delete"),
		)
		if f.Kind == string(ontology.KindQuery) && f.Scope == ontology.ScopeUser {
			// An answer someone marked correct: promoting it to the
			// workspace makes it a verified query (dialog: verify).
			acc = slack.NewOverflowBlockElement(indexed(actFactMenu, i),
				opt(doPromoteWorkspace, "Make it a verified query"),
				opt(doDelete, "Delete"),
			)
		}
	case f.Scope == ontology.ScopeUser || f.Scope == "":
		acc = button(indexed(actDelete, i), v.encode(), "Delete").
			WithStyle(slack.StyleDanger).
			WithConfirm(slack.NewConfirmationBlockObject(
				plain("Delete this preference?", maxConfirmTitle),
				plain(fmt.Sprintf("'%s' → %s. I will ask again next time.", oneLine(f.Phrase), oneLine(f.Meaning)), maxConfirmText),
				plain("Delete", maxConfirmButton), plain("Keep", maxConfirmButton)))
	}
	return section(id, mrkdwn(text), acc)
}

// ownerLabel shows an ontology owner key ("slack:T1:U2", "slack:T1:C3") as
// a Slack mention when it belongs to this workspace.
func ownerLabel(owner, team string) string {
	ws := ontology.Identity{Platform: platform, Workspace: team}
	rest := ws.Local(owner) // "" for the workspace, the whole key for another's
	ok := ws.Has(owner) && rest != ""
	switch {
	case ok && (rest[0] == 'C' || rest[0] == 'G' || rest[0] == 'D'):
		return "<#" + esc(rest) + ">"
	case ok:
		return "<@" + esc(rest) + ">"
	case owner == ws.WorkspaceKey():
		return "this workspace"
	}
	return esc(clip(owner, 100))
}

// factList renders a list of preferences within budget blocks; list
// prefixes its block ids and first numbers its action ids.
func factList(p *dialog.Prefs, list string, first int, team string, budget int, origin ref, showOwner bool) []slack.Block {
	var blocks []slack.Block
	for i, f := range p.Facts {
		if len(blocks) == budget-1 && i < len(p.Facts)-1 {
			more := len(p.Facts) - i
			blocks = append(blocks, contextBlock(list+"facts.more", fmt.Sprintf("…and %d more. Use `/clarify forget <phrase>` to drop one by name.", more)))
			break
		}
		blocks = append(blocks, factBlock(f, list, first+i, team, p.CanAdmin, showOwner, origin))
	}
	return blocks
}

// prefsMessage is the ephemeral list for /clarify prefs.
func prefsMessage(p *dialog.Prefs, team, text string, origin ref) message {
	if len(p.Facts) == 0 {
		return noticeMessage(text)
	}
	title := "Your preferences"
	if p.Subject != "" {
		title = "Preferences of " + subjectLabel(p.Subject)
	}
	blocks := []slack.Block{section("facts.title", mrkdwn(fmt.Sprintf("*%s* (%d)", escClip(title, 200), len(p.Facts))), nil)}
	blocks = append(blocks, factList(p, "", 0, team, maxMessageBlocks-1, origin, p.Subject != "")...)
	return message{Blocks: blocks, Text: fallback(text)}
}

func subjectLabel(s string) string {
	if s == "everyone" || s == "*" {
		return "everyone"
	}
	if strings.HasPrefix(s, "U") || strings.HasPrefix(s, "W") {
		return "<@" + esc(s) + ">"
	}
	return esc(s)
}

// homeView is the App Home tab: the viewer's preferences, and for admins
// everyone's, with the actions they may take. status reports the last
// action taken from the tab.
func homeView(own, all *dialog.Prefs, team, status string) slack.HomeTabViewRequest {
	blocks := []slack.Block{
		slack.NewHeaderBlock(plain("Clarify", maxHeaderText)),
		section("home.intro", mrkdwn("Ask me about the data: mention me in a channel, or write to me in the *Messages* tab. "+
			"When a question can be read more than one way I ask, and I remember your answer here."), nil),
	}
	if s := strings.TrimSpace(status); s != "" {
		blocks = append(blocks, contextBlock("home.status", escClip(s, maxContextText)))
	}
	blocks = append(blocks, slack.NewDividerBlock(), slack.NewHeaderBlock(plain("Your preferences", maxHeaderText)))
	origin := ref{Home: true}
	ownBudget := maxViewBlocks - len(blocks)
	if all != nil {
		ownBudget = (maxViewBlocks - len(blocks)) / 2
	}
	switch {
	case own == nil:
		blocks = append(blocks, contextBlock("home.own.none", "I couldn't read your preferences just now."))
	case len(own.Facts) == 0:
		blocks = append(blocks, contextBlock("home.own.none", "None yet. When you answer one of my questions, I remember it here."))
	default:
		blocks = append(blocks, factList(own, "own.", 0, team, ownBudget, origin, false)...)
	}
	if all != nil {
		blocks = append(blocks, slack.NewDividerBlock(),
			slack.NewHeaderBlock(plain("Everyone's preferences (admin)", maxHeaderText)),
			contextBlock("home.admin.help", "Promote a preference to a channel or the whole workspace, edit its wording, or delete it. Every change is recorded with who made it and when."))
		if len(all.Facts) == 0 {
			blocks = append(blocks, contextBlock("home.all.none", "No preferences learned yet."))
		} else {
			all := *all
			all.CanAdmin = true
			first := 0
			if own != nil {
				first = len(own.Facts)
			}
			blocks = append(blocks, factList(&all, "all.", first, team, maxViewBlocks-len(blocks), origin, true)...)
		}
	}
	return slack.HomeTabViewRequest{Type: slack.VTHomeTab, Blocks: slack.Blocks{BlockSet: blocks}}
}

// otherModal asks for a free-text answer to a clarification.
func otherModal(prompt string, meta ref) slack.ModalViewRequest {
	input := slack.NewPlainTextInputBlockElement(plain("Say it in your own words", maxPlaceholder), inputAction)
	input.MaxLength = 2000
	blocks := []slack.Block{}
	if p := strings.TrimSpace(prompt); p != "" {
		blocks = append(blocks, section("other.prompt", plain(p, maxSectionText), nil))
	}
	blocks = append(blocks, slack.NewInputBlock(inputBlock, plain("Your answer", 2000), nil, input))
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      cbOther,
		Title:           plain("Other…", maxModalTitle),
		Submit:          plain("Send", maxModalButton),
		Close:           plain("Cancel", maxModalButton),
		PrivateMetadata: meta.encode(),
		Blocks:          slack.Blocks{BlockSet: blocks},
	}
}

// editModal asks for a preference's new wording; current is the fact's
// section text as shown where the menu was opened.
func editModal(current string, meta ref) slack.ModalViewRequest {
	input := slack.NewPlainTextInputBlockElement(plain("The new meaning, in words", maxPlaceholder), inputAction)
	input.MaxLength = 500
	return factModal(cbEdit, "Edit preference", "Save", "edit.current", current,
		slack.NewInputBlock(inputBlock, plain("New wording", 2000), nil, input), meta)
}

// promoteModal asks which channel a preference should apply to.
func promoteModal(current, channel string, meta ref) slack.ModalViewRequest {
	sel := slack.NewOptionsSelectBlockElement(slack.OptTypeConversations, plain("Pick a channel", maxPlaceholder), channelInput)
	if channel != "" && (channel[0] == 'C' || channel[0] == 'G') {
		sel.InitialConversation = channel
	}
	sel.Filter = &slack.SelectBlockElementFilter{Include: []string{"public", "private"}, ExcludeBotUsers: true}
	return factModal(cbPromote, "Promote preference", "Promote", "promote.current", current,
		slack.NewInputBlock(channelBlock, plain("Everyone in this channel gets it", 2000), nil, sel), meta)
}

// factModal is a modal about one preference: what it says now, then input.
func factModal(callbackID, title, submit, currentID, current string, input slack.Block, meta ref) slack.ModalViewRequest {
	blocks := []slack.Block{}
	if c := strings.TrimSpace(current); c != "" {
		blocks = append(blocks, section(currentID, mrkdwn(clip(c, maxSectionText)), nil))
	}
	return slack.ModalViewRequest{
		Type:            slack.VTModal,
		CallbackID:      callbackID,
		Title:           plain(title, maxModalTitle),
		Submit:          plain(submit, maxModalButton),
		Close:           plain("Cancel", maxModalButton),
		PrivateMetadata: meta.encode(),
		Blocks:          slack.Blocks{BlockSet: append(blocks, input)},
	}
}
