package discord

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/internal/tables"
	"github.com/clarify-bot/clarify/internal/workpool"
)

// Modal limits and the text input's custom_id.
const (
	maxModalTitle   = 45
	maxInputLabel   = 45
	maxPlaceholder  = 100
	maxOtherLength  = 2000
	maxMeaningInput = 300
	textInputID     = "text"
)

// onInteraction runs on the gateway goroutine: it hands the interaction
// to the first-response lane, which starts at once (many run together),
// so that no click waits behind another's REST call.
func (a *Adapter) onInteraction(_ *discordgo.Session, ic *discordgo.InteractionCreate) {
	if ic == nil || ic.Interaction == nil {
		return
	}
	i, received := ic.Interaction, time.Now()
	if !a.acks.Submit("interaction", func(ctx context.Context) { a.interact(ctx, i, received) }, 0) {
		a.log.Warn("too many interactions at once; one will fail", "interaction", i.ID)
	}
}

// firstResponseTimeout bounds the first response: Discord forgets an
// interaction not answered within 3 seconds.
const firstResponseTimeout = 3 * time.Second

// interact sends the first response at once, before any other REST call
// (discordgo may sleep on a rate limit, and Discord allows 3 s), then
// queues the work.
func (a *Adapter) interact(ctx context.Context, i *discordgo.Interaction, received time.Time) {
	first, work := a.plan(ctx, i)
	rctx, cancel := context.WithDeadline(ctx, received.Add(firstResponseTimeout))
	err := a.s.InteractionRespond(i, first, discordgo.WithContext(rctx))
	cancel()
	if err != nil {
		a.log.Warn("cannot respond to an interaction", "interaction", i.ID, "response", first.Type, "err", err)
		return
	}
	a.cfg.Hooks.firstMessage(time.Since(received))
	if work == nil {
		return
	}
	who, _ := a.whoOf(i)
	timed := func(ctx context.Context) {
		work(ctx)
		a.cfg.Hooks.answered(time.Since(received))
	}
	if !a.work.SubmitKeyed("interaction work", a.key(who, conversationOf(i)), timed, 0) {
		a.log.Warn("busy: dropping an interaction", "interaction", i.ID)
		p := &discordgo.WebhookParams{Content: busyText, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions()}
		if _, err := a.s.FollowupMessageCreate(i, false, p, discordgo.WithContext(ctx)); err != nil {
			a.log.Warn("cannot say the bot is busy", "interaction", i.ID, "err", err)
		}
	}
}

// key is an event's place in the work pool: its warehouse (when the
// dialog knows it) and its person.
func (a *Adapter) key(who dialog.Who, conv string) workpool.Key {
	group := ""
	if l, ok := a.d.(Lanes); ok {
		group = l.Lane(who, conv)
	}
	return workpool.Key{Group: group, Owner: who.Identity().UserKey()}
}

// conversationOf is the conversation a component or modal refers to.
func conversationOf(i *discordgo.Interaction) string {
	var id string
	switch i.Type {
	case discordgo.InteractionMessageComponent:
		id = i.MessageComponentData().CustomID
	case discordgo.InteractionModalSubmit:
		id = i.ModalSubmitData().CustomID
	default:
		return ""
	}
	if r, err := parseRef(id); err == nil {
		return r.Conv
	}
	return ""
}

// Response builders.
func deferred(ephemeral bool) *discordgo.InteractionResponse {
	r := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}
	if ephemeral {
		r.Data = &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral}
	}
	return r
}

func deferredUpdate() *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
}

func ephemeralMessage(text string) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions()},
	}
}

// textModal is a modal with one paragraph input, built as ActionsRow{TextInput}
// (discordgo v0.29 cannot parse the newer Label component in the submission).
func textModal(customID, title, label, placeholder, value string, maxLen int) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseModal,
		Data: &discordgo.InteractionResponseData{
			CustomID: customID,
			Title:    clip(title, maxModalTitle),
			Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				discordgo.TextInput{
					CustomID: textInputID, Label: clip(label, maxInputLabel), Style: discordgo.TextInputParagraph,
					Placeholder: clip(placeholder, maxPlaceholder), Value: clip(value, maxLen), Required: true, MaxLength: maxLen,
				},
			}}},
		},
	}
}

