package lambdafn

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// idSource makes the request and trace ids Lambda assigns, from one random source so that a
// seeded source replays the same ids.
type idSource struct {
	mu  sync.Mutex
	rng *rand.Rand
}

// requestID returns a random (version 4) UUID, the form of Lambda's request ids.
func (s *idSource) requestID() string {
	s.mu.Lock()
	hi, lo := s.rng.Uint64(), s.rng.Uint64()
	s.mu.Unlock()
	hi = hi&^0xf000 | 0x4000     // version 4
	lo = lo&^(0xc<<60) | 0x8<<60 // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

// traceID returns an X-Ray trace header value of the form Lambda returns:
// root=1-<epoch seconds in hex>-<96 random bits in hex>;sampled=0.
func (s *idSource) traceID(now time.Time) string {
	s.mu.Lock()
	hi, lo := s.rng.Uint32(), s.rng.Uint64()
	s.mu.Unlock()
	return fmt.Sprintf("root=1-%08x-%08x%016x;sampled=0", now.Unix(), hi, lo)
}
