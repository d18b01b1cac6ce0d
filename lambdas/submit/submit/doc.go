// Package submit is the submit function: the Lambda handler that queues execution inputs on a
// semaphore's lock (lock.Client.Submit), so that producers on AWS reach admission control
// without code of theirs. One handler serves three wirings, told apart by the event's shape:
//
//   - invoked directly (the AWS SDK, the CLI, another state machine): the payload is the
//     execution input; the result is the submission (its id, lock and execution ARN);
//   - an EventBridge rule targeting the function: the event's detail is the execution input;
//   - an SQS event source mapping: each record's body is an execution input; records whose
//     submission failed are reported as batch item failures (turn on ReportBatchItemFailures on
//     the mapping), so SQS redelivers them alone.
//
// The lock name is the semaphore's fixed LockName, or each input's value at its LockNamePath;
// on a semaphore with several locks or a total cap, it is the first lock each input's execution
// takes (machines.InputLocks, read from the machine's definition at cold start: LoadInputLocks):
// started holding it, the execution waits for the others in flight as any execution does;
// with PriorityPath or WeightPath, each input's priority and weight are read there as the
// machine reads them (machines.InputOrder), and an input the machine would refuse is not
// submitted (a batch item failure, or the invocation's error).
package submit
