package discord

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/clarify-bot/clarify/connectors/warehouse"
	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

func TestRefRoundTrip(t *testing.T) {
	t.Parallel()
	dm := dmConv("1200000000000000020", "1300000000000000007")
	tests := []struct {
		name string
		r    ref
		want string
	}{
		{"choose in a thread", ref{Action: actChoose, Conv: "1300000000000000007", Target: "tapptcau", Option: 2}, "choose|1300000000000000007|tapptcau|2"},
		{"choose in a DM", ref{Action: actChoose, Conv: dm, Target: "tapptcau", Option: 0}, "choose|" + dm + "|tapptcau|0"},
		{"other", ref{Action: actOther, Conv: dm, Target: "tapptcau"}, "other|" + dm + "|tapptcau"},
		{"modal", ref{Action: actOtherText, Conv: dm, Target: "tapptcau"}, "othertx|" + dm + "|tapptcau"},
		{"correct", ref{Action: actCorrect, Conv: dm, Target: "4hm2yg6k"}, "ok|" + dm + "|4hm2yg6k"},
		{"wrong", ref{Action: actWrong, Conv: dm, Target: "4hm2yg6k"}, "wrong|" + dm + "|4hm2yg6k"},
		{"sql", ref{Action: actSQL, Conv: dm, Target: "4hm2yg6k"}, "sql|" + dm + "|4hm2yg6k"},
		{"show more from row 21", ref{Action: actMore, Conv: "1300000000000000007", Target: "4hm2yg6k", Option: 20}, "more|1300000000000000007|4hm2yg6k|20"},
		{"change", ref{Action: actChange, Conv: dm, Target: "4hm2yg6k", FactID: "abcdefghij"}, "change|" + dm + "|4hm2yg6k|abcdefghij"},
		{"delete", ref{Action: actDelete, FactID: "abcdefghij"}, "del|abcdefghij"},
		{"promote", ref{Action: actPromote, FactID: "abcdefghij", Scope: "workspace"}, "promote|abcdefghij|workspace"},
		{"edit", ref{Action: actEdit, FactID: "abcdefghij"}, "edit|abcdefghij"},
		{"edit modal", ref{Action: actEditText, FactID: "abcdefghij"}, "edittx|abcdefghij"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := tt.r.encode()
			if err != nil || id != tt.want {
				t.Fatalf("encode = %q, %v; want %q", id, err, tt.want)
			}
			if len(id) > maxCustomID {
				t.Fatalf("%d characters", len(id))
			}
			back, err := parseRef(id)
			if err != nil || back != tt.r {
				t.Fatalf("parse = %+v, %v; want %+v", back, err, tt.r)
			}
		})
	}
}

func TestRefRejects(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		r    ref
	}{
		{"too long", ref{Action: actChange, Conv: strings.Repeat("1", 80), Target: "4hm2yg6k", FactID: "abcdefghij"}},
		{"separator in a field", ref{Action: actSQL, Conv: "a|b", Target: "x"}},
		{"empty target", ref{Action: actSQL, Conv: "1"}},
		{"unknown action", ref{Action: "launch", Conv: "1", Target: "x"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if id, err := tt.r.encode(); err == nil {
				t.Fatalf("encoded %q", id)
			}
		})
	}
	for _, id := range []string{"", "choose|1|x", "choose|1|x|-1", "choose|1|x|one", "promote|f|galaxy", "del|", "sql||x", "other|1|x|y", "nope|1"} {
		t.Run("parse "+id, func(t *testing.T) {
			if r, err := parseRef(id); !errors.Is(err, errBadRef) {
				t.Fatalf("parseRef(%q) = %+v, %v", id, r, err)
			}
		})
	}
}

// offline is an adapter that is never run: for rendering and decisions.
func offline(t *testing.T, cfg Config) *Adapter {
	t.Helper()
	cfg.Token = "test-token"
	cfg.Logger = testLogger(t)
	a, err := New(cfg, dialogFunc(nil))
	if err != nil {
		t.Fatal(err)
	}
	bot := "1100000000000000001"
	a.botID.Store(&bot)
	return a
}

