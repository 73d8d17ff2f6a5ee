package router

import (
	"context"
	"log/slog"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

var bucketChosen = []byte("chosen")

// Choices keeps the router's per-channel warehouse choices in a store
// (the conversations' file or server namespace), so that they survive
// restarts and every replica sharing a server routes a channel alike. A
// nil *Choices keeps them in the router's memory only.
type Choices struct {
	db  kv.DB
	log *slog.Logger
}

// NewChoices keeps the choices in db.
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

// MoveChoices moves the choices kept in from (where an earlier release
// kept them) to to; a channel that chose again since keeps its newer
// choice. Moving twice does nothing.
func MoveChoices(ctx context.Context, from, to kv.DB) error {
	moved := map[string]string{}
	err := from.View(ctx, func(tx kv.Tx) error {
		return tx.Bucket(bucketChosen).ForEach(func(k, v []byte) error {
			moved[string(k)] = string(v)
			return nil
		})
	})
	if err != nil || len(moved) == 0 {
		return err
	}
	err = to.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucketChosen)
		for k, v := range moved {
			if b.Get([]byte(k)) == nil {
				if err := b.Put([]byte(k), []byte(v)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return from.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucketChosen)
		for k := range moved {
			if err := b.Delete([]byte(k)); err != nil {
				return err
			}
		}
		return nil
	})
}
