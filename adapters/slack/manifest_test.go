package slack

import (
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type manifest struct {
	DisplayInformation struct {
		Name            string `yaml:"name"`
		Description     string `yaml:"description"`
		LongDescription string `yaml:"long_description"`
	} `yaml:"display_information"`
	Features struct {
		AppHome struct {
			HomeTab     bool `yaml:"home_tab_enabled"`
			MessagesTab bool `yaml:"messages_tab_enabled"`
			ReadOnly    bool `yaml:"messages_tab_read_only_enabled"`
		} `yaml:"app_home"`
		BotUser struct {
			DisplayName string `yaml:"display_name"`
		} `yaml:"bot_user"`
		SlashCommands []struct {
			Command     string `yaml:"command"`
			URL         string `yaml:"url"`
			Description string `yaml:"description"`
		} `yaml:"slash_commands"`
	} `yaml:"features"`
	OAuth struct {
		Scopes struct {
			Bot []string `yaml:"bot"`
		} `yaml:"scopes"`
	} `yaml:"oauth_config"`
	Settings struct {
		Events struct {
			RequestURL string   `yaml:"request_url"`
			BotEvents  []string `yaml:"bot_events"`
		} `yaml:"event_subscriptions"`
		Interactivity struct {
			Enabled    bool   `yaml:"is_enabled"`
			RequestURL string `yaml:"request_url"`
		} `yaml:"interactivity"`
		SocketMode bool `yaml:"socket_mode_enabled"`
	} `yaml:"settings"`
}

// TestManifest checks manifest.yml against what the adapter does: the
// events it handles, the scopes its calls need (and no more), the command,
// App Home, Socket Mode, and the HTTP variant's endpoints.
func TestManifest(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../manifest.yml")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	dec := yaml.NewDecoder(strings.NewReader(string(raw)))
	dec.KnownFields(false)
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("manifest.yml: %v", err)
	}
	scopes := slices.Sorted(slices.Values(m.OAuth.Scopes.Bot))
	if want := []string{"app_mentions:read", "channels:history", "chat:write", "commands", "files:write", "groups:history", "im:history", "users:read"}; !slices.Equal(scopes, want) {
		t.Errorf("bot scopes %v, want exactly %v", scopes, want)
	}
	events := slices.Sorted(slices.Values(m.Settings.Events.BotEvents))
	if want := []string{"app_home_opened", "app_mention", "message.channels", "message.groups", "message.im"}; !slices.Equal(events, want) {
		t.Errorf("bot events %v, want %v", events, want)
	}
	if !m.Features.AppHome.HomeTab || !m.Features.AppHome.MessagesTab || m.Features.AppHome.ReadOnly {
		t.Errorf("App Home: home tab and a writable messages tab, got %+v", m.Features.AppHome)
	}
	if len(m.Features.SlashCommands) != 1 || m.Features.SlashCommands[0].Command != "/clarify" {
		t.Errorf("slash commands %+v", m.Features.SlashCommands)
	}
	if !m.Settings.Interactivity.Enabled || !m.Settings.SocketMode || m.Settings.Events.RequestURL != "" {
		t.Errorf("Socket Mode settings %+v", m.Settings)
	}
	if m.DisplayInformation.Name == "" || m.Features.BotUser.DisplayName == "" ||
		len(m.DisplayInformation.Description) > 140 || len(m.DisplayInformation.LongDescription) < 175 {
		t.Errorf("display information %+v", m.DisplayInformation)
	}

	// The commented HTTP-mode variant points at the adapter's endpoints.
	var b strings.Builder
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "# --- HTTP mode") {
			in = true
			continue
		}
		if in && (strings.HasPrefix(line, "# ") && strings.HasPrefix(strings.TrimPrefix(line, "# "), " ") || line == "# features:" || line == "# settings:") {
			b.WriteString(strings.TrimPrefix(line, "# "))
			b.WriteByte('\n')
		}
	}
	var h manifest
	if err := yaml.Unmarshal([]byte(b.String()), &h); err != nil {
		t.Fatalf("HTTP variant: %v\n%s", err, b.String())
	}
	path := func(u string) string {
		p, err := url.Parse(u)
		if err != nil || p.Scheme != "https" {
			t.Errorf("request URL %q", u)
			return ""
		}
		return p.Path
	}
	if len(h.Features.SlashCommands) != 1 || path(h.Features.SlashCommands[0].URL) != CommandsPath {
		t.Errorf("HTTP slash command %+v", h.Features.SlashCommands)
	}
	if path(h.Settings.Events.RequestURL) != EventsPath || path(h.Settings.Interactivity.RequestURL) != InteractivityPath || h.Settings.SocketMode {
		t.Errorf("HTTP settings %+v", h.Settings)
	}
	if ev := slices.Sorted(slices.Values(h.Settings.Events.BotEvents)); !slices.Equal(ev, events) {
		t.Errorf("HTTP variant events %v differ from %v", ev, events)
	}
}
