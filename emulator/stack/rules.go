package stack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator"
	"github.com/turnstile-sfn/turnstile/emulator/eventbus"
	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/template"
)

// ErrUnsupportedTarget is wrapped by the error Start returns for a rule target that is neither a
// state machine of the stack nor a Lambda function.
var ErrUnsupportedTarget = errors.New("stack: unsupported rule target")

// wireRules puts every enabled rule of the template on the bus, starts a ticker for each
// scheduled rule, and forwards the emulator's status changes to the bus as EventBridge events.
func (s *Stack) wireRules() error {
	for _, r := range s.Template.Rules {
		if r.State == template.RuleStateDisabled {
			continue
		}
		rule, err := s.busRule(r)
		if err != nil {
			return err
		}
		if err := s.Bus.PutRule(rule); err != nil {
			return fmt.Errorf("stack: rule %s: %w", r.LogicalID, err)
		}
		if r.ScheduleExpression != "" {
			schedule, err := eventbus.ParseSchedule(r.ScheduleExpression)
			if err != nil {
				return fmt.Errorf("stack: rule %s: %w", r.LogicalID, err)
			}
			s.tick(r.ARN, schedule)
		}
	}
	s.Emulator.OnStatusChange(s.publishStatusChange)
	return nil
}

// busRule translates a template rule: a scheduled rule matches the scheduler's events for its
// own ARN; any other rule matches its event pattern.
func (s *Stack) busRule(r template.Rule) (eventbus.Rule, error) {
	pattern := r.EventPattern
	if r.ScheduleExpression != "" {
		pattern = map[string]any{
			"source":      []any{eventbus.SourceScheduler},
			"detail-type": []any{eventbus.DetailTypeScheduled},
			"resources":   []any{r.ARN},
		}
	}
	compiled, err := eventbus.CompilePattern(pattern)
	if err != nil {
		return eventbus.Rule{}, fmt.Errorf("stack: rule %s: %w", r.LogicalID, err)
	}
	rule := eventbus.Rule{Name: r.Name, Pattern: compiled}
	for _, t := range r.Targets {
		invoke, err := s.targetFunc(t)
		if err != nil {
			return eventbus.Rule{}, fmt.Errorf("stack: rule %s, target %s: %w", r.LogicalID, t.ID, err)
		}
		target := eventbus.Target{ID: t.ID, ARN: t.ARN, Invoke: invoke, Retry: retryPolicy(t.RetryPolicy)}
		if t.DeadLetterConfig != nil {
			target.DeadLetterQueueARN = t.DeadLetterConfig.ARN
		}
		rule.Targets = append(rule.Targets, target)
	}
	return rule, nil
}

// targetFunc returns what delivering an event to t does: start an execution of a state machine
// of the stack, or invoke a function asynchronously. As on AWS, every delivery (a duplicate
// too) starts a new execution.
func (s *Stack) targetFunc(t template.Target) (eventbus.TargetFunc, error) {
	switch {
	case strings.Contains(t.ARN, ":states:") && strings.Contains(t.ARN, ":stateMachine:"):
		return func(ctx context.Context, ev eventbus.Event) error {
			input, err := s.shapedInput(t, ev)
			if err != nil {
				return eventbus.Permanent(err)
			}
			_, err = s.Emulator.StartExecution(ctx, t.ARN, "", input)
			return err
		}, nil
	case strings.Contains(t.ARN, ":lambda:") && strings.Contains(t.ARN, ":function:"):
		return func(ctx context.Context, ev eventbus.Event) error {
			input, err := s.shapedInput(t, ev)
			if err != nil {
				return eventbus.Permanent(err)
			}
			_, err = s.Lambda.Invoke(ctx, &lambdafn.InvokeInput{FunctionName: t.ARN, InvocationType: lambdafn.Event, Payload: []byte(input)})
			return err
		}, nil
	}
	return nil, fmt.Errorf("%w: %s (only state machines and Lambda functions are emulated)", ErrUnsupportedTarget, t.ARN)
}

func (s *Stack) shapedInput(t template.Target, ev eventbus.Event) (string, error) {
	raw, err := json.Marshal(ev)
	if err != nil {
		return "", err
	}
	return targetInput(t, raw)
}

// retryPolicy converts a template retry policy; nil keeps EventBridge's default.
func retryPolicy(p *template.RetryPolicy) *eventbus.RetryPolicy {
	if p == nil {
		return nil
	}
	out := eventbus.DefaultRetryPolicy()
	if p.MaximumRetryAttempts != nil {
		out.MaximumRetryAttempts = *p.MaximumRetryAttempts
	}
	if p.MaximumEventAgeInSeconds != nil {
		out.MaximumEventAge = time.Duration(*p.MaximumEventAgeInSeconds) * time.Second
	}
	return &out
}

// tick publishes the scheduler's event for ruleARN at every time the schedule names, on the
// emulator's clock, until the stack closes.
func (s *Stack) tick(ruleARN string, schedule eventbus.Schedule) {
	s.background.Add(1)
	clock := s.Emulator.Clock()
	clock.Go(func() {
		defer s.background.Done()
		for next := schedule.Next(clock.Now()); !next.IsZero(); next = schedule.Next(next) {
			if err := clock.Sleep(s.ctx, next.Sub(clock.Now())); err != nil {
				return
			}
			ev, err := eventbus.ScheduledEvent(s.ids.NewID(), next, ruleARN)
			if err == nil {
				err = s.Bus.Publish(s.ctx, ev)
			}
			if err != nil && s.ctx.Err() == nil {
				s.logf("scheduled event for %s: %v", ruleARN, err)
			}
		}
	})
}

// publishStatusChange sends an execution's status change to the bus as EventBridge would.
func (s *Stack) publishStatusChange(c emulator.StatusChange) {
	snap := eventbus.ExecutionSnapshot{
		ExecutionARN:        c.ExecutionArn,
		StateMachineARN:     c.StateMachineArn,
		Name:                c.Name,
		Status:              string(c.Status),
		StartDate:           c.StartDate,
		Input:               c.Input,
		RedriveCount:        c.RedriveCount,
		RedriveStatus:       c.RedriveStatus,
		RedriveStatusReason: c.RedriveStatusReason,
	}
	if c.StopDate != nil {
		snap.StopDate = *c.StopDate
	}
	if c.RedriveDate != nil {
		snap.RedriveDate = *c.RedriveDate
	}
	snap.Output, snap.Error, snap.Cause = deref(c.Output), deref(c.Error), deref(c.Cause)
	ev, err := eventbus.NewStatusChangeEvent(s.ids.NewID(), c.Time, snap)
	if err == nil {
		err = s.Bus.Publish(s.ctx, ev)
	}
	if err != nil && s.ctx.Err() == nil {
		s.logf("status change of %s: %v", c.ExecutionArn, err)
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
