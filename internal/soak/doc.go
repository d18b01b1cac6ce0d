// Package soak is the reliability soak of issue 6: many seeds of a randomized mix of
// acquire/release pairs against the semaphore's real DynamoDB expressions, under injected
// faults, with every history checked for linearizability and every read of the lock
// checked against the invariant.
//
// Per seed, against a fresh lock table on a DynamoDB API server (DynamoDB Local):
//
//   - Config.Goroutines clients (semcheck.LockClient, the machine's acquire with its read-back
//     and its release) run Config.Pairs pairs through a faultproxy that applies requests and
//     loses their reply, loses requests before they arrive and throttles, at the configured
//     rates. A client that acquired reads the lock (past the proxy, lock.Client.Read) and checks it.
//   - Clients crash: right after acquiring (Config.CrashHolding), or right after a lost reply
//     (Config.CrashAfterLostReply), not knowing whether the write landed. A crash publishes the
//     execution's FAILED status-change event on an emulator/eventbus Bus whose DeliveryPolicy
//     drops (Config.DropEvents) and duplicates (Config.DupEvents) deliveries, with seeded
//     delays that reorder them. The target is the cleanup: it confirms the execution is not
//     running and sends the semaphore's conditional release; a duplicate finds nothing to do.
//   - Every Config.SegmentPairs pairs the soak waits for quiescence (every client idle, the bus
//     drained) and runs one pass of the reconciler Lambda (lambdas/reconciler/reconcile), with
//     Step Functions answering FAILED for crashed executions and RUNNING for the others: it
//     frees the slots whose cleanup event was dropped. Then it reads the lock and checks
//     the segment's history with semcheck.CheckFrom.
//
// Histories are recorded precisely and checked in segments, so porcupine stays fast. An
// operation given up after a lost reply is recorded as over when its client gives up
// (semcheck.Call.Abandon): the proxy never delivers a lost request later. Each segment's
// history starts from the holders read at the quiescent point before it, and ends with probes
// at the quiescent point after it: a release answering NotHeld for every holder it touched that
// the final read does not show, which settles every outcome left unknown.
//
// The figures: seeds, operations, faults by kind, histories failing the checker, the largest
// number of holders seen, reads over the limit, reads where counter ≠ holders, negative counts
// and the slots left after the last quiescent point and its reconciler pass.
//
//	srv, err := ddblocal.Start(ctx, ddblocal.Options{})
//	if err != nil {
//		return err
//	}
//	defer srv.Close()
//	report, err := soak.Run(ctx, srv.Endpoint(), soak.DefaultConfig())
//	if err != nil {
//		return err
//	}
//	_ = report.WriteText(os.Stdout, soak.DefaultConfig().Limit)
//	if report.Failures() > 0 {
//		os.Exit(1)
//	}
package soak