func TestWhoOfInteractions(t *testing.T) {
	t.Parallel()
	a := offline(t, Config{AdminRoles: []string{adminRole}, Admins: []string{"1000000000000000009"}})
	user := func(id string) *discordgo.User { return &discordgo.User{ID: id} }
	tests := []struct {
		name string
		i    discordgo.Interaction
		want dialog.Who
		ok   bool
	}{
		{"member", discordgo.Interaction{GuildID: guildID, ChannelID: dataCh, Member: &discordgo.Member{User: user(alice), Permissions: 1071698529857}},
			dialog.Who{Platform: "discord", Workspace: guildID, Channel: dataCh, User: alice}, true},
		{"manage server", discordgo.Interaction{GuildID: guildID, ChannelID: dataCh, Member: &discordgo.Member{User: user(bob), Permissions: discordgo.PermissionManageGuild}},
			dialog.Who{Platform: "discord", Workspace: guildID, Channel: dataCh, User: bob, Admin: true}, true},
		{"administrator", discordgo.Interaction{GuildID: guildID, ChannelID: dataCh, Member: &discordgo.Member{User: user(bob), Permissions: discordgo.PermissionAdministrator}},
			dialog.Who{Platform: "discord", Workspace: guildID, Channel: dataCh, User: bob, Admin: true}, true},
		{"admin role", discordgo.Interaction{GuildID: guildID, ChannelID: dataCh, Member: &discordgo.Member{User: user(carol), Roles: []string{"1", adminRole}}},
			dialog.Who{Platform: "discord", Workspace: guildID, Channel: dataCh, User: carol, Admin: true, Roles: "1," + adminRole}, true},
		{"DM: nil member, user set", discordgo.Interaction{ChannelID: dmCh, User: user(alice)},
			dialog.Who{Platform: "discord", Channel: dmCh, User: alice}, true},
		{"DM: a configured admin", discordgo.Interaction{ChannelID: dmCh, User: user("1000000000000000009")},
			dialog.Who{Platform: "discord", Channel: dmCh, User: "1000000000000000009", Admin: true}, true},
		{"nobody", discordgo.Interaction{GuildID: guildID, ChannelID: dataCh}, dialog.Who{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := a.whoOf(&tt.i)
			if ok != tt.ok || got != tt.want {
				t.Fatalf("whoOf = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestQuestionOf(t *testing.T) {
	t.Parallel()
	a := offline(t, Config{DataChannels: []Channel{{ID: dataCh}, {ID: anyCh, AnyMessage: true}}, Admins: []string{bob}})
	bot := a.bot()
	const thread, foreignThread = "1300000000000000100", "1300000000000000101"
	if err := a.s.State.GuildAdd(&discordgo.Guild{ID: guildID, Channels: []*discordgo.Channel{{ID: dataCh, GuildID: guildID}, {ID: otherCh, GuildID: guildID}}}); err != nil {
		t.Fatal(err)
	}
	for _, th := range []*discordgo.Channel{
		{ID: thread, GuildID: guildID, ParentID: dataCh, OwnerID: bot, Type: discordgo.ChannelTypeGuildPublicThread},
		{ID: foreignThread, GuildID: guildID, ParentID: otherCh, OwnerID: alice, Type: discordgo.ChannelTypeGuildPublicThread},
	} {
		if err := a.s.State.ChannelAdd(th); err != nil {
			t.Fatal(err)
		}
	}
	mention := []*discordgo.User{{ID: bot}}
	msg := func(id, ch, guild, content string, mentions []*discordgo.User) *discordgo.Message {
		m := &discordgo.Message{ID: id, ChannelID: ch, GuildID: guild, Content: content, Author: &discordgo.User{ID: alice}, Mentions: mentions}
		if guild != "" {
			m.Member = &discordgo.Member{Roles: []string{}}
		}
		return m
	}
	botMsg := &discordgo.Message{ID: "77", ChannelID: dmCh, Author: &discordgo.User{ID: bot, Bot: true}, MessageReference: &discordgo.MessageReference{MessageID: "55"}}
	echo := &discordgo.Message{ID: "66", ChannelID: dmCh, Author: &discordgo.User{ID: bot, Bot: true}}
	withRef := func(m *discordgo.Message, r *discordgo.Message) *discordgo.Message {
		m.ReferencedMessage, m.Type = r, discordgo.MessageTypeReply
		return m
	}
	tests := []struct {
		name     string
		m        *discordgo.Message
		ok       bool
		conv     string
		text     string
		channel  string
		admin    bool
		inThread bool
	}{
		{"mention in a data channel", msg("1", dataCh, guildID, "<@"+bot+"> revenue in 2024?", mention), true, "1", "revenue in 2024?", dataCh, false, false},
		{"legacy nick mention", msg("2", dataCh, guildID, "<@!"+bot+"> revenue?", mention), true, "2", "revenue?", dataCh, false, false},
		{"no mention in a mention-only channel", msg("3", dataCh, guildID, "revenue?", nil), false, "", "", "", false, false},
		{"any message channel", msg("4", anyCh, guildID, "revenue?", nil), true, "4", "revenue?", anyCh, false, false},
		{"mention outside the data channels", msg("5", otherCh, guildID, "<@"+bot+"> hi", mention), false, "", "", "", false, false},
		{"the bot's thread, no mention", msg("6", thread, guildID, "and 2023?", nil), true, thread, "and 2023?", dataCh, false, true},
		{"someone else's thread, no mention", msg("7", foreignThread, guildID, "chat", nil), false, "", "", "", false, false},
		{"someone else's thread, a mention", msg("8", foreignThread, guildID, "<@"+bot+"> revenue?", mention), true, foreignThread, "revenue?", otherCh, false, true},
		{"a DM", msg("9", dmCh, "", "revenue?", nil), true, dmCh + ":9", "revenue?", dmCh, false, false},
		{"a DM reply to the bot", withRef(msg("10", dmCh, "", "gross", nil), botMsg), true, dmCh + ":55", "gross", dmCh, false, false},
		{"a DM reply to the /ask echo", withRef(msg("11", dmCh, "", "gross", nil), echo), true, dmCh + ":66", "gross", dmCh, false, false},
		{"a configured admin", func() *discordgo.Message {
			m := msg("12", dataCh, guildID, "<@"+bot+"> x", mention)
			m.Author.ID = bob
			return m
		}(), true, "12", "x", dataCh, true, false},
		{"a bot", func() *discordgo.Message {
			m := msg("13", dataCh, guildID, "<@"+bot+"> x", mention)
			m.Author.Bot = true
			return m
		}(), false, "", "", "", false, false},
		{"itself", func() *discordgo.Message { m := msg("14", dmCh, "", "x", nil); m.Author.ID = bot; return m }(), false, "", "", "", false, false},
		{"a thread-created notice", func() *discordgo.Message {
			m := msg("15", dataCh, guildID, "<@"+bot+"> x", mention)
			m.Type = discordgo.MessageTypeThreadCreated
			return m
		}(), false, "", "", "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, ok := a.questionOf(tt.m)
			if ok != tt.ok {
				t.Fatalf("questionOf ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if q.conv != tt.conv || q.text != tt.text || q.who.Channel != tt.channel || q.who.Admin != tt.admin || q.inThread != tt.inThread {
				t.Fatalf("question %+v; want conv %s text %q channel %s admin %v thread %v", q, tt.conv, tt.text, tt.channel, tt.admin, tt.inThread)
			}
			if q.dm != (tt.m.GuildID == "") || q.who.Workspace != tt.m.GuildID || q.who.User != tt.m.Author.ID {
				t.Fatalf("who %+v dm %v", q.who, q.dm)
			}
		})
	}
}

// checkLimits fails when a message would be refused by Discord.
func checkLimits(t *testing.T, m out) {
	t.Helper()
	if n := units(m.content); n > maxContent {
		t.Fatalf("content of %d units", n)
	}
	if n := strings.Count(m.content, "```"); n%2 != 0 {
		t.Fatalf("unbalanced code fences (%d) in:\n%s", n, m.content)
	}
	if len(m.components) > maxRows {
		t.Fatalf("%d action rows", len(m.components))
	}
	seen := map[string]bool{}
	for _, c := range m.components {
		row, ok := c.(discordgo.ActionsRow)
		if !ok || len(row.Components) == 0 || len(row.Components) > maxPerRow {
			t.Fatalf("bad row %#v", c)
		}
		for _, bc := range row.Components {
			b := bc.(discordgo.Button)
			if b.Label == "" || units(b.Label) > maxLabel || b.CustomID == "" || len(b.CustomID) > maxCustomID || seen[b.CustomID] {
				t.Fatalf("bad button %+v", b)
			}
			seen[b.CustomID] = true
		}
	}
	size := 0
	for _, f := range m.files {
		size += len(f.data)
	}
	if size > maxFileBytes {
		t.Fatalf("files of %d bytes", size)
	}
}

func TestRenderRespectsLimits(t *testing.T) {
	t.Parallel()
	a := offline(t, Config{})
	long := strings.Repeat("ŵörd ", 60) // 300 characters, multi-byte
	emoji := strings.Repeat("😀", 120)   // each counts twice
	conv := dmConv("1200000000000000020", "1300000000000000007")
	viewer := dialog.Who{Platform: Platform, Workspace: guildID, Channel: dataCh, User: alice}

	var opts []dialog.Option
	for i := range 30 {
		opts = append(opts, dialog.Option{Label: fmt.Sprintf("%d %s", i, long), Example: emoji})
	}
	table := func(rows, cols, width int) *dialog.Answer {
		ans := &dialog.Answer{ID: "4hm2yg6k", Explanation: long + long, SQL: "SELECT 1", Result: &warehouse.Result{}}
		for c := range cols {
			name := fmt.Sprintf("column_%d", c)
			ans.Columns = append(ans.Columns, name)
			ans.Result.Columns = append(ans.Result.Columns, warehouse.ResultColumn{Name: name, Type: "VARCHAR"})
		}
		for r := range rows {
			typed := make([]any, cols)
			shown := make([]string, cols)
			for c := range cols {
				v := fmt.Sprintf("%d-%s", r, strings.Repeat("x", width))
				if c == 0 && cols > 1 {
					v = "=HYPERLINK(\"http://x\")" // a formula: guarded in the CSV
				}
				typed[c], shown[c] = v, v
			}
			ans.Result.Rows = append(ans.Result.Rows, typed)
			if r < 20 {
				ans.Rows = append(ans.Rows, shown)
			}
		}
		ans.RowCount = rows
		return ans
	}
	withFacts := table(3, 2, 5)
	for i := range 30 {
		withFacts.UsedFacts = append(withFacts.UsedFacts, dialog.UsedFact{FactID: fmt.Sprintf("fact%06d", i), Phrase: long, Meaning: emoji, Scope: []ontology.Scope{ontology.ScopeUser, ontology.ScopeChannel, ontology.ScopeWorkspace}[i%3]})
	}
	withFacts.Notes = []string{long, long, long, long, long, long, long}
	prefs := func(n int, admin bool) *dialog.Prefs {
		p := &dialog.Prefs{CanAdmin: admin}
		for i := range n {
			p.Facts = append(p.Facts, dialog.FactView{ID: fmt.Sprintf("f%09d", i), Phrase: long, Meaning: emoji, Scope: "user", Owner: "discord:" + guildID + ":" + alice, Uses: i})
		}
		return p
	}

	tests := []struct {
		name  string
		reply dialog.Reply
		check func(t *testing.T, outs []out)
	}{
		{"many options, long labels", dialog.Reply{Kind: dialog.ReplyClarification, Conversation: conv, Clarification: &dialog.Clarification{ID: "tapptcau", Prompt: long, Options: opts}},
			func(t *testing.T, outs []out) {
				bs := buttons(outs[0].components)
				if len(bs) != maxRows*maxPerRow || bs[len(bs)-1].Label != dialog.OtherLabel {
					t.Fatalf("%d buttons, last %q", len(bs), bs[len(bs)-1].Label)
				}
			}},
		{"the manager's own Other… is not doubled", dialog.Reply{Kind: dialog.ReplyClarification, Conversation: conv, Clarification: &dialog.Clarification{ID: "tapptcau", Prompt: "p", Options: []dialog.Option{{Label: "a"}, {Label: dialog.OtherLabel}}}},
			func(t *testing.T, outs []out) {
				if bs := buttons(outs[0].components); len(bs) != 2 || bs[0].Label != "a" || bs[1].CustomID != "other|"+conv+"|tapptcau" {
					t.Fatalf("buttons %+v", bs)
				}
			}},
		{"5,000 rows of 12 columns", dialog.Reply{Kind: dialog.ReplyAnswer, Conversation: conv, Answer: table(5000, 12, 40)},
			func(t *testing.T, outs []out) {
				m := outs[0]
				if len(m.files) != 1 {
					t.Fatalf("files %d", len(m.files))
				}
				recs, err := csv.NewReader(bytes.NewReader(m.files[0].data)).ReadAll()
				if err != nil || len(recs) != 5001 || len(recs[1]) != 12 || recs[1][0] != "'=HYPERLINK(\"http://x\")" {
					t.Fatalf("CSV: %d records, %v, first %q", len(recs), err, recs[1][0])
				}
				if !strings.Contains(m.content, "of 5,000 rows; all of them are in the attached CSV") {
					t.Fatalf("status missing:\n%s", m.content)
				}
			}},
		{"over 10 MiB of CSV", dialog.Reply{Kind: dialog.ReplyAnswer, Conversation: conv, Answer: table(3000, 1, 5000)},
			func(t *testing.T, outs []out) {
				m := outs[0]
				if len(m.files) != 1 || len(m.files[0].data) > csvLimit || len(m.files[0].data) < csvLimit-6000 {
					t.Fatalf("CSV of %d bytes", len(m.files[0].data))
				}
				if !strings.Contains(m.content, "10 MiB") {
					t.Fatalf("no note of the cut:\n%s", m.content)
				}
			}},
		{"200 columns", dialog.Reply{Kind: dialog.ReplyAnswer, Conversation: conv, Answer: table(3, 200, 10)},
			func(t *testing.T, outs []out) {
				if len(outs[0].files) != 1 {
					t.Fatal("a result too wide to show needs the CSV")
				}
			}},
		{"30 used facts and many notes", dialog.Reply{Kind: dialog.ReplyAnswer, Conversation: conv, Answer: withFacts},
			func(t *testing.T, outs []out) {
				bs := buttons(outs[0].components)
				if len(bs) != 3+maxChangeButtons || !strings.HasPrefix(bs[3].Label, "Change '") || bs[3].CustomID != "change|"+conv+"|4hm2yg6k|fact000000" {
					t.Fatalf("%d buttons: %+v", len(bs), bs[3])
				}
				if !strings.Contains(outs[0].content, "Using this channel's choice") {
					t.Fatalf("used facts missing:\n%s", outs[0].content)
				}
			}},
		{"long SQL", dialog.Reply{Kind: dialog.ReplySQL, SQL: "SELECT " + strings.Repeat("a_column, ", 400) + "1"},
			func(t *testing.T, outs []out) {
				if len(outs[0].files) != 1 || outs[0].files[0].name != "query.sql" {
					t.Fatal("long SQL should be attached")
				}
			}},
		{"long notice", dialog.Reply{Kind: dialog.ReplyNotice, Text: strings.Repeat(emoji, 30), Ephemeral: true},
			func(t *testing.T, outs []out) {
				if !outs[0].ephemeral {
					t.Fatal("not ephemeral")
				}
			}},
		{"60 preferences for an admin", dialog.Reply{Kind: dialog.ReplyPrefs, Ephemeral: true, Prefs: prefs(60, true)},
			func(t *testing.T, outs []out) {
				if len(outs) != maxPrefsPages || !strings.Contains(outs[len(outs)-1].content, "more not shown") {
					t.Fatalf("%d pages; last:\n%s", len(outs), outs[len(outs)-1].content)
				}
				// A row per fact: delete, promote to channel, to server, edit.
				if rows := len(outs[0].components); rows != 5 || len(buttons(outs[0].components)) != 20 {
					t.Fatalf("first page: %d rows, %d buttons", rows, len(buttons(outs[0].components)))
				}
			}},
		{"30 own preferences", dialog.Reply{Kind: dialog.ReplyPrefs, Ephemeral: true, Prefs: prefs(30, false)},
			func(t *testing.T, outs []out) {
				total := 0
				for _, m := range outs {
					total += len(buttons(m.components))
				}
				if total != 30 || !outs[0].ephemeral {
					t.Fatalf("%d delete buttons over %d pages", total, len(outs))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outs := a.render(tt.reply, viewer)
			if len(outs) == 0 {
				t.Fatal("nothing rendered")
			}
			for _, m := range outs {
				checkLimits(t, m)
			}
			tt.check(t, outs)
		})
	}
}

func TestFitTableKeepsTheCodeBlockClosed(t *testing.T) {
	t.Parallel()
	text, shown := fitTable([]string{"a"}, [][]string{{"```"}, {"x"}}, 1000)
	if shown != 2 || strings.Contains(text, "```") {
		t.Fatalf("shown %d:\n%s", shown, text)
	}
	if _, shown := fitTable([]string{strings.Repeat("h", 50)}, nil, 10); shown != 0 {
		t.Fatal("a header wider than the budget cannot be shown")
	}
}

func TestInvitePermissions(t *testing.T) {
	t.Parallel()
	// The README's invite URL uses this number.
	if Permissions != 309237746688 {
		t.Fatalf("Permissions = %d", Permissions)
	}
	if Intents != intentsWant {
		t.Fatalf("Intents = %d", Intents)
	}
}
