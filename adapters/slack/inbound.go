package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/inflight"
	"github.com/clarify-bot/clarify/internal/workpool"
	"github.com/clarify-bot/clarify/ontology"
)

// submitWait is how long an interaction waits for room in a full queue
// (it must still be acknowledged within Slack's 3 seconds).
const submitWait = time.Second

// Everything below runs in the receive path and must return quickly: it
// decides, queues the work and lets the caller acknowledge.

// acceptEvent takes an Events API callback. It reports false when the
// event could not be checked or queued, so that it is not acknowledged
// and Slack sends it again later. Events the bot ignores are dropped
// before the store is asked about their id.
func (a *Adapter) acceptEvent(ev slackevents.EventsAPIEvent) bool {
	cb, ok := ev.Data.(*slackevents.EventsAPICallbackEvent)
	if !ok {
		return true
	}
	j, ok := a.eventJob(ev.TeamID, ev.InnerEvent)
	if !ok {
		return true
	}
	first, checked := a.firstEvent(cb.EventID)
	if !checked {
		return false
	}
	if !first {
		a.log.Debug("duplicate event ignored", "event_id", cb.EventID)
		a.cfg.Hooks.duplicate()
		return true
	}
	if !a.visible.Submit(j.name, j.run, 0) {
		a.forgetEvent(cb.EventID)
		a.log.Warn("intake queue full or stopping; leaving the event for Slack to send again", "event_id", cb.EventID)
		return false
	}
	return true
}

// job is one piece of work done after Slack was acknowledged.
type job struct {
	name string
	run  func(ctx context.Context)
}

// eventJob turns an inner event into work for the intake lane; false
// means ignore it. It decides from the payload alone.
func (a *Adapter) eventJob(team string, inner slackevents.EventsAPIInnerEvent) (job, bool) {
	now := a.cfg.Now()
	switch e := inner.Data.(type) {
	case *slackevents.AppMentionEvent:
		if e.BotID != "" || e.User == "" || e.User == a.bot.UserID || e.Edited != nil {
			return job{}, false
		}
		return a.questionJob(question{team: team, channel: e.Channel, user: e.User, text: e.Text, ts: e.TimeStamp, thread: e.ThreadTimeStamp, received: now}), true
	case *slackevents.MessageEvent:
		// Bots (itself included), edits, joins and other subtypes are not questions.
		if e.SubType != "" || e.BotID != "" || e.User == "" || e.User == a.bot.UserID {
			return job{}, false
		}
		q := question{team: team, channel: e.Channel, user: e.User, text: e.Text, ts: e.TimeStamp, thread: e.ThreadTimeStamp, received: now}
		switch e.ChannelType {
		case "im":
			return a.questionJob(q), true
		case "channel", "group":
			// In channels the bot answers mentions (app_mention, which
			// Slack sends besides this event when the bot is mentioned);
			// a reply in a thread is a follow-up when the thread is one
			// the bot answers in, which the intake asks the dialog.
			if e.ThreadTimeStamp == "" || e.ThreadTimeStamp == e.TimeStamp || a.bot.UserID == "" || strings.Contains(e.Text, "<@"+a.bot.UserID) {
				return job{}, false
			}
			q.followUp = true
			return a.questionJob(q), true
		}
		return job{}, false
	case *slackevents.AppHomeOpenedEvent:
		if e.Tab != "home" || e.User == "" {
			return job{}, false
		}
		return job{name: "app_home_opened", run: func(context.Context) {
			home := func(ctx context.Context) { a.publishHome(ctx, team, e.User, e.Channel, "") }
			if !a.work.SubmitKeyed("app_home_opened", workpool.Key{Owner: personKey(team, e.User)}, home, 0) {
				a.log.Warn("work queue full or stopping; an App Home was not published", "user", e.User)
			}
		}}, true
	}
	return job{}, false
}

