package slack

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// submitWait is how long an interaction waits for room in a full queue
// (it must still be acknowledged within Slack's 3 seconds).
const submitWait = time.Second

// Everything below runs in the receive path and must return quickly: it
// decides, queues the work and lets the caller acknowledge.

// acceptEvent takes an Events API callback. It reports false when the
// event could not be queued, so that it is not acknowledged and Slack
// sends it again later.
func (a *Adapter) acceptEvent(ev slackevents.EventsAPIEvent) bool {
	cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent)
	if !ok {
		return true
	}
	if !a.firstEvent(cb.EventID) {
		a.log.Debug("duplicate event ignored", "event_id", cb.EventID)
		a.cfg.Hooks.duplicate()
		return true
	}
	j, ok := a.eventJob(ev.TeamID, ev.InnerEvent)
	if !ok {
		return true
	}
	if !a.work.Submit(j.name, j.run, 0) {
		a.forgetEvent(cb.EventID)
		a.log.Warn("work queue full or stopping; leaving the event for Slack to send again", "event_id", cb.EventID)
		return false
	}
	return true
}

// job is one piece of work done after Slack was acknowledged.
type job struct {
	name string
	run  func(ctx context.Context)
}

// eventJob turns an inner event into work; false means ignore it.
func (a *Adapter) eventJob(team string, inner slackevents.EventsAPIInnerEvent) (job, bool) {
	switch e := inner.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.BotID != "" || e.User == "" || e.User == a.bot.UserID || e.Edited != nil {
			return job{}, false
		}
		return a.questionJob(team, e.Channel, e.User, e.Text, e.TimeStamp, e.ThreadTimeStamp), true
	case *slackevents.MessageEvent:
		// Only direct messages: in channels the bot answers mentions.
		// Bots (itself included), edits, joins and other subtypes are not questions.
		if e.ChannelType != "im" || e.SubType != "" || e.BotID != "" || e.User == "" || e.User == a.bot.UserID {
			return job{}, false
		}
		return a.questionJob(team, e.Channel, e.User, e.Text, e.TimeStamp, e.ThreadTimeStamp), true
	case *slackevents.AppHomeOpenedEvent:
		if e.Tab != "home" || e.User == "" {
			return job{}, false
		}
		return job{name: "app_home_opened", run: func(ctx context.Context) {
			a.publishHome(ctx, team, e.User, e.Channel, "")
		}}, true
	}
	return job{}, false
}

func (a *Adapter) questionJob(team, channel, user, text, ts, threadTS string) job {
	thread := threadTS
	if thread == "" {
		thread = ts // a new thread under the question
	}
	return job{name: "question", run: func(ctx context.Context) {
		ev := dialog.Event{
			Kind:         dialog.EventMessage,
			Conversation: conversationKey(channel, thread),
			Who:          dialog.Who{Platform: platform, Workspace: team, Channel: channel, User: user},
			Text:         plainText(text, a.bot.UserID),
		}
		a.converse(ctx, ev, &target{team: team, channel: channel, thread: thread, user: user, looking: true})
	}}
}

// acceptInteraction takes a button click, menu choice or modal submission
// and returns what to acknowledge it with (nil: an empty ack).
func (a *Adapter) acceptInteraction(cb slack.InteractionCallback) any {
	switch cb.Type {
	case slack.InteractionTypeBlockActions:
		for _, act := range cb.ActionCallback.BlockActions {
			if act != nil {
				a.acceptAction(cb, *act)
			}
		}
	case slack.InteractionTypeViewSubmission:
		if r := a.acceptSubmission(cb); r != nil {
			return r
		}
	}
	return nil
}

func team(cb slack.InteractionCallback) string {
	for _, t := range []string{cb.Team.ID, cb.User.TeamID, cb.View.TeamID} {
		if t != "" {
			return t
		}
	}
	return ""
}

