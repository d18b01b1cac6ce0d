package eventbus

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// IDSource produces event IDs shaped like version-4 UUIDs from a seeded generator, so that a
// run replayed with the same seed and the same order of calls produces the same IDs. It is
// safe for concurrent use.
type IDSource struct {
	mu  sync.Mutex
	rng *rand.Rand
}

// NewIDSource returns an IDSource seeded with seed.
func NewIDSource(seed uint64) *IDSource {
	return &IDSource{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// NewID returns the next ID.
func (s *IDSource) NewID() string {
	s.mu.Lock()
	hi, lo := s.rng.Uint64(), s.rng.Uint64()
	s.mu.Unlock()
	hi = (hi &^ 0xf000) | 0x4000           // version 4
	lo = (lo &^ (0xc << 60)) | (0x8 << 60) // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}