// question is a message the bot may answer.
type question struct {
	team, channel, user, text string
	ts, thread                string
	received                  time.Time
	// followUp: a reply in a channel thread without a mention, handled
	// only when the thread is one of the bot's conversations.
	followUp bool
}

func (a *Adapter) questionJob(q question) job {
	thread := q.thread
	if thread == "" {
		thread = q.ts // a new thread under the question
	}
	return job{name: "question", run: func(ctx context.Context) {
		ev := dialog.Event{
			Kind:         dialog.EventMessage,
			Conversation: conversationKey(q.channel, thread),
			Who:          dialog.Who{Platform: platform, Workspace: q.team, Channel: q.channel, User: q.user},
			Text:         plainText(q.text, a.bot.UserID),
		}
		t := &target{team: q.team, channel: q.channel, thread: thread, user: q.user, looking: true, received: q.received}
		if q.followUp && !a.knows(ctx, ev) {
			return
		}
		if q.thread == "" || q.thread == q.ts {
			// A new conversation: a question the rate limits would refuse
			// gets one ephemeral message and nothing else.
			if pc, ok := a.d.(Prechecker); ok {
				if msg := pc.Precheck(ctx, ev.Who); msg != "" {
					a.ephemeral(ctx, t, noticeMessage(msg))
					a.cfg.Hooks.firstMessage(a.cfg.Now().Sub(q.received))
					return
				}
			}
		}
		a.startTurn(ctx, ev, t)
	}}
}

// knows asks the dialog whether a thread is one of its conversations; a
// dialog that cannot tell knows none (mentions still work).
func (a *Adapter) knows(ctx context.Context, ev dialog.Event) bool {
	th, ok := a.d.(Threads)
	if !ok {
		return false
	}
	known, err := th.Knows(ctx, ev.Who, ev.Conversation)
	if err != nil {
		a.log.Warn("cannot tell whether a thread is a conversation; ignoring the reply", "conversation", ev.Conversation, "err", err)
		return false
	}
	return known
}

// acceptTurn queues a turn from an interaction on the intake lane.
func (a *Adapter) acceptTurn(name string, ev dialog.Event, t *target) bool {
	return a.visible.Submit(name, func(ctx context.Context) { a.startTurn(ctx, ev, t) }, submitWait)
}

// startTurn runs on the intake lane: it shows the placeholder at once,
// then queues the dialog work, fairly, by warehouse and person. A full
// pool turns the placeholder into "busy".
func (a *Adapter) startTurn(ctx context.Context, ev dialog.Event, t *target) {
	a.showPlaceholder(ctx, ev, t)
	group := ""
	if l, ok := a.d.(Lanes); ok {
		group = l.Lane(ev.Who, ev.Conversation)
	}
	key := workpool.Key{Group: group, Owner: personKey(ev.Who.Workspace, ev.Who.User)}
	if a.work.SubmitKeyed("turn", key, func(ctx context.Context) { a.converse(ctx, ev, t) }, 0) {
		return
	}
	a.log.Warn("work queue full or stopping; telling the person to try again", "conversation", ev.Conversation, "user", ev.Who.User)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	a.deliver(dctx, t, []dialog.Reply{{Kind: dialog.ReplyNotice, Text: busyText}})
	a.untrack(dctx, t)
}

const busyText = "I'm busy with a lot of questions right now; please try again in a minute."

