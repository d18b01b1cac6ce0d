package intrinsic

import "math"

// AWS evaluates intrinsic functions in Java: integer arguments are Java ints, and a JSON number
// with a fraction is converted either by Math.round (States.MathAdd) or by a cast that drops the
// fraction (States.ArrayRange, States.ArrayPartition, States.ArrayGetItem, States.MathRandom).
// An argument that is not a number, or falls outside the int range, is an invalid argument.

// roundedInt converts a JSON number as Java's Math.round does (halves go up: 2.5 -> 3,
// -2.5 -> -2) and reports whether it is a number within the Java int range.
func roundedInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, fitsInt32(n)
	case float64:
		r := math.Floor(n)
		if n-r >= 0.5 {
			r++
		}
		return floatToInt32(r)
	default:
		return 0, false
	}
}

// truncatedInt converts a JSON number by dropping its fraction (1.9 -> 1, -1.9 -> -1) and
// reports whether it is a number within the Java int range.
func truncatedInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, fitsInt32(n)
	case float64:
		return floatToInt32(math.Trunc(n))
	default:
		return 0, false
	}
}

// truncatedLong converts a JSON number by dropping its fraction and reports whether it is a
// number within the Java long range.
func truncatedLong(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		t := math.Trunc(n)
		if t < math.MinInt64 || t >= math.MaxInt64 || math.IsNaN(t) {
			return 0, false
		}
		return int64(t), true
	default:
		return 0, false
	}
}

func floatToInt32(f float64) (int64, bool) {
	if f < math.MinInt32 || f > math.MaxInt32 || math.IsNaN(f) {
		return 0, false
	}
	return int64(f), true
}

func fitsInt32(n int64) bool { return math.MinInt32 <= n && n <= math.MaxInt32 }
