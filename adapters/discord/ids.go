package discord

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clarify-bot/clarify/dialog"
	"github.com/clarify-bot/clarify/ontology"
)

// Actions carried in a component's custom_id. A custom_id holds a short
// conversation reference and the target's id, never state: the manager
// keeps the state, so a click after a restart still works.
const (
	actChoose    = "choose"  // conv, clarification, option index
	actOther     = "other"   // conv, clarification → opens the modal
	actOtherText = "othertx" // the modal: conv, clarification
	actCorrect   = "ok"      // conv, answer
	actWrong     = "wrong"   // conv, answer
	actSQL       = "sql"     // conv, answer
	actMore      = "more"    // conv, answer, the row to show from
	actChange    = "change"  // conv, answer, fact
	actDelete    = "del"     // fact
	actPromote   = "promote" // fact, "channel" | "workspace"
	actEdit      = "edit"    // fact → opens the modal
	actEditText  = "edittx"  // the modal: fact
)

// maxCustomID is Discord's limit on custom_id.
const maxCustomID = 100

// ref is what a custom_id says.
type ref struct {
	Action string
	Conv   string // conversation key (thread id, or "channel:message")
	Target string // clarification or answer id
	Option int
	FactID string
	Scope  ontology.Scope // promote: channel or workspace
}

var errBadRef = errors.New("unrecognised custom_id")

// encode is the custom_id of r: fields separated by "|", which no id contains.
func (r ref) encode() (string, error) {
	var parts []string
	switch r.Action {
	case actChoose, actMore:
		parts = []string{r.Action, r.Conv, r.Target, strconv.Itoa(r.Option)}
	case actOther, actOtherText, actCorrect, actWrong, actSQL:
		parts = []string{r.Action, r.Conv, r.Target}
	case actChange:
		parts = []string{r.Action, r.Conv, r.Target, r.FactID}
	case actDelete, actEdit, actEditText:
		parts = []string{r.Action, r.FactID}
	case actPromote:
		parts = []string{r.Action, r.FactID, string(r.Scope)}
	default:
		return "", fmt.Errorf("encode custom_id: unknown action %q", r.Action)
	}
	for _, p := range parts[1:] {
		if p == "" || strings.ContainsRune(p, '|') {
			return "", fmt.Errorf("encode custom_id %s: empty or invalid field %q", r.Action, p)
		}
	}
	id := strings.Join(parts, "|")
	if len(id) > maxCustomID {
		return "", fmt.Errorf("encode custom_id %s: %d characters, over Discord's %d", r.Action, len(id), maxCustomID)
	}
	return id, nil
}

// parseRef reads a custom_id written by encode.
func parseRef(id string) (ref, error) {
	p := strings.Split(id, "|")
	bad := func() (ref, error) { return ref{}, fmt.Errorf("%w: %q", errBadRef, id) }
	for _, f := range p[1:] {
		if f == "" {
			return bad()
		}
	}
	r := ref{Action: p[0]}
	switch {
	case (r.Action == actChoose || r.Action == actMore) && len(p) == 4:
		n, err := strconv.Atoi(p[3])
		if err != nil || n < 0 {
			return bad()
		}
		r.Conv, r.Target, r.Option = p[1], p[2], n
	case (r.Action == actOther || r.Action == actOtherText || r.Action == actCorrect || r.Action == actWrong || r.Action == actSQL) && len(p) == 3:
		r.Conv, r.Target = p[1], p[2]
	case r.Action == actChange && len(p) == 4:
		r.Conv, r.Target, r.FactID = p[1], p[2], p[3]
	case (r.Action == actDelete || r.Action == actEdit || r.Action == actEditText) && len(p) == 2:
		r.FactID = p[1]
	case r.Action == actPromote && len(p) == 3 && (ontology.Scope(p[2]) == ontology.ScopeChannel || ontology.Scope(p[2]) == ontology.ScopeWorkspace):
		r.FactID, r.Scope = p[1], ontology.Scope(p[2])
	default:
		return bad()
	}
	return r, nil
}

// dmConv is the conversation key of a DM question: the DM channel and the
// question message (DMs have no threads).
func dmConv(channelID, messageID string) string { return dialog.ThreadKey(channelID, messageID) }

// splitConv returns the channel and message of a "channel:message" key;
// ok is false for a thread key (a bare thread id).
func splitConv(conv string) (channelID, messageID string, ok bool) {
	return dialog.SplitThreadKey(conv)
}
