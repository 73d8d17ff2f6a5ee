package adminweb

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clarify-bot/clarify/internal/kv"
)

// The signing key of sign-in links, when the configuration gives none: in
// the server store (every replica and bot admin-link read the same one),
// or in a file of the data directory (one process; bot admin-link reads
// the file while the bot runs, which a bbolt file would not allow).
var (
	bucketKeys = []byte("admin_keys")
	keyLink    = []byte("link")
)

// KeyIn returns the link-signing key kept in db, creating it once.
// Replicas starting together agree: the first transaction's key wins.
func KeyIn(ctx context.Context, db kv.DB) ([]byte, error) {
	var key []byte
	err := db.Update(ctx, func(tx kv.Tx) error {
		b := tx.Bucket(bucketKeys)
		if v := b.Get(keyLink); len(v) >= MinKeyLen {
			key = bytes.Clone(v)
			return nil
		}
		key = make([]byte, MinKeyLen)
		if _, err := rand.Read(key); err != nil {
			return err
		}
		return b.Put(keyLink, key)
	})
	if err != nil {
		return nil, fmt.Errorf("admin console signing key: %w", err)
	}
	return key, nil
}

// KeyFile returns the link-signing key kept (hex) in the file at path,
// creating it (mode 0600) once.
func KeyFile(path string) ([]byte, error) {
	if key, err := readKeyFile(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("admin console signing key: %w", err)
	}
	key := make([]byte, MinKeyLen)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("admin console signing key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process made it first: use theirs.
		return readKeyFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("admin console signing key: %w", err)
	}
	_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
	if err := errors.Join(werr, f.Close()); err != nil {
		return nil, fmt.Errorf("admin console signing key %s: %w", path, err)
	}
	return key, nil
}

func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(string(bytes.TrimSpace(b)))
	if err != nil || len(key) < MinKeyLen {
		return nil, fmt.Errorf("admin console signing key %s: not %d hex-encoded bytes; delete it to make a new one", path, MinKeyLen)
	}
	return key, nil
}
