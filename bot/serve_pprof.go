package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/clarify-bot/clarify/bot/internal/config"
)

// servePprof serves Go's profiles (/debug/pprof/) on addr, a loopback
// address (checkPprofAddr), apart from the bot's own port so that they
// never reach a load balancer. It returns the address listened on and
// the function that stops it.
func servePprof(addr string, logger *slog.Logger) (string, func() error, error) {
	if err := config.CheckPprofAddr(addr); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("profiles: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Warn("profiles server stopped", "err", err)
		}
	}()
	logger.Info("serving Go profiles", "addr", "http://"+ln.Addr().String()+"/debug/pprof/")
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return srv.Shutdown(ctx)
	}
	return ln.Addr().String(), stop, nil
}
