// Package ratelimit lets many clients that cannot talk to each other (work functions, batch jobs,
// any Go program) share one rate through a DynamoDB table, such as a third-party API's 10 calls
// a second or a table's capacity budget. Its limiters read like golang.org/x/time/rate's (Allow,
// AllowN, Reserve, Wait, WaitN, SetLimit), with a context and an error because they do I/O:
//
//	limiter, err := ratelimit.New(ratelimit.Config{
//		Table: ratelimit.Table{Client: dynamodb.NewFromConfig(cfg), Name: "Locks"},
//		Name:  "partner-api", // item key "rate#partner-api"
//		Limit: 10,            // permits per second, shared by every client of the name
//		Burst: 10,
//	})
//	...
//	if err := limiter.Wait(ctx); err != nil {
//		return err
//	}
//	callPartnerAPI()
//
// The items live in a table of the caller's choice whose partition key is a string attribute,
// by default "LockName": the Semaphore construct's lock table can hold rate items beside its
// locks. Table names the table, the key attribute and the key prefix.
//
// # Three modes
//
// Exact (Config.Lease 1): the generic cell rate algorithm (GCRA). One item holds the
// theoretical arrival time (TAT); each decision is one conditional UpdateItem, 1 write unit:
// while the TAT is ahead of the clock, SET tat = tat + n·T on condition
// now <= tat <= now + (Burst-n)·T + lookahead, additive, so that concurrent clients do not
// conflict; when the rate has gone idle, SET tat = now + n·T on condition tat < now. A guess of
// the wrong case costs one more write. A failed condition returns the item
// (ReturnValuesOnConditionCheckFailure ALL_OLD), so the client learns the TAT without a read
// and Wait sleeps exactly until its slot comes within reach; when no item comes back (there is
// none yet) a strongly consistent GetItem decides. Wait books a slot up to Config.Lookahead
// ahead and sleeps until it, so waiters queue in the TAT instead of retrying.
//
// Leased (Config.Lease k > 1): a client books k permits per write in the same item and hands
// them out locally: 1/k write units per permit.
//
// Adaptive (NewAdaptive), after the AWS Database Blog's distributed DynamoDB rate limiting:
// each client limits itself with a local golang.org/x/time/rate limiter, reports its
// consumption to a report item of its own every SyncInterval (one PutItem), reads the summary
// item (one eventually consistent GetItem) and scales its local limit by Target/aggregate,
// smoothed by 0.4. One client at a time, the aggregator, sums the registered clients' reports
// (BatchGetItem) into the summary, drops the clients whose report is older than StaleAfter,
// and holds the role as long as its summaries keep coming (a conditional write; another client
// takes over when they stop). Per sync interval and N clients that is N + 1 writes and N read
// units, linear in N; every client reading every report instead would cost N²/2 read units,
// and one shared item of all reports N writes of an N-sized item. A joining client announces
// a fair share, scaled down by how far the fleet would go over the target, adding it to the
// summary's aggregate, and starts at Smoothing times it: a slow start, as the others give up
// only that fraction of the room it claims at their next sync. Until its limit reaches the
// share it reports the share (its claim), which follows the scale factor as a limit would,
// rather than its use, so that the others go on making room; its limit grows towards the
// claim by at most 1 + Smoothing·(MaxScaleUp − 1) times a sync, and the claim lapses after
// SlowStartSyncs syncs, so that a client that does not use its share does not hold it. A
// leaving client (Close) takes its rate off, so that the others react at their next sync.
//
// Two additions to the blog's rule keep a fleet from overshooting when its aggregate reads
// low: a sync scales a limit up by at most MaxScaleUp, and a limit grows only as far as its
// client's own use since the last sync, scaled, justifies. A client that did not use its limit
// (a loaded machine, a lull, replies lost and retried) keeps it instead of raising it, so the
// limits of a fleet that under-uses them add up to the target, not more, and its return to
// full use does not overshoot. Burst is the fleet's: each local limiter gets its share of it,
// and a new client's bucket starts empty (joining is not idleness saved up). The fleet aims
// Headroom (5 % by default) under the target, so that the fluctuation of an aggregate learned a
// sync late stays under the target rather than around it.
//
// WithCapacityLimit is an aws-sdk-go-v2 client option (a smithy-go middleware) that keeps a
// fleet's consumed read and write capacity under the targets of two Adaptive limiters: it waits
// before each request, asks for ConsumedCapacity and records what the response says.
//
// # Permissions
//
// New needs dynamodb:UpdateItem on the table, and dynamodb:GetItem where the server does not
// return the item of a failed condition; NewAdaptive needs dynamodb:GetItem, PutItem,
// UpdateItem, DeleteItem and BatchGetItem.
//
// # Guarantees
//
// Exact: the permits whose decisions fall within any window W number at most
// Limit·W + Burst. Decisions are dated by the client's clock, read when the request is built,
// so two things widen the bound, each by at most Limit·(its duration) permits in a window:
// clock skew, as a client whose clock is s ahead uses its permits up to s early; and request
// latency, as while the rate goes from idle to busy a TAT set from a request that took L to
// land trails the clock by L (once busy, the TAT is ahead of every client's clock and latency
// no longer matters). Keep the clients' clocks synchronised (on AWS, by the Amazon Time Sync
// Service). Measured, 50 clients starting at once against DynamoDB Local stayed within
// Limit·W + Burst; against a slower server on a loaded machine (dynalite, whose first replies
// took over 100 ms), they took up to 27 permits more in the first second.
//
// A lost reply (the write applied, its reply lost) never gives away more: every permit handed
// out matches an increment of the TAT that landed. The SDK's retry of an applied additive write
// adds n·T again, and the retry of an applied idle-case write fails its condition and books
// anew: either way the lost write's permits are never used, an under-use of n permits per lost
// reply, never an over-use.
//
// Leased: a client may hand out a lease's permits after the window its booking fell in, so the
// bound becomes Limit·W + Burst + clients·Lease. Permits reserved and not used, and leased
// permits a client never hands out, are lost (under-use).
//
// Adaptive: no hard bound, as the clients learn of each other only through the summary, a sync
// late; the local limits add up to about the target less the headroom once converged, and each client's local
// limiter keeps its own GCRA bound (limit·W + its burst, at least 1), so a fleet of more
// clients than Burst may take up to one permit per client beyond the fleet's burst in a
// window. The aggregate follows the target within a few sync intervals (see the README's
// figures).
package ratelimit
