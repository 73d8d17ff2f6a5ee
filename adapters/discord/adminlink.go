package discord

import (
	"context"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/clarify-bot/clarify/dialog"
)

// /clarify admin: a sign-in link to the admin console.
const (
	cmdClarify = "clarify"
	subAdmin   = "admin"
)

// AdminLinker issues one-time sign-in links to the admin console
// (adapters/adminweb). Issuing one is local work (a signature), so the
// link can be the interaction's first response.
type AdminLinker interface {
	AdminLink(ctx context.Context, who dialog.Who) (string, error)
	LinkTTL() time.Duration
}

// clarifyCommand is /clarify with its subcommands.
func clarifyCommand(contexts *[]discordgo.InteractionContextType, installs *[]discordgo.ApplicationIntegrationType) *discordgo.ApplicationCommand {
	return &discordgo.ApplicationCommand{
		Name: cmdClarify, Type: discordgo.ChatApplicationCommand, Contexts: contexts, IntegrationTypes: installs,
		Description: "Clarify's commands",
		Options: []*discordgo.ApplicationCommandOption{{
			Type: discordgo.ApplicationCommandOptionSubCommand, Name: subAdmin,
			Description: "Admins: a one-time sign-in link to the admin console",
		}},
	}
}

// planClarify answers /clarify admin at once, privately: the link for an
// admin (decided from the interaction's member, as for every admin
// feature), a plain refusal for anyone else.
func (a *Adapter) planClarify(ctx context.Context, i *discordgo.Interaction, who dialog.Who) *discordgo.InteractionResponse {
	d := i.ApplicationCommandData()
	if option(d, subAdmin) == nil {
		return ephemeralMessage(unknownCmd)
	}
	switch {
	case a.cfg.AdminLinks == nil:
		return ephemeralMessage("The admin console is not enabled on this bot.")
	case i.GuildID == "":
		return ephemeralMessage("Use /clarify admin in a channel of your server, not in a direct message, so that I know whose knowledge to show.")
	case !who.Admin:
		return ephemeralMessage("Only admins can open the admin console (members with Manage Server, an admin role, or the bot's configured admins).")
	}
	link, err := a.cfg.AdminLinks.AdminLink(ctx, who)
	if err != nil {
		a.log.Error("cannot make an admin console link", "user", who.User, "err", err)
		return ephemeralMessage("I could not make a sign-in link just now; the details are in the bot's log.")
	}
	return ephemeralMessage(fmt.Sprintf("Your sign-in link to the admin console (works once, for %s; don't share it):\n%s", ttlWords(a.cfg.AdminLinks.LinkTTL()), link))
}

func ttlWords(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		if d == time.Minute {
			return "a minute"
		}
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return d.String()
}

// IsAdmin reports whether a Discord user is one of the configured admins.
// Members with Manage Server or an admin role are only known from an
// interaction, so for anyone else the answer is unknown (known false).
func (a *Adapter) IsAdmin(_ context.Context, _, user string) (admin, known bool) {
	if a.admins[user] {
		return true, true
	}
	return false, false
}
