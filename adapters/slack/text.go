package slack

import (
	"regexp"
	"strings"
	"unicode"
)

// Block Kit limits (https://docs.slack.dev/reference/block-kit), measured
// here in UTF-16 code units, which is never less than Slack's count of
// characters: an emoji outside the Basic Multilingual Plane counts 2.
const (
	maxMessageBlocks = 50
	maxViewBlocks    = 100
	maxSectionText   = 3000
	maxContextText   = 2000 // per context element (Slack allows 3000; kept lower so ten fit)
	maxContextElems  = 10
	maxHeaderText    = 150
	maxButtonText    = 75
	maxOptionText    = 75
	maxOptionValue   = 150
	maxButtonValue   = 2000
	maxActionID      = 255
	maxBlockID       = 255
	maxModalTitle    = 24
	maxModalButton   = 24
	maxMetadata      = 3000
	maxInputValue    = 3000
	maxPlaceholder   = 150
	maxConfirmTitle  = 100
	maxConfirmText   = 300
	maxConfirmButton = 30
	// maxFallbackText bounds the plain "text" of a message (notifications,
	// screen readers); Slack cuts at 40,000 but about 4,000 reads well.
	maxFallbackText = 3900
)

// utf16Len counts UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// clip shortens s to at most n UTF-16 units, ending in "…" when cut, and
// never in the middle of a character or of a combining sequence (a base
// letter with accents, an emoji with a skin tone or joined by ZWJ, a flag).
func clip(s string, n int) string {
	if utf16Len(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	rs := []rune(s)
	budget := n - 1 // room for "…"
	cut, used := 0, 0
	for cut < len(rs) {
		w := 1
		if rs[cut] >= 0x10000 {
			w = 2
		}
		if used+w > budget {
			break
		}
		used += w
		cut++
	}
	for cut > 0 && cut < len(rs) && (extendsPrevious(rs[cut]) || rs[cut-1] == zwj) {
		cut--
	}
	// Regional indicators pair up into flags: do not keep half a flag.
	ri := 0
	for i := cut - 1; i >= 0 && isRegionalIndicator(rs[i]); i-- {
		ri++
	}
	if ri%2 == 1 && cut < len(rs) && isRegionalIndicator(rs[cut]) {
		cut--
	}
	return strings.TrimRightFunc(string(rs[:cut]), unicode.IsSpace) + "…"
}

const zwj = '\u200d'

func extendsPrevious(r rune) bool {
	return r == zwj ||
		unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || unicode.Is(unicode.Mc, r) ||
		r >= 0xFE00 && r <= 0xFE0F || // variation selectors
		r >= 0x1F3FB && r <= 0x1F3FF || // skin tones
		r >= 0xE0020 && r <= 0xE007F // tag characters (subdivision flags)
}

func isRegionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// esc escapes the three characters Slack's mrkdwn reserves, so text from
// people or the warehouse can neither mention (<!here>) nor link.
func esc(s string) string {
	if !strings.ContainsAny(s, "&<>") {
		return s
	}
	return mrkdwnEscaper.Replace(s)
}

var mrkdwnEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// escClip escapes s for mrkdwn and clips it so that the escaped text has at
// most n UTF-16 units.
func escClip(s string, n int) string {
	limit := n
	for {
		e := esc(clip(s, limit))
		over := utf16Len(e) - n
		if over <= 0 {
			return e
		}
		limit -= over
	}
}

// oneLine collapses whitespace, for labels and list items.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var (
	reMention = regexp.MustCompile(`<@([UW][A-Z0-9]+)(?:\|([^>]*))?>`)
	reChannel = regexp.MustCompile(`<#([CDG][A-Z0-9]+)(?:\|([^>]*))?>`)
	reSpecial = regexp.MustCompile(`<!([a-z]+)(?:\^[^|>]*)?(?:\|([^>]*))?>`)
	reLink    = regexp.MustCompile(`<((?:https?|mailto|tel):[^|>]+)(?:\|([^>]*))?>`)
)

// plainText turns a Slack message text into what the person typed: the
// bot's own mention removed, other mentions, channels and links as their
// visible labels, entities unescaped.
func plainText(s, botUserID string) string {
	s = reMention.ReplaceAllStringFunc(s, func(m string) string {
		sub := reMention.FindStringSubmatch(m)
		if sub[1] == botUserID {
			return " "
		}
		if sub[2] != "" {
			return "@" + sub[2]
		}
		return "@" + sub[1]
	})
	s = reChannel.ReplaceAllStringFunc(s, func(m string) string {
		sub := reChannel.FindStringSubmatch(m)
		if sub[2] != "" {
			return "#" + sub[2]
		}
		return "#" + sub[1]
	})
	s = reSpecial.ReplaceAllStringFunc(s, func(m string) string {
		sub := reSpecial.FindStringSubmatch(m)
		if sub[2] != "" {
			return sub[2]
		}
		return "@" + sub[1]
	})
	s = reLink.ReplaceAllStringFunc(s, func(m string) string {
		sub := reLink.FindStringSubmatch(m)
		if sub[2] != "" {
			return sub[2]
		}
		return strings.TrimPrefix(sub[1], "mailto:")
	})
	s = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
	return strings.TrimSpace(s)
}

// userArg reads a user named in a slash command: "<@U123|ana>", "@U123",
// "U123", "*" (everyone) or "me".
func userArg(s string) string {
	s = strings.TrimSpace(s)
	if m := reMention.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	s = strings.TrimPrefix(s, "@")
	if strings.EqualFold(s, "me") {
		return ""
	}
	return s
}
