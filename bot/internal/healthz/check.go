package healthz

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/cli"
)

// RunCheck is `bot healthcheck [--url URL]`: a container HEALTHCHECK
// for images without curl (distroless). It exits 0 when /healthz answers
// 200 (a degraded warehouse still answers 200: restarting the bot would
// not fix it) and 1 otherwise.
func RunCheck(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("bot healthcheck", stderr,
		"usage: bot healthcheck [--url URL] [--timeout 3s]",
		"GETs the running bot's /healthz; exits 0 when it answers 200, else 1.",
	)
	url := fs.String("url", "http://127.0.0.1:8080/healthz", "the bot's health endpoint")
	timeout := fs.Duration("timeout", 3*time.Second, "time limit")
	if code, ok := cli.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "bot healthcheck: %v\n", err)
		return cli.ExitUsage
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "bot healthcheck: %v\n", err)
		return cli.ExitFailure
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "bot healthcheck: %s: %s\n", resp.Status, body)
		return cli.ExitFailure
	}
	stdout.Write(body)
	return cli.ExitOK
}