func (a *Adapter) acceptAction(cb slack.InteractionCallback, act slack.BlockAction) {
	name := actionName(act.ActionID)
	value := act.Value
	if name == actFactMenu {
		value = act.SelectedOption.Value
	}
	r, err := decodeRef(value)
	if err != nil {
		a.log.Warn("ignoring a click with an unreadable value", "action", act.ActionID, "err", err)
		return
	}
	channel := r.Channel
	if channel == "" {
		channel = cb.Channel.ID
	}
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	tm := team(cb)
	who := dialog.Who{Platform: platform, Workspace: tm, Channel: channel, User: cb.User.ID}
	t := &target{
		team: tm, channel: channel, thread: r.Thread, user: cb.User.ID,
		responseURL: cb.ResponseURL, viaResponseURL: cb.Container.IsEphemeral,
		home: r.Home || cb.View.Type == slack.VTHomeTab,
	}
	ev := dialog.Event{Conversation: r.conversation(), Who: who, Target: r.ID, FactID: r.Fact}
	switch name {
	case actChoose:
		ev.Kind, ev.Option = dialog.EventChoose, r.Option
		t.looking, t.clarID = true, r.ID
		t.clarTS = cb.Container.MessageTs
		if t.clarTS == "" {
			t.clarTS = cb.Message.Timestamp
		}
	case actOther:
		meta := r
		meta.MessageTS = cb.Container.MessageTs
		if meta.MessageTS == "" {
			meta.MessageTS = cb.Message.Timestamp
		}
		a.openModal(cb.TriggerID, otherModal(sectionText(cb.Message.Blocks, "clarify.prompt"), meta))
		return
	case actSQL:
		ev.Kind = dialog.EventShowSQL
	case actMore:
		// Option is how far the message showed the result.
		ev.Kind, ev.Option = dialog.EventMore, r.Option
	case actCorrect:
		ev.Kind = dialog.EventCorrect
	case actWrong:
		ev.Kind, t.looking = dialog.EventWrong, true
	case actChange:
		ev.Kind, t.looking = dialog.EventChange, true
	case actDelete:
		ev.Kind = dialog.EventDeleteFact
	case actFactMenu:
		current := sectionText(cb.Message.Blocks, "fact."+r.Fact)
		if current == "" {
			current = sectionText(cb.View.Blocks, "fact."+r.Fact)
		}
		meta := ref{Channel: channel, Fact: r.Fact, Home: t.home}
		if t.viaResponseURL {
			meta.ResponseURL = cb.ResponseURL
		}
		switch r.Do {
		case doDelete:
			ev.Kind = dialog.EventDeleteFact
		case doPromoteWorkspace:
			ev.Kind, ev.Scope = dialog.EventPromote, ontology.ScopeWorkspace
		case doPromoteChannel:
			a.openModal(cb.TriggerID, promoteModal(current, channel, meta))
			return
		case doEdit:
			a.openModal(cb.TriggerID, editModal(current, meta))
			return
		default:
			a.log.Warn("unknown fact menu choice", "do", r.Do)
			return
		}
	default:
		a.log.Debug("ignoring an unknown action", "action", act.ActionID)
		return
	}
	if !a.work.Submit(name, func(ctx context.Context) { a.converse(ctx, ev, t) }, submitWait) {
		a.log.Warn("work queue full or stopping; a click was dropped", "action", act.ActionID, "user", cb.User.ID)
	}
}

// sectionText is the text of the section block whose block id is id, or
// ends in "."+id (fact lists prefix theirs).
func sectionText(blocks slack.Blocks, id string) string {
	for _, b := range blocks.BlockSet {
		if s, ok := b.(*slack.SectionBlock); ok && (s.BlockID == id || strings.HasSuffix(s.BlockID, "."+id)) && s.Text != nil {
			return s.Text.Text
		}
	}
	return ""
}

