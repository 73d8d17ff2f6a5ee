package discord

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/clarify-bot/clarify/dialog"
)

// out is one message to post.
type out struct {
	content    string
	components []discordgo.MessageComponent
	files      []file
	ephemeral  bool
}

type file struct {
	name, contentType string
	data              []byte
}

func (m out) discordFiles() []*discordgo.File {
	var fs []*discordgo.File
	for _, f := range m.files {
		fs = append(fs, &discordgo.File{Name: f.name, ContentType: f.contentType, Reader: bytes.NewReader(f.data)})
	}
	return fs
}

func (m out) comps() []discordgo.MessageComponent {
	if m.components == nil {
		return []discordgo.MessageComponent{} // "components": [] removes buttons
	}
	return m.components
}

// noMentions: echoed questions and data never ping anyone.
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// sink is where a conversation's replies go.
type sink interface {
	send(ctx context.Context, m out) error
}

// channelSink posts in a channel (a thread, or a DM replying to the question).
type channelSink struct {
	a         *Adapter
	channelID string
	replyTo   string
}

func (s *channelSink) send(ctx context.Context, m out) error {
	msg := &discordgo.MessageSend{Content: m.content, Components: m.comps(), Files: m.discordFiles(), AllowedMentions: noMentions()}
	if s.replyTo != "" {
		msg.Reference = &discordgo.MessageReference{MessageID: s.replyTo, ChannelID: s.channelID, FailIfNotExists: new(bool)}
	}
	if _, err := s.a.s.ChannelMessageSendComplex(s.channelID, msg, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("post in channel %s: %w", s.channelID, err)
	}
	return nil
}

// threadSink starts a thread from the question message on the first post;
// where that fails (no permission, or the channel is itself a thread) it
// replies to the question in the channel instead.
type threadSink struct {
	a               *Adapter
	parent, starter string
	name            string
	target          *channelSink
}

func (s *threadSink) send(ctx context.Context, m out) error {
	if s.target == nil {
		th, err := s.a.s.MessageThreadStartComplex(s.parent, s.starter, &discordgo.ThreadStart{
			Name: s.name, AutoArchiveDuration: 1440,
		}, discordgo.WithContext(ctx))
		if err != nil || th == nil {
			s.a.log.Warn("cannot start a thread; replying in the channel (grant Create Public Threads and Send Messages in Threads)",
				"channel", s.parent, "message", s.starter, "err", err)
			s.target = &channelSink{a: s.a, channelID: s.parent, replyTo: s.starter}
		} else {
			// THREAD_CREATE will say so too; record it now so that the next
			// message in the thread is recognised even if that event is late.
			if th.GuildID != "" {
				cp := *th // the state keeps and later overwrites what it is given
				_ = s.a.s.State.ChannelAdd(&cp)
			}
			s.target = &channelSink{a: s.a, channelID: th.ID}
		}
	}
	return s.target.send(ctx, m)
}

// interactionSink answers through the interaction's token: the first
// message may replace the deferred response ("thinking…"), the rest are
// follow-ups, ephemeral where the reply asks.
type interactionSink struct {
	a *Adapter
	i *discordgo.Interaction
	// editOriginal: the next message with the deferral's visibility replaces it.
	editOriginal      bool
	originalEphemeral bool
}

func (s *interactionSink) send(ctx context.Context, m out) error {
	if s.editOriginal && m.ephemeral == s.originalEphemeral {
		s.editOriginal = false
		c, comps := m.content, m.comps()
		_, err := s.a.s.InteractionResponseEdit(s.i, &discordgo.WebhookEdit{
			Content: &c, Components: &comps, Files: m.discordFiles(), AllowedMentions: noMentions(),
		}, discordgo.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("edit the response to interaction %s: %w", s.i.ID, err)
		}
		return nil
	}
	p := &discordgo.WebhookParams{Content: m.content, Components: m.comps(), Files: m.discordFiles(), AllowedMentions: noMentions()}
	if m.ephemeral {
		p.Flags = discordgo.MessageFlagsEphemeral
	}
	if _, err := s.a.s.FollowupMessageCreate(s.i, true, p, discordgo.WithContext(ctx)); err != nil {
		return fmt.Errorf("follow up interaction %s: %w", s.i.ID, err)
	}
	return nil
}

// routeSink sends public messages one way and ephemeral ones another
// (/ask: the thread, and the interaction's ephemeral follow-ups).
type routeSink struct{ public, private sink }

