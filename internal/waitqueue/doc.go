// Package waitqueue is the Callback wait strategy's lock-side half: the FIFO queue of parked
// executions that lives in the lock item beside the holders (see asl/machines, queue.go), and
// the two operations on it.
//
//   - Park is called by an execution's "Wait In Queue" task with its task token: the execution
//     joins the queue (or, if it may take a slot now, takes it and completes its own token).
//   - Release gives an execution's slot to the oldest waiter in one conditional write (the slot
//     never passes through "free", so no newcomer can take it) and wakes that waiter with
//     SendTaskSuccess. A waiter whose execution has died is skipped: its slot goes to the next
//     one. Release of an execution that only waits removes it from the queue.
//
// Every write is conditional on what was read, so two callers racing on one lock (a release,
// the cleanup, the reconciler, a waiter's own re-check) never lose or duplicate a slot: the
// loser reads again. A wake-up that is lost (the writer crashed before SendTaskSuccess, or the
// token was stale) costs the waiter one fallback period: it re-parks, finds that it holds a
// slot, and goes on.
package waitqueue
