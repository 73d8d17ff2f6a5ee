package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/clarify-bot/clarify/internal/kv"
)

// nsRouter is the server namespace of the channels' warehouse choices.
const nsRouter = "router"

var bucketChosen = []byte("chosen")

// channelChoices keeps the router's per-channel warehouse choices in the
// server store. A nil *channelChoices (files: one process) keeps nothing.
type channelChoices struct {
	db  kv.DB
	log *slog.Logger
}

func (s *stores) channelChoices(logger *slog.Logger) *channelChoices {
	if s == nil || s.server == nil {
		return nil
	}
	return &channelChoices{db: s.server.Namespace(nsRouter), log: logger}
}

// choiceWait bounds a look-up made on every new question.
const choiceWait = 2 * time.Second

func (c *channelChoices) set(channel, warehouse string) error {
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
func (c *channelChoices) get(channel string) (string, bool) {
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
