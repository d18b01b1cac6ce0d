// Package sidebyside runs the same workloads in the emulator and in aws-local-stepfunctions, an
// independent interpreter of the Amazon States Language for Node.js, and measures the executions
// per second of each (go run ./cmd/sidebyside prints the table).
//
// Two workloads: the semaphore machine (Poll strategy, its work a Pass state) against one lock
// in a table of DynamoDB Local, and a machine of Pass, Choice, Map and Parallel states without
// I/O. Both interpreters run the same definition JSON with the same input, N executions C at a
// time, at time scale 0: the emulator on its skipping clock, aws-local-stepfunctions with every
// Wait state and retry pause overridden to 0 ms and its DynamoDB tasks sent, with the same
// evaluated parameters, to the same DynamoDB Local through the AWS SDK for JavaScript (run.mjs,
// started with the pinned Node of .cdk).
//
//	w := sidebyside.Flow()
//	ours, err := sidebyside.RunOurs(ctx, w, sidebyside.Load{Executions: 1000, Concurrency: 10})
//	theirs, err := sidebyside.RunTheirs(ctx, root, w, sidebyside.Load{Executions: 1000, Concurrency: 10})
//	fmt.Println(ours.ExecutionsPerSecond / theirs.ExecutionsPerSecond)
package sidebyside
