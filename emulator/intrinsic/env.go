package intrinsic

import "math/rand/v2"

// Env carries the execution-wide sources that some functions need.
type Env struct {
	// Rand is the seeded source of States.UUID and of States.MathRandom without a seed argument,
	// so that a run can be replayed. A *rand.Rand is not safe for concurrent use: the caller
	// must not evaluate expressions that share one Rand from several goroutines at once (give
	// each Parallel branch or Map iteration its own, or serialize the calls). It may be nil when
	// the expressions evaluated never need it; Evaluate returns ErrNoRandomSource otherwise.
	Rand *rand.Rand
}