// showPlaceholder posts "Looking…" in the thread and records it, with
// the turn, for failover; the first reply replaces it.
func (a *Adapter) showPlaceholder(ctx context.Context, ev dialog.Event, t *target) {
	if !t.looking || t.thread == "" || t.channel == "" || t.home || t.placeholder != "" {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ts, err := a.post(pctx, t.channel, t.thread, lookingMessage())
	if err != nil {
		a.log.Warn("cannot post the Looking… placeholder", "err", err)
		return
	}
	t.placeholder = ts
	if !t.received.IsZero() {
		a.cfg.Hooks.firstMessage(a.cfg.Now().Sub(t.received))
	}
	if a.cfg.Inflight != nil {
		p := inflight.Placeholder{Platform: platform, Workspace: t.team, Channel: t.channel, Thread: t.thread, Message: ts, Click: t.clarTS != ""}
		if b, err := json.Marshal(savedTurn{Event: ev, User: t.user, ClarTS: t.clarTS, ClarID: t.clarID}); err == nil {
			p.Turn = b
		}
		if err := a.cfg.Inflight.Track(pctx, p); err != nil {
			a.log.Warn("cannot record the placeholder; if this process dies it stays", "err", err)
		} else {
			t.tracked = &p
		}
	}
}

// untrack forgets the turn's placeholder once its replies are delivered.
func (a *Adapter) untrack(ctx context.Context, t *target) {
	if t.tracked == nil || a.cfg.Inflight == nil {
		return
	}
	if err := a.cfg.Inflight.Done(ctx, *t.tracked); err != nil {
		a.log.Warn("cannot forget a delivered placeholder", "err", err)
	}
	t.tracked = nil
}

// savedTurn is what a placeholder records of its turn, for another
// process to finish it.
type savedTurn struct {
	Event  dialog.Event `json:"event"`
	User   string       `json:"user"`
	ClarTS string       `json:"clar_ts,omitempty"`
	ClarID string       `json:"clar_id,omitempty"`
}

// Orphaned takes over a placeholder that a process which died left
// behind (found by another replica, or this one after a restart): the
// turn it recorded is run again here, its replies replacing the
// placeholder in the same thread (resumed). A placeholder without a turn,
// or one that cannot be queued, gets a note to try again.
func (a *Adapter) Orphaned(ctx context.Context, p inflight.Placeholder) (resumed bool, err error) {
	var st savedTurn
	if len(p.Turn) > 0 && json.Unmarshal(p.Turn, &st) == nil && st.Event.Conversation != "" {
		ev := st.Event
		ev.Resume = true
		t := &target{team: p.Workspace, channel: p.Channel, thread: p.Thread, user: st.User, looking: true, placeholder: p.Message, clarTS: st.ClarTS, clarID: st.ClarID}
		if a.cfg.Inflight != nil {
			t.tracked = &p
		}
		group := ""
		if l, ok := a.d.(Lanes); ok {
			group = l.Lane(ev.Who, ev.Conversation)
		}
		key := workpool.Key{Group: group, Owner: personKey(ev.Who.Workspace, ev.Who.User)}
		if a.work.SubmitKeyed("resumed turn", key, func(ctx context.Context) { a.converse(ctx, ev, t) }, 0) {
			return true, nil
		}
	}
	text := "Sorry, I was interrupted (a Clarify server restarted) before I could answer. Please ask again."
	if p.Click {
		text = "Sorry, I was interrupted (a Clarify server restarted) while working on your choice. Please click it again."
	}
	return false, a.update(ctx, p.Channel, p.Message, noticeMessage(text))
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
	t.received = a.cfg.Now()
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
	if !a.acceptTurn(name, ev, t) {
		a.log.Warn("intake queue full or stopping; a click was dropped", "action", act.ActionID, "user", cb.User.ID)
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
	t.received = a.cfg.Now()
	if !a.acceptTurn(cb.View.CallbackID, ev, t) {
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
	if j := a.commandJob(cmd); !a.work.SubmitKeyed(j.name, workpool.Key{Owner: personKey(cmd.TeamID, cmd.UserID)}, j.run, submitWait) {
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
	defer func() {
		// Delivered (or apologised for): the placeholder is no orphan.
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer dcancel()
		a.untrack(dctx, t)
		if !t.received.IsZero() {
			a.cfg.Hooks.answered(a.cfg.Now().Sub(t.received))
		}
	}()
	ev.Who.Admin, ev.Locale = a.admins.person(ctx, ev.Who.Workspace, ev.Who.User)
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
