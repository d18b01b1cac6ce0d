// Package gcra holds the definitions of the generic cell rate algorithm (GCRA) item that every
// Turnstile rate limiter shares: the Go limiters of package ratelimit and the Rate gate of the
// semaphore state machine (asl/machines). It imports nothing outside the standard library, so
// that the pure-Go ASL model can use it.
//
// A rate's item holds one number attribute, AttributeTAT: the theoretical arrival time (TAT) in
// Unix nanoseconds. Each permit advances it by Interval(rate); a decision at time now may take n
// permits while the TAT, once advanced, is at most now + burst·Interval. Clients that use the
// same item, table and rate share one rate, whatever language they are written in.
package gcra

import (
	"math"
	"time"
)

// AttributeTAT is the number attribute of a rate's item that holds the theoretical arrival time,
// in Unix nanoseconds.
const AttributeTAT = "tat"

// KeyPrefix is prepended to a rate's name to form its item's key, e.g. "rate#partner-api".
const KeyPrefix = "rate#"

// Entry is the sort key value of a rate's item in a table that has a sort key, such as the
// Semaphore's lock table (whose sort key is Entry).
const Entry = "rate"

// Interval is the emission interval of a rate of perSecond permits a second: the time one
// permit advances the TAT by, rounded to the nanosecond.
func Interval(perSecond float64) time.Duration {
	return time.Duration(math.Round(float64(time.Second) / perSecond))
}
