package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/clarify-bot/clarify/internal/kv/mysqlkv"
	"github.com/clarify-bot/clarify/ontology"
	"github.com/clarify-bot/clarify/ontology/ontologyfile"
)

// Namespaces of the stores on a server (the bbolt files' names there).
const (
	NsOntology      = "ontology"
	NsUsage         = "usage"
	NsConversations = "conversations"
)

// ConfigStore reads the data directory and the store's DSN from the bot's
// configuration file at path.
type ConfigStore func(path string) (dataDir, dsn string, err error)

// StoreSelection is how the admin commands find the store: --store DSN,
// else the configuration's store.dsn (--config FILE), else the files in
// --data (or the configuration's data_dir).
type StoreSelection struct {
	// Config reads --config's file.
	Config            ConfigStore
	data, dsn, config string
	dataSet           bool
}

// Flags adds --data, --store and --config to fs.
func (s *StoreSelection) Flags(fs *flag.FlagSet) {
	fs.Func("data", "data directory of the bbolt files (default "+DefaultDataDir()+")", func(v string) error {
		s.data, s.dataSet = v, true
		return nil
	})
	fs.StringVar(&s.dsn, "store", s.dsn, "the store's database on a MySQL-protocol server (user:pass@tcp(host:3306)/clarify)")
	fs.StringVar(&s.config, "config", s.config, "read data_dir and store.dsn from this configuration file")
}

// Resolve returns the directory and the DSN (empty for files).
func (s *StoreSelection) Resolve() (dir, dsn string, err error) {
	dir, dsn = s.data, s.dsn
	if dir == "" {
		dir = DefaultDataDir()
	}
	if s.config != "" {
		if s.Config == nil {
			return "", "", errors.New("--config is not available here")
		}
		cdir, cdsn, err := s.Config(s.config)
		if err != nil {
			return "", "", err
		}
		if dsn == "" {
			dsn = cdsn
		}
		if !s.dataSet {
			dir = cdir
		}
	}
	if err := ValidateStoreDSN(dsn); err != nil {
		return "", "", err
	}
	return dir, dsn, nil
}

// ValidateStoreDSN checks a store DSN (empty: files).
func ValidateStoreDSN(dsn string) error {
	if dsn == "" {
		return nil
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("store: invalid dsn: %w", err)
	}
	if cfg.DBName == "" {
		return errors.New("store: the dsn names no database (…/clarify)")
	}
	return nil
}

// OpenOntology opens the ontology for an admin command (cmd names it in
// messages): on the store's server, which a running bot shares, or from
// the data directory's file, which a running bot locks (busy says what to
// do then). Without create, a missing file is an error: it means a wrong
// --data, which an empty new file would hide.
func OpenOntology(sel *StoreSelection, wait time.Duration, create bool, cmd, busy string, stderr io.Writer) (*ontology.Store, int) {
	dir, dsn, err := sel.Resolve()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return nil, ExitUsage
	}
	if dsn != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		srv, err := mysqlkv.Open(ctx, dsn, mysqlkv.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return nil, ExitFailure
		}
		s, err := ontology.New(ctx, srv.OwnNamespace(NsOntology), srv.Name(), ontology.Options{})
		if err != nil {
			srv.Close()
			fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
			return nil, ExitFailure
		}
		return s, ExitOK
	}
	path := filepath.Join(dir, OntologyFile)
	if !create {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(stderr, "%s: no ontology at %s: nothing was learned yet, or --data names another directory\n", cmd, path)
			return nil, ExitFailure
		}
	}
	s, err := ontologyfile.Open(path, ontology.Options{Timeout: wait})
	if err != nil {
		if errors.Is(err, ontology.ErrInUse) {
			fmt.Fprintf(stderr, "%s: %s is locked, probably by a running bot: %s\n", cmd, path, busy)
			return nil, ExitFailure
		}
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return nil, ExitFailure
	}
	return s, ExitOK
}

// ConfigFile is --config's value (empty when not given).
func (s *StoreSelection) ConfigFile() string { return s.config }

// IsStoreDSN tells a server DSN (user@tcp(host:3306)/db) from a directory.
func IsStoreDSN(s string) bool { return strings.ContainsAny(s, "@(") }

// DescribeStore names a store location for messages.
func DescribeStore(loc string) string {
	if IsStoreDSN(loc) {
		return "the server database " + loc[strings.LastIndex(loc, "/")+1:]
	}
	return loc
}
