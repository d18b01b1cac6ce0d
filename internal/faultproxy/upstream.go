package faultproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// upstream is the proxy's HTTP/1.1 client of the target: keep-alive connections, each request
// written and its reply read on the caller's goroutine (net/http's Request.Write and
// ReadResponse do the protocol). A run sends the target one request at a time, each waited for:
// http.Transport's reader and writer goroutines per connection would add two hand-offs
// between goroutines to every request, on the path that bounds a run's wall time.
type upstream struct {
	addr   string // the target's host:port
	dialer net.Dialer
	mu     sync.Mutex
	idle   []*upstreamConn // most recently used last
	closed bool
}

// upstreamConn is one keep-alive connection to the target.
type upstreamConn struct {
	conn     net.Conn
	r        *bufio.Reader
	w        *bufio.Writer
	lastUsed time.Time
}

// errUpstreamClosed is what a request gets once the proxy is closed.
var errUpstreamClosed = errors.New("faultproxy: the proxy is closed")

// newUpstream returns a client of the target at addr (host:port).
func newUpstream(addr string) *upstream {
	return &upstream{addr: addr, dialer: net.Dialer{Timeout: 5 * time.Second}}
}

// Do sends req (whose body, if any, can be read again through GetBody, as http.NewRequest sets
// it for a bytes.Reader) and returns the reply read in full. A request that fails on a kept-alive
// connection before any reply came (the target closed it meanwhile) is sent once more on a new
// one. It ends early, with ctx's error, when req's context ends.
func (u *upstream) Do(req *http.Request) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		c, reused, err := u.get(req.Context())
		if err != nil {
			return nil, err
		}
		resp, replied, err := u.roundTrip(c, req)
		if err == nil {
			return resp, nil
		}
		_ = c.conn.Close()
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if !reused || replied || attempt > 0 || req.GetBody == nil {
			return nil, err
		}
		if req.Body, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
}

// roundTrip sends req on c and reads the reply in full; replied says whether any of it came.
// It puts c back into the pool unless the reply closes it.
func (u *upstream) roundTrip(c *upstreamConn, req *http.Request) (_ *http.Response, replied bool, _ error) {
	stop := context.AfterFunc(req.Context(), func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := req.Write(c.w); err != nil {
		return nil, false, err
	}
	if err := c.w.Flush(); err != nil {
		return nil, false, err
	}
	if _, err := c.r.Peek(1); err != nil {
		return nil, false, err
	}
	resp, err := http.ReadResponse(c.r, req)
	if err != nil {
		return nil, true, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, true, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if !stop() {
		return nil, true, req.Context().Err() // the deadline set to end the request spoils c
	}
	if resp.Close {
		_ = c.conn.Close()
	} else {
		u.put(c)
	}
	return resp, true, nil
}

// get returns an idle connection (reused) or a new one.
func (u *upstream) get(ctx context.Context) (c *upstreamConn, reused bool, err error) {
	u.mu.Lock()
	if u.closed {
		u.mu.Unlock()
		return nil, false, errUpstreamClosed
	}
	for len(u.idle) > 0 {
		c = u.idle[len(u.idle)-1]
		u.idle = u.idle[:len(u.idle)-1]
		if time.Since(c.lastUsed) < idleConnTimeout {
			u.mu.Unlock()
			return c, true, nil
		}
		_ = c.conn.Close()
	}
	u.mu.Unlock()
	conn, err := u.dialer.DialContext(ctx, "tcp", u.addr)
	if err != nil {
		return nil, false, err
	}
	return &upstreamConn{conn: conn, r: bufio.NewReader(conn), w: bufio.NewWriter(conn)}, false, nil
}

// put returns c to the pool.
func (u *upstream) put(c *upstreamConn) {
	c.lastUsed = time.Now()
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closed {
		_ = c.conn.Close()
		return
	}
	u.idle = append(u.idle, c)
}

// close closes the idle connections and refuses further requests.
func (u *upstream) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closed = true
	for _, c := range u.idle {
		_ = c.conn.Close()
	}
	u.idle = nil
}
