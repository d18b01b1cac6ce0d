package eventbus

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cron is a cron(minutes hours day-of-month month day-of-week year) schedule, evaluated in UTC
// as EventBridge rules are. Fields take *, single values, a-b ranges, /step increments and
// comma lists; month and day-of-week also take names (JAN, SUN; day 1 is Sunday). Exactly one
// of day-of-month and day-of-week must be "?".
type Cron struct {
	minutes, hours, daysOfMonth, months, daysOfWeek, years []bool
	anyDayOfMonth, anyDayOfWeek                            bool
	expr                                                   string
}

// cronField describes one field of a cron expression.
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] stands for min+i
}

var cronFields = [6]cronField{
	{name: "minutes", min: 0, max: 59},
	{name: "hours", min: 0, max: 23},
	{name: "day-of-month", min: 1, max: 31},
	{name: "month", min: 1, max: 12, names: []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	{name: "day-of-week", min: 1, max: 7, names: []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
	{name: "year", min: 1970, max: 2199},
}

// Indexes of the day fields, which may be "?".
const (
	fieldDayOfMonth = 2
	fieldDayOfWeek  = 4
)

// parseCron parses a cron(...) expression.
func parseCron(expr string) (*Cron, error) {
	parts := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(expr, "cron("), ")"))
	if len(parts) != len(cronFields) {
		return nil, fmt.Errorf("eventbus: %w: %q: want 6 fields (minutes hours day-of-month month day-of-week year)", ErrInvalidSchedule, expr)
	}
	c := &Cron{expr: expr, anyDayOfMonth: parts[fieldDayOfMonth] == "?", anyDayOfWeek: parts[fieldDayOfWeek] == "?"}
	if c.anyDayOfMonth == c.anyDayOfWeek {
		return nil, fmt.Errorf("eventbus: %w: %q: exactly one of day-of-month and day-of-week must be ?", ErrInvalidSchedule, expr)
	}
	sets := []*[]bool{&c.minutes, &c.hours, &c.daysOfMonth, &c.months, &c.daysOfWeek, &c.years}
	for i, f := range cronFields {
		if parts[i] == "?" && (i == fieldDayOfMonth || i == fieldDayOfWeek) {
			continue
		}
		set, err := f.parse(parts[i])
		if err != nil {
			return nil, fmt.Errorf("eventbus: %q: %s field %q: %w", expr, f.name, parts[i], err)
		}
		*sets[i] = set
	}
	return c, nil
}

// parse reads one field into the set of the values it allows (indexed by value - min).
func (f cronField) parse(text string) ([]bool, error) {
	set := make([]bool, f.max-f.min+1)
	for _, item := range strings.Split(text, ",") {
		lo, hi, step, err := f.parseItem(item)
		if err != nil {
			if isUnsupportedCronToken(item) {
				return nil, fmt.Errorf("%w: %q (L, W and # are not supported)", ErrUnsupportedSchedule, item)
			}
			return nil, err
		}
		for v := lo; v <= hi; v += step {
			set[v-f.min] = true
		}
	}
	return set, nil
}

// isUnsupportedCronToken recognizes the valid cron tokens this bus does not implement: L
// (last), W (nearest weekday), LW and # (nth weekday of the month).
func isUnsupportedCronToken(item string) bool {
	if strings.Contains(item, "#") || item == "L" || item == "LW" {
		return true
	}
	for _, suffix := range []string{"L", "W"} {
		if prefix, ok := strings.CutSuffix(item, suffix); ok && isDigits(prefix) {
			return true
		}
	}
	return false
}

// parseItem reads *, v, a-b, */s, v/s or a-b/s.
func (f cronField) parseItem(item string) (lo, hi, step int, err error) {
	rangePart, stepPart, hasStep := strings.Cut(item, "/")
	step = 1
	if hasStep {
		if step, err = strconv.Atoi(stepPart); err != nil || step <= 0 {
			return 0, 0, 0, fmt.Errorf("%w: step %q must be a positive integer", ErrInvalidSchedule, stepPart)
		}
	}
	switch from, to, isRange := strings.Cut(rangePart, "-"); {
	case rangePart == "*":
		lo, hi = f.min, f.max
	case isRange:
		var okFrom, okTo bool
		lo, okFrom = f.value(from)
		hi, okTo = f.value(to)
		if !okFrom || !okTo || lo > hi {
			return 0, 0, 0, fmt.Errorf("%w: range %q must be low-high within %d-%d", ErrInvalidSchedule, rangePart, f.min, f.max)
		}
	default:
		var ok bool
		if lo, ok = f.value(rangePart); !ok {
			return 0, 0, 0, fmt.Errorf("%w: %q is not a value within %d-%d", ErrInvalidSchedule, rangePart, f.min, f.max)
		}
		hi = lo
		if hasStep {
			hi = f.max
		}
	}
	return lo, hi, step, nil
}

// value reads a number or a name of the field.
func (f cronField) value(text string) (int, bool) {
	for i, name := range f.names {
		if strings.EqualFold(text, name) {
			return f.min + i, true
		}
	}
	if !isDigits(text) {
		return 0, false
	}
	v, err := strconv.Atoi(text)
	return v, err == nil && v >= f.min && v <= f.max
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Next returns the first minute strictly after t that the expression selects (in UTC), or the
// zero time if there is none before the end of year 2199.
func (c *Cron) Next(t time.Time) time.Time {
	next := t.UTC().Truncate(time.Minute).Add(time.Minute)
	for next.Year() <= cronFields[5].max {
		switch {
		case !c.years[next.Year()-cronFields[5].min]:
			next = time.Date(next.Year()+1, time.January, 1, 0, 0, 0, 0, time.UTC)
		case !c.months[int(next.Month())-1]:
			next = time.Date(next.Year(), next.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		case !c.dayMatches(next):
			next = time.Date(next.Year(), next.Month(), next.Day()+1, 0, 0, 0, 0, time.UTC)
		case !c.hours[next.Hour()]:
			next = time.Date(next.Year(), next.Month(), next.Day(), next.Hour()+1, 0, 0, 0, time.UTC)
		case !c.minutes[next.Minute()]:
			next = next.Add(time.Minute)
		default:
			return next
		}
	}
	return time.Time{}
}

// dayMatches applies whichever of day-of-month and day-of-week is not "?".
func (c *Cron) dayMatches(t time.Time) bool {
	if c.anyDayOfMonth {
		return c.daysOfWeek[int(t.Weekday())]
	}
	return c.daysOfMonth[t.Day()-1]
}

// String returns the expression.
func (c *Cron) String() string { return c.expr }
