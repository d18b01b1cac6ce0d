package asl

// Defaults the States Language gives to absent retrier fields.
const (
	DefaultIntervalSeconds = 1
	DefaultMaxAttempts     = 3
	DefaultBackoffRate     = 2.0
)

// Jitter strategies of a retrier.
const (
	JitterFull = "FULL"
	JitterNone = "NONE"
)

// Retrier retries a failed Task, Parallel or Map state whose error matches ErrorEquals.
type Retrier struct {
	// ErrorEquals lists the error names this retrier matches; "States.ALL" matches any (but
	// States.Runtime) and must stand alone in the last retrier.
	ErrorEquals []string
	// IntervalSeconds is the delay before the first retry; nil means 1.
	IntervalSeconds *int
	// MaxAttempts is the number of retries; nil means 3, and 0 means never retry.
	MaxAttempts *int
	// BackoffRate multiplies the delay after each attempt; nil means 2.0.
	BackoffRate *float64
	// MaxDelaySeconds caps the delay; nil means no cap.
	MaxDelaySeconds *int
	// JitterStrategy is "FULL" (a random delay between 0 and the computed one) or "NONE".
	JitterStrategy string
	// Comment is a human-readable description.
	Comment string
}

// Interval returns IntervalSeconds or its default.
func (r *Retrier) Interval() int { return intOr(r.IntervalSeconds, DefaultIntervalSeconds) }

// Attempts returns MaxAttempts or its default.
func (r *Retrier) Attempts() int { return intOr(r.MaxAttempts, DefaultMaxAttempts) }

// Backoff returns BackoffRate or its default.
func (r *Retrier) Backoff() float64 {
	if r.BackoffRate == nil {
		return DefaultBackoffRate
	}
	return *r.BackoffRate
}

// MarshalJSON renders the retrier with its fields in a fixed order.
func (r *Retrier) MarshalJSON() ([]byte, error) {
	fs := []field{{"ErrorEquals", r.ErrorEquals}}
	fs = addInt(fs, "IntervalSeconds", r.IntervalSeconds)
	fs = addInt(fs, "MaxAttempts", r.MaxAttempts)
	if r.BackoffRate != nil {
		fs = append(fs, field{"BackoffRate", *r.BackoffRate})
	}
	fs = addInt(fs, "MaxDelaySeconds", r.MaxDelaySeconds)
	fs = addString(fs, "JitterStrategy", r.JitterStrategy)
	fs = addString(fs, "Comment", r.Comment)
	return marshalFields(fs)
}

// Catcher sends a failed Task, Parallel or Map state to a fallback state once its retries are
// exhausted.
type Catcher struct {
	// ErrorEquals lists the error names this catcher matches.
	ErrorEquals []string
	// Next is the fallback state.
	Next string
	// ResultPath says where the error output ({"Error":…, "Cause":…}) goes; absent means "$".
	ResultPath *Path
	// Comment is a human-readable description.
	Comment string
	// Assign holds the variables the catcher assigns.
	Assign any
	// Output is a JSONata catcher's output template.
	Output any
}

// MarshalJSON renders the catcher with its fields in a fixed order.
func (c *Catcher) MarshalJSON() ([]byte, error) {
	fs := []field{{"ErrorEquals", c.ErrorEquals}}
	fs = addString(fs, "Next", c.Next)
	fs = addPath(fs, "ResultPath", c.ResultPath)
	fs = addAny(fs, "Assign", c.Assign)
	fs = addAny(fs, "Output", c.Output)
	fs = addString(fs, "Comment", c.Comment)
	return marshalFields(fs)
}

// Int returns a pointer to v, for the optional integer fields.
func Int(v int) *int { return &v }

// Float returns a pointer to v, for the optional number fields.
func Float(v float64) *float64 { return &v }

// intOr returns *p, or def when p is nil.
func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}
