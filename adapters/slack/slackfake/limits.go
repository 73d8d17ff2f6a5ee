package slackfake

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Block Kit limits as documented by Slack. Lengths are checked in UTF-16
// code units and in code points, whichever is larger (UTF-16), so a fake
// pass is never a real failure for length reasons.
const (
	MaxMessageBlocks = 50
	MaxViewBlocks    = 100
)

func (s *Server) checkLimits(c Call) string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	switch c.Method {
	case "chat.postMessage", "chat.postEphemeral", "chat.update", "response_url":
		raw := c.Form.Get("blocks")
		if raw == "" && c.JSON != nil {
			if b, ok := c.JSON["blocks"]; ok && b != nil {
				out, _ := json.Marshal(b)
				raw = string(out)
			}
		}
		if n := units(c.Get("text")); n > 40000 {
			add("text is %d long (max 40000)", n)
		}
		if raw != "" {
			var blocks []any
			if err := json.Unmarshal([]byte(raw), &blocks); err != nil {
				add("blocks are not a JSON array: %v", err)
			} else {
				problems = append(problems, CheckBlocks(blocks, MaxMessageBlocks)...)
			}
		}
	case "views.open", "views.publish", "views.update", "views.push":
		problems = append(problems, CheckView(c.View())...)
	}
	if len(problems) == 0 {
		return ""
	}
	s.mu.Lock()
	for _, p := range problems {
		s.violations = append(s.violations, c.Method+": "+p)
	}
	s.mu.Unlock()
	return strings.Join(problems, "; ")
}

func units(s string) int {
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

// CheckView checks a modal or Home tab view.
func CheckView(v map[string]any) []string {
	var p []string
	if v == nil {
		return []string{"no view"}
	}
	typ, _ := v["type"].(string)
	if typ != "modal" && typ != "home" {
		p = append(p, fmt.Sprintf("view type %q", typ))
	}
	if typ == "modal" {
		for _, k := range []string{"title", "submit", "close"} {
			if t, ok := v[k].(map[string]any); ok {
				p = append(p, checkText(t, "view."+k, 24, true)...)
			} else if k == "title" {
				p = append(p, "modal without a title")
			}
		}
	}
	if m, _ := v["private_metadata"].(string); units(m) > 3000 {
		p = append(p, fmt.Sprintf("private_metadata is %d long (max 3000)", units(m)))
	}
	if id, _ := v["callback_id"].(string); units(id) > 255 {
		p = append(p, "callback_id too long")
	}
	blocks, _ := v["blocks"].([]any)
	return append(p, CheckBlocks(blocks, MaxViewBlocks)...)
}

// CheckBlocks checks a list of blocks against Block Kit's limits: the
// number of blocks, text lengths, element counts, unique ids.
func CheckBlocks(blocks []any, maxBlocks int) []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if len(blocks) > maxBlocks {
		add("%d blocks (max %d)", len(blocks), maxBlocks)
	}
	blockIDs := map[string]bool{}
	actionIDs := map[string]bool{}
	for i, raw := range blocks {
		b, ok := raw.(map[string]any)
		if !ok {
			add("block %d is not an object", i)
			continue
		}
		where := fmt.Sprintf("block %d (%v)", i, b["type"])
		if id, _ := b["block_id"].(string); id != "" {
			if units(id) > 255 {
				add("%s: block_id too long", where)
			}
			if blockIDs[id] {
				add("%s: duplicate block_id %q", where, id)
			}
			blockIDs[id] = true
		}
		elem := func(e map[string]any, w string) {
			p = append(p, checkElement(e, w, actionIDs)...)
		}
		switch b["type"] {
		case "section":
			t, hasText := b["text"].(map[string]any)
			fields, _ := b["fields"].([]any)
			if !hasText && len(fields) == 0 {
				add("%s: section without text or fields", where)
			}
			if hasText {
				p = append(p, checkText(t, where+".text", 3000, false)...)
			}
			if len(fields) > 10 {
				add("%s: %d fields (max 10)", where, len(fields))
			}
			for j, f := range fields {
				if fm, ok := f.(map[string]any); ok {
					p = append(p, checkText(fm, fmt.Sprintf("%s.fields[%d]", where, j), 2000, false)...)
				}
			}
			if acc, ok := b["accessory"].(map[string]any); ok {
				elem(acc, where+".accessory")
			}
		case "header":
			t, _ := b["text"].(map[string]any)
			p = append(p, checkText(t, where+".text", 150, true)...)
		case "context":
			els, _ := b["elements"].([]any)
			if len(els) == 0 || len(els) > 10 {
				add("%s: %d elements (1 to 10)", where, len(els))
			}
			for j, e := range els {
				if em, ok := e.(map[string]any); ok && (em["type"] == "mrkdwn" || em["type"] == "plain_text") {
					p = append(p, checkText(em, fmt.Sprintf("%s.elements[%d]", where, j), 3000, false)...)
				}
			}
		case "actions":
			els, _ := b["elements"].([]any)
			if len(els) == 0 || len(els) > 25 {
				add("%s: %d elements (1 to 25)", where, len(els))
			}
			for j, e := range els {
				if em, ok := e.(map[string]any); ok {
					elem(em, fmt.Sprintf("%s.elements[%d]", where, j))
				}
			}
		case "input":
			l, _ := b["label"].(map[string]any)
			p = append(p, checkText(l, where+".label", 2000, true)...)
			if e, ok := b["element"].(map[string]any); ok {
				elem(e, where+".element")
			} else {
				add("%s: input without element", where)
			}
		case "divider", "image", "rich_text", "file", "video", "table", "markdown":
		default:
			add("%s: unknown block type", where)
		}
	}
	return p
}

