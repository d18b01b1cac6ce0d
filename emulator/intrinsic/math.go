package intrinsic

import "math"

// mathAdd implements States.MathAdd(a, b): the sum of the two numbers, each first rounded to
// an integer as Java's Math.round does. The arguments and the sum must fit a Java int.
func mathAdd(inv invocation) (any, error) {
	a, okA := roundedInt(inv.args[0])
	b, okB := roundedInt(inv.args[1])
	if !okA || !okB || !fitsInt32(a+b) {
		return nil, ErrInvalidArguments
	}
	return a + b, nil
}

// mathRandom implements States.MathRandom(start, end[, seed]): an integer in [start, end).
// start and end lose their fractions and start must be below end. With a seed the number is
// the one AWS returns for that seed; without one it is drawn from Env.Rand.
func mathRandom(inv invocation) (any, error) {
	start, okStart := truncatedInt(inv.args[0])
	end, okEnd := truncatedInt(inv.args[1])
	if !okStart || !okEnd || start >= end || end-start > math.MaxInt32 {
		return nil, ErrInvalidArguments
	}
	span := end - start
	if len(inv.args) == 3 {
		seed, ok := truncatedLong(inv.args[2])
		if !ok {
			return nil, ErrInvalidArguments
		}
		return start + int64(newJavaRandom(seed).nextInt(int32(span))), nil
	}
	if inv.env.Rand == nil {
		return nil, ErrNoRandomSource
	}
	return start + inv.env.Rand.Int64N(span), nil
}
