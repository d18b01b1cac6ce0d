package test

import "flag"

// large runs the end-to-end scenarios at their large sizes, as `make bench` does; without it
// (`make test`) each runs at the smallest size that still reaches and checks what it names.
var large = flag.Bool("large", false, "run the end-to-end scenarios at their large sizes (make bench)")

// sized is small, or big with -large.
func sized(small, big int) int {
	if *large {
		return big
	}
	return small
}