func checkText(t map[string]any, where string, max int, plainOnly bool) []string {
	if t == nil {
		return []string{where + ": missing text object"}
	}
	var p []string
	typ, _ := t["type"].(string)
	if typ != "plain_text" && typ != "mrkdwn" || plainOnly && typ != "plain_text" {
		p = append(p, fmt.Sprintf("%s: text type %q", where, typ))
	}
	if _, ok := t["emoji"]; ok && typ == "mrkdwn" {
		p = append(p, where+": emoji set on mrkdwn")
	}
	s, _ := t["text"].(string)
	if s == "" {
		p = append(p, where+": empty text")
	}
	if n := units(s); n > max {
		p = append(p, fmt.Sprintf("%s: text is %d long (max %d)", where, n, max))
	}
	return p
}

func checkElement(e map[string]any, where string, actionIDs map[string]bool) []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if id, _ := e["action_id"].(string); id != "" {
		if units(id) > 255 {
			add("%s: action_id too long", where)
		}
		if actionIDs[id] {
			add("%s: duplicate action_id %q", where, id)
		}
		actionIDs[id] = true
	}
	if c, ok := e["confirm"].(map[string]any); ok {
		for k, max := range map[string]int{"title": 100, "text": 300, "confirm": 30, "deny": 30} {
			if t, ok := c[k].(map[string]any); ok {
				p = append(p, checkText(t, where+".confirm."+k, max, k != "text")...)
			} else if k != "deny" {
				add("%s.confirm: missing %s", where, k)
			}
		}
	}
	if ph, ok := e["placeholder"].(map[string]any); ok {
		p = append(p, checkText(ph, where+".placeholder", 150, true)...)
	}
	switch e["type"] {
	case "button":
		t, _ := e["text"].(map[string]any)
		p = append(p, checkText(t, where+".text", 75, true)...)
		if v, _ := e["value"].(string); units(v) > 2000 {
			add("%s: value is %d long (max 2000)", where, units(v))
		}
		if u, _ := e["url"].(string); units(u) > 3000 {
			add("%s: url too long", where)
		}
		if st, ok := e["style"].(string); ok && st != "primary" && st != "danger" {
			add("%s: style %q", where, st)
		}
	case "overflow", "static_select":
		opts, _ := e["options"].([]any)
		lo, hi := 2, 5
		if e["type"] == "static_select" {
			lo, hi = 1, 100
		}
		if len(opts) < lo || len(opts) > hi {
			add("%s: %d options (%d to %d)", where, len(opts), lo, hi)
		}
		for j, o := range opts {
			om, _ := o.(map[string]any)
			t, _ := om["text"].(map[string]any)
			p = append(p, checkText(t, fmt.Sprintf("%s.options[%d].text", where, j), 75, e["type"] == "overflow")...)
			if v, _ := om["value"].(string); units(v) > 150 {
				add("%s.options[%d]: value is %d long (max 150)", where, j, units(v))
			}
		}
	case "plain_text_input":
		if v, _ := e["initial_value"].(string); units(v) > 3000 {
			add("%s: initial_value too long", where)
		}
		if n, ok := e["max_length"].(float64); ok && (n < 1 || n > 3000) {
			add("%s: max_length %v", where, n)
		}
	case "conversations_select", "channels_select", "users_select", "datepicker", "checkboxes", "radio_buttons", "image":
	default:
		add("%s: unknown element type %v", where, e["type"])
	}
	return p
}
