package demo

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/turnstile-sfn/turnstile/constructs/semaphore"
)

// ErrInvalidRate is wrapped by the errors of ParseRate.
var ErrInvalidRate = errors.New("invalid rate")

// ParseRate reads a rate as the context key ContextRate and `turnstile simulate --rate` take it:
// R[/s][,burst=B][,mode=delay|reject], R in permits a second, e.g. "2/s", "0.5,burst=3" or
// "10/s,burst=10,mode=reject". Config.Validate checks the bounds.
func ParseRate(s string) (*semaphore.Rate, error) {
	usage := func(problem string) error {
		return fmt.Errorf("%w: a rate %s, got %q (e.g. 2/s, 0.5/s,burst=3 or 10/s,burst=10,mode=reject)", ErrInvalidRate, problem, s)
	}
	parts := strings.Split(s, ",")
	perSecond, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(parts[0]), "/s"), 64)
	if err != nil {
		return nil, usage("must start with permits a second, R or R/s")
	}
	r := &semaphore.Rate{PerSecond: perSecond}
	for _, p := range parts[1:] {
		key, value, ok := strings.Cut(strings.TrimSpace(p), "=")
		switch {
		case !ok:
			return nil, usage(fmt.Sprintf("holds %q, which is not key=value", p))
		case key == "burst":
			if r.Burst, err = strconv.Atoi(value); err != nil || r.Burst < 1 {
				return nil, usage("needs burst=B with a whole number B >= 1")
			}
		case key == "mode" && strings.EqualFold(value, string(semaphore.RateDelay)):
			r.Mode = semaphore.RateDelay
		case key == "mode" && strings.EqualFold(value, string(semaphore.RateReject)):
			r.Mode = semaphore.RateReject
		case key == "mode":
			return nil, usage(fmt.Sprintf("has mode=%s; the modes are delay and reject", value))
		default:
			return nil, usage(fmt.Sprintf("has the unknown key %q; the keys are burst and mode", key))
		}
	}
	return r, nil
}
