package router

import (
	"context"
	"log/slog"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

var bucketChosen = []byte("chosen")

// Choices keeps the router's per-channel warehouse choices in the server
// store. A nil *Choices (files: one process) keeps nothing.
type Choices struct {
	db  kv.DB
	log *slog.Logger
}

// NewChoices keeps the choices in db (the server store's namespace).
func NewChoices(db kv.DB, logger *slog.Logger) *Choices {
	return &Choices{db: db, log: logger}
}

// choiceWait bounds a look-up made on every new question.
const choiceWait = 2 * time.Second

func (c *Choices) set(channel, warehouse string) error {
	if c == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), choiceWait)
	defer cancel()
	return c.db.Update(ctx, func(tx kv.Tx) error {
		return tx.Bucket(bucketChosen).Put([]byte(channel), []byte(warehouse))
	})
}

// get returns the channel's choice; a failed read falls back to the
// process's own memory (logged), which routes as before.
func (c *Choices) get(channel string) (string, bool) {
	if c == nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.Background(), choiceWait)
	defer cancel()
	var name string
	err := c.db.View(ctx, func(tx kv.Tx) error {
		name = string(tx.Bucket(bucketChosen).Get([]byte(channel)))
		return nil
	})
	if err != nil {
		c.log.Warn("cannot read the channel's warehouse choice", "channel", channel, "err", err)
		return "", false
	}
	return name, name != ""
}
