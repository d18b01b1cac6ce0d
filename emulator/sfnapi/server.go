package sfnapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// ErrNotLoopback is returned by Serve for an address that is not on the loopback interface.
var ErrNotLoopback = errors.New("sfnapi: the API is only served on a loopback address")

// DefaultShutdownTimeout is how long Close lets requests in flight finish.
const DefaultShutdownTimeout = 5 * time.Second

// Server serves the Step Functions API over a Backend on a loopback address.
type Server struct {
	http     *http.Server
	url      string
	served   chan struct{} // closed when the serving goroutine returns
	stopOnce sync.Once
	stopErr  error
}

// Serve starts serving the API over backend on addr, a loopback address such as
// "127.0.0.1:0" (port 0 picks a free port; an empty host means 127.0.0.1). Requests get
// contexts derived from ctx, and the server shuts down when ctx is done. Point an AWS SDK
// client at URL(), e.g. sfn.NewFromConfig(cfg, func(o *sfn.Options) { o.BaseEndpoint =
// aws.String(srv.URL()) }), with any static credentials. Each of wrap, in order, wraps the
// handler of every request (the emulator's clock counts requests as work in flight this way).
func Serve(ctx context.Context, backend Backend, addr string, wrap ...func(http.Handler) http.Handler) (*Server, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("sfnapi: address %q: %w", addr, err)
	}
	switch host {
	case "", "localhost":
		host = "127.0.0.1"
	default:
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("%w: %q", ErrNotLoopback, addr)
		}
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("sfnapi: listen on %s: %w", addr, err)
	}
	handler := NewHandler(backend)
	for _, w := range wrap {
		handler = w(handler)
	}
	s := &Server{
		http: &http.Server{
			Handler:           handler,
			BaseContext:       func(net.Listener) context.Context { return ctx },
			ReadHeaderTimeout: 10 * time.Second,
		},
		url:    "http://" + ln.Addr().String(),
		served: make(chan struct{}),
	}
	go func() {
		defer close(s.served)
		_ = s.http.Serve(ln) // always ErrServerClosed or a listener error after Shutdown
	}()
	go func() {
		select {
		case <-ctx.Done():
			shutdownCtx, cancel := context.WithTimeout(context.Background(), DefaultShutdownTimeout)
			defer cancel()
			_ = s.Shutdown(shutdownCtx) // the result is kept for Close and Shutdown to return
		case <-s.served:
		}
	}()
	return s, nil
}

// URL returns the server's base URL, e.g. "http://127.0.0.1:41234".
func (s *Server) URL() string { return s.url }

// Shutdown stops the server gracefully: it stops accepting connections and waits for requests
// in flight to finish, or for ctx to be done, after which it closes the remaining connections.
// Later calls return the first call's result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() {
		if err := s.http.Shutdown(ctx); err != nil {
			s.stopErr = errors.Join(fmt.Errorf("sfnapi: shutdown: %w", err), s.http.Close())
		}
		<-s.served
	})
	return s.stopErr
}

// Close shuts the server down, giving requests in flight DefaultShutdownTimeout to finish.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), DefaultShutdownTimeout)
	defer cancel()
	return s.Shutdown(ctx)
}
