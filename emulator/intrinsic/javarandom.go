package intrinsic

// javaRandom is java.util.Random, the generator behind a seeded States.MathRandom: AWS returns
// start + new Random(seed).nextInt(end - start), so the same seed gives AWS's number.
type javaRandom struct {
	seed int64
}

const (
	javaMultiplier = 0x5DEECE66D
	javaAddend     = 0xB
	javaMask       = 1<<48 - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaMultiplier) & javaMask}
}

// next returns the next bits-bit value of the linear congruential generator (Random.next).
func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaMultiplier + javaAddend) & javaMask
	return int32(uint64(r.seed) >> (48 - bits))
}

// nextInt returns a value in [0, bound) as Random.nextInt(int) does; bound must be positive.
func (r *javaRandom) nextInt(bound int32) int32 {
	v := r.next(31)
	m := bound - 1
	if bound&m == 0 {
		return int32(int64(bound) * int64(v) >> 31)
	}
	for u := v; ; u = r.next(31) {
		v = u % bound
		if u-v+m >= 0 { // int32 overflow means u fell in the biased tail: draw again
			return v
		}
	}
}
