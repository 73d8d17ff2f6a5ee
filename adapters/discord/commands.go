package discord

import (
	"context"
	"errors"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// Slash command and option names (≤ 32 characters, lowercase).
const (
	cmdAsk    = "ask"
	cmdPrefs  = "prefs"
	cmdForget = "forget"

	optQuestion = "question"
	optUser     = "user"
	optEveryone = "everyone"
	optPhrase   = "phrase"
)

// commands are registered at start-up. Admin features are the /prefs
// options and the buttons under the list: the handler decides Admin from
// the member on every interaction and the manager refuses non-admins, so
// no command needs default_member_permissions.
func commands() []*discordgo.ApplicationCommand {
	contexts := &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild, discordgo.InteractionContextBotDM}
	installs := &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall}
	one := 1
	return []*discordgo.ApplicationCommand{
		{
			Name: cmdAsk, Type: discordgo.ChatApplicationCommand, Contexts: contexts, IntegrationTypes: installs,
			Description: "Ask a question about the data",
			Options: []*discordgo.ApplicationCommandOption{{
				Type: discordgo.ApplicationCommandOptionString, Name: optQuestion, Required: true,
				Description: "Your question, e.g. what was revenue in 2024?", MinLength: &one, MaxLength: 2000,
			}},
		},
		{
			Name: cmdPrefs, Type: discordgo.ChatApplicationCommand, Contexts: contexts, IntegrationTypes: installs,
			Description: "List what I learned about your words (admins: someone else's, or everyone's)",
			Options: []*discordgo.ApplicationCommandOption{
				{Type: discordgo.ApplicationCommandOptionUser, Name: optUser, Description: "Admins: whose preferences to list"},
				{Type: discordgo.ApplicationCommandOptionBoolean, Name: optEveryone, Description: "Admins: list everyone's preferences"},
			},
		},
		{
			Name: cmdForget, Type: discordgo.ChatApplicationCommand, Contexts: contexts, IntegrationTypes: installs,
			Description: "Forget what a word means to you, so that I ask again",
			Options: []*discordgo.ApplicationCommandOption{{
				Type: discordgo.ApplicationCommandOptionString, Name: optPhrase, Required: true,
				Description: "The word or phrase, e.g. revenue", MinLength: &one, MaxLength: 200,
			}},
		},
	}
}

// registerCommands overwrites the application's commands: in one guild
// when GuildID is set (instant; for development), else globally. Only
// shard 0 does it.
func (a *Adapter) registerCommands(ctx context.Context) error {
	if a.cfg.ShardID != 0 {
		return nil
	}
	app := a.app()
	if app == "" {
		return errors.New("discord: no application id to register the slash commands (set DISCORD_APPLICATION_ID)")
	}
	list := commands()
	if a.cfg.AdminLinks != nil {
		// /clarify admin only where there is a console to sign in to.
		list = append(list, clarifyCommand(list[0].Contexts, list[0].IntegrationTypes))
	}
	cmds, err := a.s.ApplicationCommandBulkOverwrite(app, a.cfg.GuildID, list, discordgo.WithContext(ctx))
	if err != nil {
		where := "globally"
		if a.cfg.GuildID != "" {
			where = "in guild " + a.cfg.GuildID
		}
		return fmt.Errorf("discord: register the slash commands %s: %w", where, err)
	}
	a.log.Info("slash commands registered", "count", len(cmds), "guild", a.cfg.GuildID)
	return nil
}

// option finds a command option by name.
func option(d discordgo.ApplicationCommandInteractionData, name string) *discordgo.ApplicationCommandInteractionDataOption {
	for _, o := range d.Options {
		if o != nil && o.Name == name {
			return o
		}
	}
	return nil
}

// optString reads a string (or user id) option without panicking on a
// mismatched type.
func optString(d discordgo.ApplicationCommandInteractionData, name string) string {
	if o := option(d, name); o != nil {
		if s, ok := o.Value.(string); ok {
			return s
		}
	}
	return ""
}

func optBool(d discordgo.ApplicationCommandInteractionData, name string) bool {
	if o := option(d, name); o != nil {
		if b, ok := o.Value.(bool); ok {
			return b
		}
	}
	return false
}
