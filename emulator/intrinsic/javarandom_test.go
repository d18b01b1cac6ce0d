package intrinsic

import "testing"

func TestJavaRandom(t *testing.T) {
	tests := []struct {
		name string
		draw func() int32
		want int32
	}{
		// Values of java.util.Random, well known: new Random(0).nextInt() and new Random(42).nextInt().
		{name: "seed 0 nextInt()", draw: func() int32 { return newJavaRandom(0).next(32) }, want: -1155484576},
		{name: "seed 42 nextInt()", draw: func() int32 { return newJavaRandom(42).next(32) }, want: -1170105035},
		// AWS: States.MathRandom(-5, 5, 42) is -5, so new Random(42).nextInt(10) is 0.
		{name: "seed 42 nextInt(10)", draw: func() int32 { return newJavaRandom(42).nextInt(10) }, want: 0},
		{name: "seed 0 nextInt(16)", draw: func() int32 { return newJavaRandom(0).nextInt(16) }, want: 11},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.draw(); got != tc.want {
				t.Fatalf("got %d, want %d", got, tc.want)
			}
		})
	}
}
