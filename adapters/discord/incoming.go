package discord

import (
	"context"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/clarify-bot/clarify/dialog"
)

// question is a message the bot answers.
type question struct {
	who  dialog.Who
	conv string
	text string
	// channelID and messageID are where the message was posted.
	channelID, messageID string
	// dm: reply to replyTo (the conversation's question) in the DM channel.
	dm      bool
	replyTo string
	// inThread: the message is in the conversation's thread.
	inThread bool
}

// onMessage runs on the gateway goroutine: it decides cheaply (no REST
// call) whether the message is for the bot and queues the work.
func (a *Adapter) onMessage(_ *discordgo.Session, m *discordgo.MessageCreate) {
	if m == nil || m.Message == nil {
		return
	}
	q, ok := a.questionOf(m.Message)
	if !ok {
		return
	}
	received := time.Now()
	work := func(ctx context.Context) {
		a.handleQuestion(ctx, q)
		a.cfg.Hooks.answered(time.Since(received))
	}
	if !a.work.SubmitKeyed("question", a.key(q.who, q.conv), work, 0) {
		a.log.Warn("busy: not answering a message", "channel", q.channelID, "message", q.messageID)
		a.acks.Submit("busy", func(ctx context.Context) { a.sayBusy(ctx, q) }, 0)
		return
	}
	// Something visible within a second: "Clarify is typing…" where the
	// question was asked, while it waits for a worker and is worked on.
	a.acks.Submit("typing", func(ctx context.Context) {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := a.s.ChannelTyping(q.channelID, discordgo.WithContext(tctx)); err != nil {
			a.log.Debug("cannot show typing", "channel", q.channelID, "err", err)
			return
		}
		a.cfg.Hooks.firstMessage(time.Since(received))
	}, 0)
}

// questionOf filters messages: bots (this one included), webhooks and
// system messages are ignored; in guilds only data channels (mentions, or
// any message where configured) and the bot's threads count; every DM does.
func (a *Adapter) questionOf(m *discordgo.Message) (question, bool) {
	bot := a.bot()
	if m.Author == nil || m.Author.Bot || m.Author.System || m.WebhookID != "" || bot == "" || m.Author.ID == bot {
		return question{}, false
	}
	if m.Type != discordgo.MessageTypeDefault && m.Type != discordgo.MessageTypeReply {
		return question{}, false
	}
	mentioned := false
	for _, u := range m.Mentions {
		if u != nil && u.ID == bot {
			mentioned = true
		}
	}
	text := strings.TrimSpace(stripMention(m.Content, bot))
	q := question{
		who:       dialog.Who{Platform: Platform, Workspace: m.GuildID, Channel: m.ChannelID, User: m.Author.ID},
		text:      text,
		channelID: m.ChannelID,
		messageID: m.ID,
	}
	if m.GuildID == "" {
		q.who.Admin = a.isAdmin("", m.Author.ID, nil, 0)
		q.dm, q.replyTo = true, dmQuestionID(m, bot)
		q.conv = dmConv(m.ChannelID, q.replyTo)
		return q, true
	}
	var roles []string
	if m.Member != nil {
		roles = m.Member.Roles
	}
	q.who.Admin = a.isAdmin(m.GuildID, m.Author.ID, roles, 0)
	q.who.Roles = strings.Join(roles, ",")
	if th, ok := a.thread(m.ChannelID); ok {
		if !mentioned && th.OwnerID != bot && !a.data[th.ParentID].AnyMessage {
			return question{}, false
		}
		q.who.Channel = th.ParentID
		q.conv, q.inThread = m.ChannelID, true
		return q, true
	}
	dc, isData := a.data[m.ChannelID]
	switch {
	case isData && (dc.AnyMessage || mentioned):
	case len(a.data) == 0 && mentioned:
	default:
		return question{}, false
	}
	// The thread started from this message will have the message's id.
	q.conv = m.ID
	return q, true
}

// stripMention removes the bot's mentions (<@id> and the legacy <@!id>).
func stripMention(s, bot string) string {
	s = strings.ReplaceAll(s, "<@"+bot+">", " ")
	return strings.ReplaceAll(s, "<@!"+bot+">", " ")
}

