package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/clarify-bot/clarify/dialog"
)

// SessionStore keeps a console session between runs, so that a question
// asked before a restart is still the one a number answers after it, as
// in chat, where the buttons stay on the message.
type SessionStore interface {
	// Load returns what Save stored last, nil when nothing was.
	Load() ([]byte, error)
	Save(b []byte) error
}

// savedSession is what survives a restart: the conversation and its open
// clarification (the dialog's stored state holds the rest).
type savedSession struct {
	Version   int                   `json:"v"`
	Session   string                `json:"session"`
	Seq       int                   `json:"seq"`
	Conv      string                `json:"conv"`
	Pending   *dialog.Clarification `json:"pending,omitempty"`
	OtherNext bool                  `json:"other_next,omitempty"`
}

const sessionVersion = 1

// restore picks up an open clarification from the last run, if any; it
// reports whether it did.
func (c *Console) restore() bool {
	if c.opts.Store == nil {
		return false
	}
	b, err := c.opts.Store.Load()
	if err != nil {
		c.log.Warn("cannot read the saved console session; starting afresh", "err", err)
		return false
	}
	if b == nil {
		return false
	}
	var s savedSession
	if err := json.Unmarshal(b, &s); err != nil || s.Version != sessionVersion {
		c.log.Warn("ignoring an unreadable saved console session", "err", err)
		return false
	}
	if s.Pending == nil || s.Conv == "" {
		return false
	}
	c.opts.Session, c.seq, c.conv, c.pending, c.otherNext = s.Session, s.Seq, s.Conv, s.Pending, s.OtherNext
	return true
}

// persist saves the session after a line; a failure is only logged.
func (c *Console) persist() {
	if c.opts.Store == nil {
		return
	}
	b, err := json.Marshal(savedSession{Version: sessionVersion, Session: c.opts.Session, Seq: c.seq, Conv: c.conv, Pending: c.pending, OtherNext: c.otherNext})
	if err == nil {
		err = c.opts.Store.Save(b)
	}
	if err != nil {
		c.log.Warn("cannot save the console session; an open question will not survive a restart", "err", err)
	}
}

// FileSession keeps the session in a file (written atomically).
type FileSession string

// Load implements SessionStore.
func (f FileSession) Load() ([]byte, error) {
	b, err := os.ReadFile(string(f))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// Save implements SessionStore.
func (f FileSession) Save(b []byte) error {
	path := string(f)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save console session: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("save console session: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save console session: %w", err)
	}
	return nil
}