// plan decides the first response from the payload alone, and the work
// that follows it.
func (a *Adapter) plan(ctx context.Context, i *discordgo.Interaction) (*discordgo.InteractionResponse, func(context.Context)) {
	who, ok := a.whoOf(i)
	if !ok {
		return ephemeralMessage(noUser), nil
	}
	switch i.Type {
	case discordgo.InteractionApplicationCommand:
		return a.planCommand(ctx, i, who)
	case discordgo.InteractionMessageComponent:
		return a.planComponent(i, who)
	case discordgo.InteractionModalSubmit:
		return a.planModal(i, who)
	}
	return ephemeralMessage(unknownCmd), nil
}

func (a *Adapter) planCommand(ctx context.Context, i *discordgo.Interaction, who dialog.Who) (*discordgo.InteractionResponse, func(context.Context)) {
	d := i.ApplicationCommandData()
	switch d.Name {
	case cmdAsk:
		q := optString(d, optQuestion)
		return deferred(false), func(ctx context.Context) { a.ask(ctx, i, who, q) }
	case cmdPrefs:
		ev := dialog.Event{Kind: dialog.EventPrefs, Who: who, Subject: optString(d, optUser)}
		if optBool(d, optEveryone) {
			ev.Text = "*"
		}
		return deferred(true), a.run(i, ev, &interactionSink{a: a, i: i, editOriginal: true, originalEphemeral: true})
	case cmdForget:
		ev := dialog.Event{Kind: dialog.EventForget, Who: who, Text: optString(d, optPhrase)}
		return deferred(true), a.run(i, ev, &interactionSink{a: a, i: i, editOriginal: true, originalEphemeral: true})
	case cmdClarify:
		return a.planClarify(ctx, i, who), nil
	}
	return ephemeralMessage(unknownCmd), nil
}

func (a *Adapter) planComponent(i *discordgo.Interaction, who dialog.Who) (*discordgo.InteractionResponse, func(context.Context)) {
	r, err := parseRef(i.MessageComponentData().CustomID)
	if err == nil && !sameDM(i, r.Conv) {
		err = fmt.Errorf("%w: conversation %s clicked in channel %s", errBadRef, r.Conv, i.ChannelID)
	}
	if err != nil {
		a.log.Info("unrecognised button", "err", err)
		return ephemeralMessage(staleButton), nil
	}
	ev := dialog.Event{Who: who, Conversation: r.Conv, Target: r.Target, FactID: r.FactID}
	switch r.Action {
	case actOther:
		id, err := ref{Action: actOtherText, Conv: r.Conv, Target: r.Target}.encode()
		if err != nil {
			return ephemeralMessage(staleButton), nil
		}
		return textModal(id, dialog.OtherLabel+" in your own words", "What do you mean?", promptOf(i.Message), "", maxOtherLength), nil
	case actEdit:
		id, err := ref{Action: actEditText, FactID: r.FactID}.encode()
		if err != nil {
			return ephemeralMessage(staleButton), nil
		}
		return textModal(id, "Edit a preference", "New wording", "e.g. net revenue after discounts", "", maxMeaningInput), nil
	case actChoose:
		ev.Kind, ev.Option = dialog.EventChoose, r.Option
	case actCorrect:
		ev.Kind = dialog.EventCorrect
	case actWrong:
		ev.Kind = dialog.EventWrong
	case actSQL:
		ev.Kind = dialog.EventShowSQL
	case actMore:
		ev.Kind, ev.Option = dialog.EventMore, r.Option
	case actChange:
		ev.Kind = dialog.EventChange
	case actDelete:
		ev.Kind = dialog.EventDeleteFact
	case actPromote:
		ev.Kind, ev.Scope = dialog.EventPromote, r.Scope
	default:
		return ephemeralMessage(staleButton), nil
	}
	return deferredUpdate(), a.run(i, ev, a.replySink(i, r.Conv))
}

// sameDM: a DM conversation's buttons act only in that DM (its replies
// are posted to the channel the custom_id names).
func sameDM(i *discordgo.Interaction, conv string) bool {
	ch, _, ok := splitConv(conv)
	return !ok || ch == i.ChannelID && i.GuildID == ""
}

