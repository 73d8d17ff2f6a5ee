package cli

import (
	"os"
	"path/filepath"
)

// DefaultDataDir is where the bot keeps its bbolt files and snapshots when
// no --data is given: $XDG_DATA_HOME/clarify, else ~/.local/share/clarify,
// else ./clarify-data.
func DefaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "clarify")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "clarify")
	}
	return "clarify-data"
}

// File names inside the data directory.
const (
	OntologyFile      = "ontology.db"
	ConversationsFile = "conversations.db"
)
