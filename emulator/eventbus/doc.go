// Package eventbus is a local Amazon EventBridge for the emulator: event patterns with
// EventBridge's matching rules, the "Step Functions Execution Status Change" events Step
// Functions emits, a bus that delivers matching events to rule targets asynchronously with
// retries and a dead-letter sink, and the schedule expressions of scheduled rules.
//
// Patterns support exact values (a list means any of them), nested objects, prefix, suffix,
// equals-ignore-case, wildcard, anything-but (values, prefix, suffix, equals-ignore-case,
// wildcard), numeric ranges, exists, cidr and $or; null and "" are distinct values; an event
// array matches when any element does.
//
// Delivery is at-least-once and unordered, as in AWS: each matching target receives the event
// on its own goroutine; a failed delivery is retried with exponential backoff and jitter within
// the target's RetryPolicy (185 retries within 24 hours by default), then handed to the
// dead-letter sink. Time comes from an injectable Clock, so tests and the emulator's scaled
// clock run retries without waiting. A DeliveryPolicy can drop, duplicate or delay deliveries
// to reproduce EventBridge's best-effort behaviour in reliability tests.
//
// Usage:
//
//	bus := eventbus.New(eventbus.Options{Clock: clock, DeadLetters: dlq.Add})
//	pattern, err := eventbus.CompilePattern(rule.EventPattern)
//	if err != nil {
//		return err
//	}
//	err = bus.PutRule(eventbus.Rule{
//		Name:    rule.Name,
//		Pattern: pattern,
//		Targets: []eventbus.Target{{ID: "Target0", Invoke: startCleanup}},
//	})
//	...
//	event, err := eventbus.NewStatusChangeEvent(ids.NewID(), clock.Now(), eventbus.ExecutionSnapshot{
//		ExecutionARN: arn, StateMachineARN: machineARN, Status: eventbus.StatusAborted, ...
//	})
//	err = bus.Publish(ctx, event)
//	...
//	err = bus.Close(ctx) // waits for in-flight deliveries
package eventbus
