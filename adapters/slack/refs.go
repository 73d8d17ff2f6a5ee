package slack

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog"
)

// The adapter keeps no conversation state: every button value, overflow
// option and modal's private_metadata carries a ref naming the
// conversation and what the click is about, so a click still works after a
// restart (the dialog manager persists the rest).
type ref struct {
	Channel string `json:"ch,omitempty"` // channel of the conversation
	Thread  string `json:"th,omitempty"` // thread ts: the conversation is Channel:Thread
	ID      string `json:"id,omitempty"` // clarification or answer id
	Option  int    `json:"o,omitempty"`  // option index of a choice
	Fact    string `json:"f,omitempty"`  // fact id
	Do      string `json:"do,omitempty"` // what an overflow option does
	// In modal metadata: where the modal came from.
	MessageTS   string `json:"ts,omitempty"` // the clarification message to update
	Home        bool   `json:"home,omitempty"`
	ResponseURL string `json:"ru,omitempty"`
}

func (r ref) encode() string {
	b, err := json.Marshal(r)
	if err != nil {
		// A struct of strings, ints and bools always encodes.
		panic(fmt.Sprintf("encode ref: %v", err))
	}
	return string(b)
}

func decodeRef(s string) (ref, error) {
	var r ref
	if s == "" {
		return r, errors.New("empty value")
	}
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, fmt.Errorf("decode button value: %w", err)
	}
	return r, nil
}

// conversation is the dialog's key for the thread.
func (r ref) conversation() string { return conversationKey(r.Channel, r.Thread) }

func conversationKey(channel, thread string) string {
	if channel == "" || thread == "" {
		return ""
	}
	return dialog.ThreadKey(channel, thread)
}

// Action ids. Those that can repeat in one message take a ".N" suffix.
const (
	actChoose   = "clarify.choose"
	actOther    = "clarify.other"
	actSQL      = "clarify.sql"
	actCorrect  = "clarify.correct"
	actWrong    = "clarify.wrong"
	actChange   = "clarify.change"
	actMore     = "clarify.more"
	actDelete   = "clarify.fact.delete"
	actFactMenu = "clarify.fact.menu"
)

// Overflow menu choices on a fact (ref.Do).
const (
	doDelete           = "delete"
	doEdit             = "edit"
	doPromoteChannel   = "promote-channel"
	doPromoteWorkspace = "promote-workspace"
)

// Modal callback ids and their input block / action ids.
const (
	cbOther   = "clarify.other"
	cbEdit    = "clarify.edit"
	cbPromote = "clarify.promote"

	inputBlock   = "input"
	inputAction  = "value"
	channelBlock = "channel"
	channelInput = "channel"
)

func indexed(action string, i int) string { return action + "." + strconv.Itoa(i) }

// actionName strips the ".N" suffix of an action id.
func actionName(id string) string {
	if i := strings.LastIndexByte(id, '.'); i > 0 {
		if _, err := strconv.Atoi(id[i+1:]); err == nil {
			return id[:i]
		}
	}
	return id
}