// openModal opens a modal on the fast lane: its trigger id expires 3
// seconds after the click, so it must not wait behind questions.
func (a *Adapter) openModal(trigger string, v slack.ModalViewRequest) {
	ok := a.fast.Submit("views.open", func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := a.openView(ctx, trigger, v); err != nil {
			a.log.Error("cannot open a modal", "callback", v.CallbackID, "err", err)
		}
	}, 0)
	if !ok {
		a.log.Warn("modal queue full or stopping; a modal was not opened", "callback", v.CallbackID)
	}
}

// acceptSubmission takes a modal's submission. Invalid input is refused in
// the acknowledgement, which keeps the modal open with the error shown.
func (a *Adapter) acceptSubmission(cb slack.InteractionCallback) *slack.ViewSubmissionResponse {
	meta, err := decodeRef(cb.View.PrivateMetadata)
	if err != nil {
		a.log.Warn("ignoring a modal with unreadable metadata", "callback", cb.View.CallbackID, "err", err)
		return nil
	}
	value := func(block, action string) slack.BlockAction {
		if cb.View.State == nil {
			return slack.BlockAction{}
		}
		return cb.View.State.Values[block][action]
	}
	tm := team(cb)
	channel := meta.Channel
	t := &target{team: tm, channel: channel, thread: meta.Thread, user: cb.User.ID, home: meta.Home}
	if meta.ResponseURL != "" {
		t.responseURL, t.viaResponseURL = meta.ResponseURL, true
	}
	ev := dialog.Event{Conversation: meta.conversation(), Target: meta.ID, FactID: meta.Fact}
	errorsFor := func(msg string) *slack.ViewSubmissionResponse {
		return slack.NewErrorsViewSubmissionResponse(map[string]string{inputBlock: msg})
	}
	switch cb.View.CallbackID {
	case cbOther:
		text := strings.TrimSpace(value(inputBlock, inputAction).Value)
		switch {
		case text == "":
			return errorsFor("Type your answer, or cancel and pick one of the buttons.")
		case utf8.RuneCountInString(text) > 2000:
			return errorsFor("Please keep the answer under 2,000 characters.")
		}
		ev.Kind, ev.Text = dialog.EventOther, text
		t.looking, t.clarTS, t.clarID = true, meta.MessageTS, meta.ID
	case cbEdit:
		text := strings.TrimSpace(value(inputBlock, inputAction).Value)
		if text == "" {
			return errorsFor("Type the new wording.")
		}
		ev.Kind, ev.Text = dialog.EventEditFact, text
	case cbPromote:
		ch := value(channelBlock, channelInput).SelectedConversation
		if ch == "" {
			return slack.NewErrorsViewSubmissionResponse(map[string]string{channelBlock: "Pick a channel."})
		}
		ev.Kind, ev.Scope = dialog.EventPromote, ontology.ScopeChannel
		channel = ch
	default:
		return nil
	}
	ev.Who = dialog.Who{Platform: platform, Workspace: tm, Channel: channel, User: cb.User.ID}
	if !a.work.Submit(cb.View.CallbackID, func(ctx context.Context) { a.converse(ctx, ev, t) }, submitWait) {
		block := inputBlock
		if cb.View.CallbackID == cbPromote {
			block = channelBlock
		}
		return slack.NewErrorsViewSubmissionResponse(map[string]string{block: "Clarify is busy right now; please try again in a moment."})
	}
	return nil
}

// busyCommand is the acknowledgement of a command that could not be queued.
var busyCommand = map[string]string{"response_type": slack.ResponseTypeEphemeral, "text": "Clarify is busy right now; please try again in a minute."}

// acceptCommand takes /clarify and returns what to acknowledge it with.
func (a *Adapter) acceptCommand(cmd slack.SlashCommand) any {
	if j := a.commandJob(cmd); !a.work.Submit(j.name, j.run, submitWait) {
		return busyCommand
	}
	return nil
}

