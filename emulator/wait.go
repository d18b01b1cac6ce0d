package emulator

import (
	"fmt"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/jsonpath"
)

// wait runs a Wait state: it delays the flow for Seconds (or SecondsPath) of virtual time, or
// until Timestamp (or TimestampPath), then passes its effective input on.
func (r *runner) wait(s *stateRun, input any) (any, error) {
	effective, err := r.applyInputPath(s, input)
	if err != nil {
		return nil, err
	}
	d, err := r.waitDuration(s, effective)
	if err != nil {
		return nil, err
	}
	if err := r.sleep(d); err != nil {
		return nil, err
	}
	if s.node.jsonata != nil {
		return r.jsonataFinish(s, input, nil, false)
	}
	if err := r.jsonPathAssign(s, effective); err != nil {
		return nil, err
	}
	return r.applyOutputPath(s, effective)
}

// waitDuration computes how long a Wait state waits.
func (r *runner) waitDuration(s *stateRun, effective any) (time.Duration, error) {
	w := s.node.wait
	if s.node.jsonata != nil {
		return r.jsonataWaitDuration(s, effective)
	}
	switch {
	case w.seconds != nil:
		return time.Duration(*w.seconds) * time.Second, nil
	case w.timestamp != nil:
		return r.untilTimestamp(*w.timestamp), nil
	case w.secondsPath != nil:
		v, ok := w.secondsPath.Get(effective, r.pathRoot(s, w.secondsPath))
		if !ok {
			return 0, s.invalidPathError(w.secondsPath)
		}
		n, ok := toInteger(v)
		if !ok {
			return 0, s.runtimeError(fmt.Sprintf("The SecondsPath parameter cannot be parsed as a long value: %s == %s", w.secondsPath.Text, describeValue(v)))
		}
		if n < 0 {
			return 0, s.runtimeError(fmt.Sprintf("The SecondsPath parameter references a negative value: %s == %s", w.secondsPath.Text, describeValue(v)))
		}
		return time.Duration(n) * time.Second, nil
	default:
		v, ok := w.timestampPath.Get(effective, r.pathRoot(s, w.timestampPath))
		if !ok {
			return 0, s.invalidPathError(w.timestampPath)
		}
		t, ok := timestampOf(v)
		if !ok {
			return 0, s.runtimeError(fmt.Sprintf("The TimestampPath parameter does not reference a valid ISO-8601 extended offset date-time format string: %s == %s", w.timestampPath.Text, describeValue(v)))
		}
		return r.untilTimestamp(t), nil
	}
}

// pathRoot returns what a path reads besides the state data: the context object for a "$$"
// path, the variable's value for a "$name" path (nil for a variable not set), nil otherwise.
func (r *runner) pathRoot(s *stateRun, p *jsonpath.Path) any {
	switch {
	case p.Context:
		return r.contextObject(s)
	case p.Variable != "":
		v, _ := r.vars.lookup(p.Variable)
		return v
	}
	return nil
}

// jsonataWaitDuration evaluates a JSONata Wait state's Seconds or Timestamp.
func (r *runner) jsonataWaitDuration(s *stateRun, input any) (time.Duration, error) {
	js := s.node.jsonata
	if js.seconds != nil {
		n, err := r.jsonataInteger(s, input, js.seconds, "Seconds")
		return time.Duration(n) * time.Second, err
	}
	v, err := r.newJSONataEnv(s, input).evaluate(js.timestamp, "Timestamp")
	if err != nil {
		return 0, err
	}
	t, ok := timestampOf(v)
	if !ok {
		return 0, r.queryFailure(s, "Timestamp", "The Timestamp field cannot be parsed as an ISO-8601 extended offset date-time format string: "+describeValue(v))
	}
	return r.untilTimestamp(t), nil
}

// untilTimestamp is how long a Wait with the timestamp t waits: until t truncated to the second,
// as AWS does ("Step Functions considers the time value up to seconds and truncates
// milliseconds", Wait state documentation), so that a wait until 12:00:00.750 ends at 12:00:00.
func (r *runner) untilTimestamp(t time.Time) time.Duration {
	return t.Truncate(time.Second).Sub(r.now())
}
