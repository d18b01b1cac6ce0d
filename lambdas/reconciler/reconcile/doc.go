// Package reconcile is the reconciler Lambda's handler: the periodic sweeper of the cleanup
// (docs/architecture.md, "Reconciler"). It pages through the lock table (a consistent Scan), asks
// DescribeExecution for every holder that is an execution of its state machine, and releases, with
// the semaphore's conditional release, the holders whose execution is not RUNNING or no longer
// exists. A lost status-change event therefore leaks a slot for at most one period, and an acquire
// write that lands after its execution's cleanup is freed too. Work per run is bounded
// (Config.MaxHolders): holders first, the longest-held first, so a leaked slot is found whatever
// the limit and the backlog, then dead waiters; two runs at once are safe, since a holder is released at most once. Each run
// logs its releases, writes per lock the metrics SlotsFreedByReconciler, SlotsHeld,
// ExecutionsWaiting and OldestWait (package metrics; WithMetrics), and returns its counts.
//
//	r, err := reconcile.New(reconcile.Config{TableName: "locks", StateMachineArn: arn}, sfnClient, ddbClient, reconcile.WithLogf(log.Printf))
//	if err != nil {
//		return err
//	}
//	res, err := r.Run(ctx) // res.Released, res.Live, res.Truncated
package reconcile
