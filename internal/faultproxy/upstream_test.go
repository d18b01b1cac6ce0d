package faultproxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// post sends body to srv through u and returns the reply's body.
func post(t *testing.T, ctx context.Context, u *upstream, srv *httptest.Server, body string) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := u.Do(req)
	if err != nil {
		return "", err
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(got), nil
}

func TestUpstreamKeepsConnectionsAliveAndResendsOnAClosedOne(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write([]byte(strings.ToUpper(string(b))))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	u := newUpstream(srv.Listener.Addr().String())
	defer u.close()

	for _, body := range []string{"one", "two", "three"} {
		if got, err := post(t, t.Context(), u, srv, body); err != nil || got != strings.ToUpper(body) {
			t.Fatalf("Do(%q) = %q, %v; want %q", body, got, err, strings.ToUpper(body))
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for three requests in a row, want 1 kept alive", n)
	}
	srv.CloseClientConnections() // the server drops the idle connection
	if got, err := post(t, t.Context(), u, srv, "four"); err != nil || got != "FOUR" {
		t.Fatalf("Do after the server closed the connection = %q, %v; want FOUR on a new one", got, err)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

func TestUpstreamRequestEndsWithItsContext(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	u := newUpstream(srv.Listener.Addr().String())
	defer u.close()

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := post(t, ctx, u, srv, "stuck"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Do of a request whose context ends = %v, want context.DeadlineExceeded", err)
	}
	u.close()
	if _, err := post(t, t.Context(), u, srv, "late"); !errors.Is(err, errUpstreamClosed) {
		t.Errorf("Do after close = %v, want errUpstreamClosed", err)
	}
}
