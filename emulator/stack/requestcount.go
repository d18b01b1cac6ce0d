package stack

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

// requestCounter is a reverse proxy in front of dynalite that counts the requests of the
// stack's own parts (the state machines' DynamoDB tasks and the functions' clients), so that
// a run can report what it cost; observers that read through DynamoDBEndpoint are not counted.
type requestCounter struct {
	count  atomic.Int64
	server *http.Server
	url    string
}

// startRequestCounter serves the proxy to target on a free loopback port.
func startRequestCounter(target string) (*requestCounter, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	c := &requestCounter{url: "http://" + ln.Addr().String()}
	proxy := httputil.NewSingleHostReverseProxy(u)
	c.server = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.count.Add(1)
		proxy.ServeHTTP(w, r)
	})}
	go func() { _ = c.server.Serve(ln) }()
	return c, nil
}

// close stops the proxy.
func (c *requestCounter) close() error { return c.server.Close() }
