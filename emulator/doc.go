// Package emulator runs Amazon States Language state machines (JSONPath and JSONata) locally, the
// way AWS Step Functions runs Standard workflows: executions with AWS's history events, statuses,
// error names and causes; Retry and Catch; timeouts and heartbeats; task tokens; redrive; and a
// status-change hook for an EventBridge stand-in.
//
// The interpreter covers Pass, Task, Choice, Wait, Succeed, Fail, Parallel and the inline Map,
// the input and output processing fields, the context object and the intrinsic functions, in
// both query languages: JSONPath and JSONata (Arguments, Output, "{% %}" expressions evaluated
// with the reserved variable $states, Choice Condition, Map Items), and workflow variables
// (Assign; $name in JSONata expressions and JSONPath fields; a Parallel branch or Map iteration
// reads the outer variables and what it assigns stays in its own scope). A failed JSONata
// evaluation is States.QueryEvaluationError, recorded with an EvaluationFailed event. Task
// states call integrations registered with RegisterIntegration; the Step Functions integration
// (states:startExecution with ".sync" and ".sync:2", aws-sdk:sfn:*) is built in, and the
// ".waitForTaskToken" pattern works with any integration. Definitions using what the emulator
// does not run (the distributed Map, activities, Express machines) are
// rejected at creation with an error wrapping asl.ErrUnsupported.
//
// Time is virtual: a ScaledClock runs it at 1/scale of real time, so that a 15-second task takes
// 150 ms at scale 0.01; at scale 0 it skips time, moving only when nothing is in flight and then
// jumping to the next due timer, so that waits take no real time and a run's timings do not
// depend on the machine (see Clock for the busy tokens this rests on, and Latency for the time
// AWS calls take then). All randomness comes from Options.Seed, so a run can be replayed.
//
// Where AWS's recorded behaviour and its documentation differ, the emulator follows the
// recordings: a missed heartbeat fails the task with States.Timeout (which a retrier or catcher
// naming States.HeartbeatTimeout also matches), a path in Parameters that selects nothing is
// States.Runtime. A Parallel state that succeeds records ParallelStateSucceeded before
// ParallelStateExited, as AWS does, although the recorded cases leave it out: the tool that
// recorded them drops that event (its id is missing from the recorded history).
// StopExecution records ExecutionAborted without the *StateAborted events of the states it
// interrupts.
//
//	em := emulator.New(emulator.Options{Clock: emulator.NewScaledClock(time.Time{}, 0)})
//	defer em.Close()
//	arn, err := em.CreateStateMachine("hello", `{"StartAt":"Hi","States":{"Hi":{"Type":"Pass","Result":"world","End":true}}}`, emulator.StateMachineOptions{})
//	if err != nil {
//		return err
//	}
//	started, err := em.StartExecution(ctx, arn, "", `{}`)
//	if err != nil {
//		return err
//	}
//	done, err := em.Wait(ctx, started.ExecutionArn)
//	// done.Status == emulator.StatusSucceeded, *done.Output == `"world"`
package emulator