func (s routeSink) send(ctx context.Context, m out) error {
	if m.ephemeral {
		return s.private.send(ctx, m)
	}
	return s.public.send(ctx, m)
}

// apologyTimeout bounds the note sent when shutdown cancels work.
const apologyTimeout = 3 * time.Second

// resolver updates a clarification's message once it is answered.
type resolver func(ctx context.Context, res *dialog.Resolved)

// deliver renders and posts the manager's replies; an error becomes a
// plain apology (the details go to the log).
func (a *Adapter) deliver(ctx context.Context, s sink, resolve resolver, viewer dialog.Who, conv string, replies []dialog.Reply, err error) {
	if err != nil {
		a.log.Error("dialog failed", "conversation", conv, "user", viewer.User, "err", err)
		if ctx.Err() != nil {
			// Shutdown cancelled the work: still say so, briefly.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), apologyTimeout)
			defer cancel()
		}
		if err := s.send(ctx, out{content: dialog.FailureText(ctx, a.log, err), ephemeral: true}); err != nil {
			a.log.Warn("cannot post the apology", "conversation", conv, "err", err)
		}
		return
	}
	for _, r := range replies {
		if r.Resolved != nil && resolve != nil {
			resolve(ctx, r.Resolved)
		}
		if r.Conversation == "" {
			r.Conversation = conv
		}
		for _, m := range a.render(r, viewer) {
			if err := s.send(ctx, m); err != nil {
				a.log.Warn("cannot post a reply", "conversation", conv, "kind", r.Kind, "err", err)
			}
		}
	}
}

// resolveInteraction edits the clicked message when it is the answered
// question (a type 6 deferral makes it the "original" response), else
// looks for the question's message in the channel.
func (a *Adapter) resolveInteraction(ctx context.Context, i *discordgo.Interaction, res *dialog.Resolved, user string) {
	if i.Message != nil && asksClarification(i.Message, res.ClarificationID) {
		c, comps := resolvedContent(res, user), []discordgo.MessageComponent{}
		if _, err := a.s.InteractionResponseEdit(i, &discordgo.WebhookEdit{Content: &c, Components: &comps, AllowedMentions: noMentions()}, discordgo.WithContext(ctx)); err != nil {
			a.log.Warn("cannot update the answered question", "message", i.Message.ID, "err", err)
		}
		return
	}
	a.resolveInChannel(ctx, i.ChannelID, res, user)
}

// resolveInChannel finds the bot's message asking the clarification among
// the channel's recent messages and removes its buttons.
func (a *Adapter) resolveInChannel(ctx context.Context, channelID string, res *dialog.Resolved, user string) {
	msgs, err := a.s.ChannelMessages(channelID, 50, "", "", "", discordgo.WithContext(ctx))
	if err != nil {
		a.log.Warn("cannot read the channel to update an answered question", "channel", channelID, "err", err)
		return
	}
	for _, m := range msgs {
		if m.Author == nil || m.Author.ID != a.bot() || !asksClarification(m, res.ClarificationID) {
			continue
		}
		c, comps := resolvedContent(res, user), []discordgo.MessageComponent{}
		edit := &discordgo.MessageEdit{ID: m.ID, Channel: channelID, Content: &c, Components: &comps, AllowedMentions: noMentions()}
		if _, err := a.s.ChannelMessageEditComplex(edit, discordgo.WithContext(ctx)); err != nil {
			a.log.Warn("cannot update the answered question", "message", m.ID, "err", err)
		}
		return
	}
}

// asksClarification reports whether a message carries the buttons of clarification id.
func asksClarification(m *discordgo.Message, id string) bool {
	for _, b := range buttons(m.Components) {
		if r, err := parseRef(b.CustomID); err == nil && (r.Action == actChoose || r.Action == actOther) && r.Target == id {
			return true
		}
	}
	return false
}

// buttons lists the buttons in action rows, as built or as parsed from JSON.
func buttons(cs []discordgo.MessageComponent) []discordgo.Button {
	var bs []discordgo.Button
	for _, c := range cs {
		switch x := c.(type) {
		case *discordgo.ActionsRow:
			bs = append(bs, buttons(x.Components)...)
		case discordgo.ActionsRow:
			bs = append(bs, buttons(x.Components)...)
		case *discordgo.Button:
			bs = append(bs, *x)
		case discordgo.Button:
			bs = append(bs, x)
		}
	}
	return bs
}
