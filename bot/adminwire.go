package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/admincmd"
	"github.com/clarify-bot/clarify/bot/internal/adminweb"
	"github.com/clarify-bot/clarify/bot/internal/slot"
	"github.com/clarify-bot/clarify/ontology"
)

func pruneQuestions(ctx context.Context, s *ontology.Store, retention time.Duration, tick <-chan time.Time, now func() time.Time, logger *slog.Logger) {
	admincmd.PruneQuestions(ctx, s, retention, tick, now, logger)
}

func runAudit(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return admincmd.RunAudit(ctx, args, stdin, stdout, stderr, configStore)
}

func runPrefs(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return admincmd.RunPrefs(ctx, args, stdin, stdout, stderr, configStore)
}

func runUsage(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return admincmd.RunUsage(ctx, args, stdin, stdout, stderr, configStore)
}

func runStore(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return admincmd.RunStore(ctx, args, stdin, stdout, stderr)
}

// runAdminLink is `bot admin-link` (bot/internal/adminweb).
func runAdminLink(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return adminweb.RunLink(ctx, args, stdin, stdout, stderr, adminweb.LinkDeps{Store: configStore, Config: adminConfig})
}

// adminConfig is the admin section and HTTP address of the configuration
// at path; their defaults without one.
func adminConfig(path string) (AdminConfig, string, error) {
	cfg := Config{}
	cfg.ApplyDefaults()
	if path != "" {
		var err error
		if cfg, err = LoadConfig(path, os.Getenv); err != nil {
			return AdminConfig{}, "", err
		}
	}
	return cfg.Admin, cfg.HTTP.Addr, nil
}

// adminWarehouses are bot serve's warehouses as the console's previews
// use them.
func adminWarehouses(slots []*slot.Slot) []adminweb.Warehouse {
	out := make([]adminweb.Warehouse, 0, len(slots))
	for _, sl := range slots {
		out = append(out, adminweb.Warehouse{Name: sl.Name(), Current: func() *adminweb.Stack {
			if st := sl.Current(); st != nil {
				return st.Preview
			}
			return nil
		}})
	}
	return out
}
