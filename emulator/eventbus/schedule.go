package eventbus

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed schedule expression of a scheduled rule. The emulator ticks it with
// its own clock: the first run is Next(ruleCreated), each following one Next(previousRun).
type Schedule interface {
	// Next returns the first run strictly after t, or the zero time if there is none.
	Next(t time.Time) time.Time
	// String returns the expression.
	String() string
}

// ParseSchedule parses rate(...) and cron(...) expressions as EventBridge rules accept them.
// A malformed expression gives ErrInvalidSchedule; one this bus cannot tick (cron's L, W and
// #, or EventBridge Scheduler's at(...)) gives ErrUnsupportedSchedule.
func ParseSchedule(expr string) (Schedule, error) {
	switch {
	case strings.HasPrefix(expr, "rate(") && strings.HasSuffix(expr, ")"):
		return parseRate(expr)
	case strings.HasPrefix(expr, "cron(") && strings.HasSuffix(expr, ")"):
		return parseCron(expr)
	case strings.HasPrefix(expr, "at("):
		return nil, fmt.Errorf("eventbus: %w: %q: one-time schedules belong to EventBridge Scheduler", ErrUnsupportedSchedule, expr)
	}
	return nil, fmt.Errorf("eventbus: %w: %q is neither rate(...) nor cron(...)", ErrInvalidSchedule, expr)
}

// Rate is a rate(value unit) schedule: a run every Interval.
type Rate struct {
	// Interval is the time between runs.
	Interval time.Duration
	expr     string
}

// rateUnits maps the singular unit names of rate expressions to durations.
var rateUnits = map[string]time.Duration{
	"minute": time.Minute,
	"hour":   time.Hour,
	"day":    24 * time.Hour,
}

// parseRate parses rate(value unit): a positive integer value and the unit minute, hour or
// day, singular for 1 and plural otherwise, as EventBridge requires.
func parseRate(expr string) (Rate, error) {
	body := strings.TrimSuffix(strings.TrimPrefix(expr, "rate("), ")")
	fields := strings.Fields(body)
	invalid := func(reason string) (Rate, error) {
		return Rate{}, fmt.Errorf("eventbus: %w: %q: %s", ErrInvalidSchedule, expr, reason)
	}
	if len(fields) != 2 {
		return invalid("want rate(value unit)")
	}
	value, err := strconv.Atoi(fields[0])
	if err != nil || value <= 0 {
		return invalid("the value must be a positive integer")
	}
	unit := fields[1]
	singular := strings.TrimSuffix(unit, "s")
	size, ok := rateUnits[singular]
	if !ok {
		return invalid("the unit must be minute(s), hour(s) or day(s)")
	}
	if (value == 1) != (unit == singular) {
		return invalid("the unit is singular for 1 and plural otherwise")
	}
	return Rate{Interval: time.Duration(value) * size, expr: expr}, nil
}

// Next returns t plus the interval.
func (r Rate) Next(t time.Time) time.Time { return t.Add(r.Interval) }

// String returns the expression.
func (r Rate) String() string { return r.expr }
