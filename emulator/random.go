package emulator

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// uuidFrom returns a version-4 UUID drawn from r.
func uuidFrom(r *rand.Rand) string {
	hi, lo := r.Uint64(), r.Uint64()
	hi = hi&^0xf000 | 0x4000           // version 4
	lo = lo&^(0xc000<<48) | 0x8000<<48 // RFC 4122 variant
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

// derivedRand returns a random source determined by the emulator's seed and a key (an
// execution ARN, plus the path of a branch or iteration), so that each flow of an execution draws
// the same numbers however goroutines are scheduled.
func derivedRand(seed uint64, key string) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}