// replySink is where the replies to a click go: follow-ups of the
// interaction, except in DMs, where public replies answer the question
// message (as every bot message of a DM conversation does, so that a
// person's reply to any of them finds the conversation).
func (a *Adapter) replySink(i *discordgo.Interaction, conv string) sink {
	private := &interactionSink{a: a, i: i}
	if ch, msg, ok := splitConv(conv); ok {
		return routeSink{public: &channelSink{a: a, channelID: ch, replyTo: msg}, private: private}
	}
	return private
}

func (a *Adapter) planModal(i *discordgo.Interaction, who dialog.Who) (*discordgo.InteractionResponse, func(context.Context)) {
	d := i.ModalSubmitData()
	r, err := parseRef(d.CustomID)
	if err != nil || !sameDM(i, r.Conv) {
		return ephemeralMessage(staleButton), nil
	}
	ev := dialog.Event{Who: who, Conversation: r.Conv, Target: r.Target, FactID: r.FactID, Text: modalText(d.Components)}
	switch r.Action {
	case actOtherText:
		ev.Kind = dialog.EventOther
	case actEditText:
		ev.Kind = dialog.EventEditFact
	default:
		return ephemeralMessage(staleButton), nil
	}
	// A modal opened from a button may defer as an update of that message.
	if i.Message == nil {
		return deferred(true), a.run(i, ev, &interactionSink{a: a, i: i, editOriginal: true, originalEphemeral: true})
	}
	return deferredUpdate(), a.run(i, ev, a.replySink(i, r.Conv))
}

// run is the work of an interaction that maps to one dialog event.
func (a *Adapter) run(i *discordgo.Interaction, ev dialog.Event, out sink) func(context.Context) {
	return func(ctx context.Context) {
		if ev.Locale == "" {
			ev.Locale = string(i.Locale) // numbers as the person's Discord client reads them
		}
		replies, err := a.d.Handle(ctx, ev)
		resolve := func(ctx context.Context, res *dialog.Resolved) { a.resolveInteraction(ctx, i, res, ev.Who.User) }
		a.deliver(ctx, out, resolve, ev.Who, ev.Conversation, replies, err)
	}
}

// ask is /ask: the deferred response becomes the question's message, the
// thread starts from it (so the conversation key is its id), and the
// answers go there; in DMs they reply to it.
func (a *Adapter) ask(ctx context.Context, i *discordgo.Interaction, who dialog.Who, question string) {
	echo := fmt.Sprintf("<@%s> asked: %s", who.User, clip(tables.Clean(question), maxContent-60))
	msg, err := a.s.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &echo, AllowedMentions: noMentions()}, discordgo.WithContext(ctx))
	if err != nil || msg == nil {
		a.log.Warn("cannot post the question of /ask", "interaction", i.ID, "err", err)
		return
	}
	private := &interactionSink{a: a, i: i}
	var conv string
	var out sink
	if i.GuildID == "" {
		conv = dmConv(i.ChannelID, msg.ID)
		out = routeSink{public: &channelSink{a: a, channelID: i.ChannelID, replyTo: msg.ID}, private: private}
	} else {
		conv = msg.ID
		out = routeSink{public: &threadSink{a: a, parent: i.ChannelID, starter: msg.ID, name: threadName(question)}, private: private}
	}
	ev := dialog.Event{Kind: dialog.EventMessage, Conversation: conv, Who: who, Text: question, Locale: string(i.Locale)}
	replies, err := a.d.Handle(ctx, ev)
	a.deliver(ctx, out, nil, who, conv, replies, err)
}

// modalText is the value of the modal's text input.
func modalText(cs []discordgo.MessageComponent) string {
	for _, c := range cs {
		var inner []discordgo.MessageComponent
		switch x := c.(type) {
		case *discordgo.ActionsRow:
			inner = x.Components
		case discordgo.ActionsRow:
			inner = x.Components
		case *discordgo.TextInput:
			if x.CustomID == textInputID {
				return x.Value
			}
		case discordgo.TextInput:
			if x.CustomID == textInputID {
				return x.Value
			}
		}
		if t := modalText(inner); t != "" {
			return t
		}
	}
	return ""
}

// promptOf is the clarification's question: the first line of its
// message, without the bold markers (a placeholder for the modal).
func promptOf(m *discordgo.Message) string {
	if m == nil {
		return ""
	}
	line, _, _ := strings.Cut(m.Content, "\n")
	return strings.Trim(line, "*❓ ")
}