// dmQuestionID finds the question a DM belongs to: a reply to one of the
// bot's messages belongs to the question that message answered (the bot
// always replies to the question); a reply to one's own message to that
// message; anything else starts a new conversation.
func dmQuestionID(m *discordgo.Message, bot string) string {
	r := m.ReferencedMessage
	switch {
	case r == nil || r.Author == nil:
	case r.Author.ID == bot && r.MessageReference != nil && r.MessageReference.MessageID != "":
		return r.MessageReference.MessageID
	case r.Author.ID == bot || r.Author.ID == m.Author.ID:
		return r.ID
	}
	return m.ID
}

// isAdmin: a configured admin, a member with a configured role, or one with
// Manage Server or Administrator (perms are the interaction member's
// computed permissions; messages carry none). In DMs only configured admins.
func (a *Adapter) isAdmin(guildID, userID string, roles []string, perms int64) bool {
	if a.admins[userID] {
		return true
	}
	if guildID == "" {
		return false
	}
	for _, r := range roles {
		if a.adminRoles[r] {
			return true
		}
	}
	return perms&(discordgo.PermissionManageGuild|discordgo.PermissionAdministrator) != 0
}

// whoOf identifies the person behind an interaction; in DMs Member is nil
// and User is set. Admin is decided here, on every interaction.
func (a *Adapter) whoOf(i *discordgo.Interaction) (dialog.Who, bool) {
	var (
		u     *discordgo.User
		roles []string
		perms int64
	)
	if i.Member != nil {
		u, roles, perms = i.Member.User, i.Member.Roles, i.Member.Permissions
	}
	if u == nil {
		u = i.User
	}
	if u == nil || u.ID == "" {
		return dialog.Who{}, false
	}
	return dialog.Who{
		Platform: Platform, Workspace: i.GuildID, Channel: a.parentOf(i.ChannelID),
		User: u.ID, Admin: a.isAdmin(i.GuildID, u.ID, roles, perms), Roles: strings.Join(roles, ","),
	}, true
}

// parentOf is the channel a thread belongs to (from the state cache), so
// that channel-wide preferences apply in its threads; other channels are
// their own.
func (a *Adapter) parentOf(channelID string) string {
	if th, ok := a.thread(channelID); ok && th.ParentID != "" {
		return th.ParentID
	}
	return channelID
}

// threadInfo is what the adapter needs to know of a thread.
type threadInfo struct{ ParentID, OwnerID string }

// thread looks a channel up in discordgo's state cache (kept from
// GUILD_CREATE and THREAD_CREATE); ok is false unless it is a known thread.
// The cache hands out shared pointers that its event handling overwrites
// under its lock, so the fields are read under the read lock.
func (a *Adapter) thread(channelID string) (threadInfo, bool) {
	st := a.s.State
	ch, err := st.Channel(channelID)
	if err != nil {
		return threadInfo{}, false
	}
	st.RLock()
	defer st.RUnlock()
	return threadInfo{ParentID: ch.ParentID, OwnerID: ch.OwnerID}, ch.IsThread()
}

// handleQuestion runs in the worker pool.
func (a *Adapter) handleQuestion(ctx context.Context, q question) {
	ev := dialog.Event{Kind: dialog.EventMessage, Conversation: q.conv, Who: q.who, Text: q.text}
	replies, err := a.d.Handle(ctx, ev)
	var out sink
	switch {
	case q.dm:
		out = &channelSink{a: a, channelID: q.channelID, replyTo: q.replyTo}
	case q.inThread:
		out = &channelSink{a: a, channelID: q.channelID}
	default:
		out = &threadSink{a: a, parent: q.channelID, starter: q.messageID, name: threadName(q.text)}
	}
	// A typed answer to a pending question resolves it: its message is in
	// this channel (the thread, or the DM).
	resolve := func(ctx context.Context, res *dialog.Resolved) {
		a.resolveInChannel(ctx, q.channelID, res, q.who.User)
	}
	a.deliver(ctx, out, resolve, q.who, q.conv, replies, err)
}

func (a *Adapter) sayBusy(ctx context.Context, q question) {
	ref := &discordgo.MessageReference{MessageID: q.messageID, ChannelID: q.channelID, FailIfNotExists: new(bool)}
	_, err := a.s.ChannelMessageSendComplex(q.channelID, &discordgo.MessageSend{
		Content: busyText, Reference: ref, AllowedMentions: noMentions(),
		Components: []discordgo.MessageComponent{},
	}, discordgo.WithContext(ctx))
	if err != nil {
		a.log.Warn("cannot say the bot is busy", "channel", q.channelID, "err", err)
	}
}
