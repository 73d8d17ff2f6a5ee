package access

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
)

// Level is an access level of a warehouse: the people it applies to
// (channels, users, roles, matched as Rules.Allows matches them), what
// it hides and keeps sensitive, and the database account its questions
// run on. The warehouse's own rules are the default level; a person
// matched by no level gets it.
//
// A level either has rules of its own (Hidden and Sensitive as written,
// a missing key meaning none) or SeesAll: nothing hidden, nothing
// sensitive. One of the two must be said, so that a forgotten key never
// opens a level silently.
type Level struct {
	Name     string   `yaml:"name"`
	Channels []string `yaml:"channels"`
	Users    []string `yaml:"users"`
	Roles    []string `yaml:"roles"`
	// DSN is the level's own read-only account (bot access grants
	// prints the SQL that creates it); same server and database as the
	// warehouse's DSN.
	DSN       string    `yaml:"dsn"`
	SeesAll   bool      `yaml:"sees_all"`
	Hidden    *[]string `yaml:"hidden"`
	Sensitive *[]string `yaml:"sensitive"`
}

// DefaultLevel names the warehouse's own rules and account among the
// levels (in bot access grants, bot doctor and logs); no level may take it.
const DefaultLevel = "default"

// levelName is what a level may be called: it names an account in
// bot access grants, a snapshot file and a health component.
var levelName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// who is the part of the level that says whom it applies to.
func (l Level) who() Rules { return Rules{Channels: l.Channels, Users: l.Users, Roles: l.Roles} }

// ForLevel is the rules a level's questions run under: who may ask the
// warehouse stays the warehouse's; what is hidden and sensitive is the
// level's.
func (r Rules) ForLevel(l Level) Rules {
	out := Rules{Channels: r.Channels, Users: r.Users, Roles: r.Roles}
	if l.SeesAll {
		return out
	}
	if l.Hidden != nil {
		out.Hidden = slices.Clone(*l.Hidden)
	}
	if l.Sensitive != nil {
		out.Sensitive = slices.Clone(*l.Sensitive)
	}
	return out
}

// Applies reports whether the level applies to a: a's channel is among
// its channels (when it lists channels), and a or one of a's roles among
// its users and roles (when it lists them).
func (l Level) Applies(a Asker) bool { return l.who().Allows(a) }

// LevelOf is the first level that applies to a, false for none (the
// default level).
func (r Rules) LevelOf(a Asker) (Level, bool) {
	for _, l := range r.Levels {
		if l.Applies(a) {
			return l, true
		}
	}
	return Level{}, false
}

// validateLevels checks the levels' form: names, whom each applies to,
// and their own rules.
func (r Rules) validateLevels() error {
	var errs []error
	seen := map[string]bool{}
	for i, l := range r.Levels {
		at := fmt.Sprintf("access.levels[%d]", i)
		switch {
		case l.Name == "":
			errs = append(errs, fmt.Errorf("%s: name is required", at))
		case l.Name == DefaultLevel:
			errs = append(errs, fmt.Errorf("%s: %q names the warehouse's own rules; call the level something else", at, DefaultLevel))
		case !levelName.MatchString(l.Name):
			errs = append(errs, fmt.Errorf("%s: name %q must be lower-case letters, digits, _ or - (at most 32)", at, l.Name))
		case seen[l.Name]:
			errs = append(errs, fmt.Errorf("%s: duplicate level %q", at, l.Name))
		default:
			at = fmt.Sprintf("access.levels %q", l.Name)
		}
		seen[l.Name] = true
		if len(l.Channels)+len(l.Users)+len(l.Roles) == 0 {
			errs = append(errs, fmt.Errorf("%s: say whom it applies to (channels, users or roles)", at))
		}
		if err := l.who().Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", at, err))
		}
		switch {
		case l.SeesAll && (l.Hidden != nil || l.Sensitive != nil):
			errs = append(errs, fmt.Errorf("%s: give either sees_all or its own hidden and sensitive, not both", at))
		case !l.SeesAll && l.Hidden == nil && l.Sensitive == nil:
			errs = append(errs, fmt.Errorf("%s: give its own hidden and sensitive (an empty list is fine) or sees_all: true", at))
		}
		own := r.ForLevel(l)
		if err := (Rules{Hidden: own.Hidden, Sensitive: own.Sensitive}).Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", at, err))
		}
	}
	return errors.Join(errs...)
}