func (a *Adapter) commandJob(cmd slack.SlashCommand) job {
	return job{name: "command", run: func(ctx context.Context) {
		who := dialog.Who{Platform: platform, Workspace: cmd.TeamID, Channel: cmd.ChannelID, User: cmd.UserID}
		// The access rules' "admin" role, and admin commands, need it.
		who.Admin = a.admins.isAdmin(ctx, cmd.TeamID, cmd.UserID)
		t := &target{team: cmd.TeamID, channel: cmd.ChannelID, user: cmd.UserID, responseURL: cmd.ResponseURL, viaResponseURL: true}
		verb, rest, _ := strings.Cut(strings.TrimSpace(cmd.Text), " ")
		rest = strings.TrimSpace(rest)
		note := func(text string) {
			a.deliver(ctx, t, []dialog.Reply{{Kind: dialog.ReplyNotice, Text: text, Ephemeral: true}})
		}
		switch strings.ToLower(verb) {
		case "", "help":
			note(helpText)
			// What the data holds and what to ask (the manager's overview).
			a.converse(ctx, dialog.Event{Kind: dialog.EventMessage, Who: who, Conversation: "help:" + cmd.ChannelID + ":" + cmd.UserID, Text: "what can I ask?"}, t)
		case "prefs", "preferences":
			a.converse(ctx, dialog.Event{Kind: dialog.EventPrefs, Who: who, Subject: userArg(rest)}, t)
		case "forget":
			if rest == "" {
				note("Tell me which word to forget: `/clarify forget revenue`.")
				return
			}
			a.converse(ctx, dialog.Event{Kind: dialog.EventForget, Who: who, Text: strings.Trim(rest, `'"`)}, t)
		case "warehouse", "warehouses":
			note(a.warehouseCommand(who, rest))
		case "admin":
			a.adminCommand(ctx, who, note)
		default:
			note(fmt.Sprintf("I don't know the command %q.\n%s", verb, helpText))
		}
	}}
}

func (a *Adapter) warehouseCommand(who dialog.Who, name string) string {
	w := a.cfg.Warehouses
	if w == nil || len(w.Warehouses()) < 2 {
		return "There is only one warehouse here, so there is nothing to switch."
	}
	if name == "" {
		return fmt.Sprintf("Questions in this channel go to the %q warehouse. Available: %s. Switch with `/clarify warehouse <name>`.",
			w.Current(who), strings.Join(w.Warehouses(), ", "))
	}
	chosen, err := w.Choose(who, name)
	if err != nil {
		return err.Error() // the router's message is written for people
	}
	return fmt.Sprintf("New questions in this channel now go to the %q warehouse.", chosen)
}

// converse sends one event to the dialog and delivers the replies. A
// failure or a panic becomes a short apology; the details go to the log.
func (a *Adapter) converse(ctx context.Context, ev dialog.Event, t *target) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.JobTimeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			a.log.Error("panic handling a Slack event", "kind", ev.Kind, "conversation", ev.Conversation, "panic", r, "stack", string(debug.Stack()))
			dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer dcancel()
			a.deliver(dctx, t, []dialog.Reply{{Kind: dialog.ReplyNotice, Text: apology}})
		}
	}()
	ev.Who.Admin, ev.Locale = a.admins.person(ctx, ev.Who.Workspace, ev.Who.User)
	if t.looking && t.thread != "" && t.channel != "" && !t.home {
		ts, err := a.post(ctx, t.channel, t.thread, lookingMessage())
		if err != nil {
			a.log.Warn("cannot post the Looking… placeholder", "err", err)
		}
		t.placeholder = ts
	}
	replies, err := a.d.Handle(ctx, ev)
	if err != nil {
		a.log.Error("dialog failed", "kind", ev.Kind, "conversation", ev.Conversation, "user", ev.Who.User, "err", err)
		replies = append(replies, dialog.Reply{Kind: dialog.ReplyNotice, Text: dialog.FailureText(ctx, a.log, err)})
		if ctx.Err() != nil {
			// Still tell the person, briefly, even though the work was cancelled.
			dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer dcancel()
			ctx = dctx
		}
	}
	a.deliver(ctx, t, replies)
}

const apology = "Sorry, something went wrong on my side (the details are in the bot's log). Please try again."
