// Package lock is Turnstile's lock protocol: the lock table's data model and the operations on
// it, used by the hand-off function, the reconciler, slot.Verify, the CLI and the checks; the
// state machines send the same expressions (asl/machines takes them from here).
//
// # Data model
//
// A lock is a partition of the lock table (partition key LockName, sort key Entry) of small
// items, none of which grows with the limit or the backlog:
//
//   - the counter item, Entry "lock": AttributeCount, the number of holders, and
//     AttributeTickets, the number of tickets drawn;
//   - one holder item per holding execution, Entry "h#<execution ARN>", with AttributeSince
//     and AttributeGrantedBy (whose operation put it: read-backs of unanswered transactions
//     tell their own grant from another's by it);
//   - one waiter item per waiting execution, Entry "w#<ticket, 16 digits>", with the
//     execution's ARN and the task token that wakes it. Sort order is ticket order, so one
//     Query from "lock" on reads the counter and the oldest waiters together.
//
// The invariant, at every moment: the counter equals the number of holder items and never
// exceeds the limit; no execution both holds and waits. Every change of the counter happens in
// one transaction with the holder item it counts, and a hand-off deletes the releaser's holder
// item, creates the waiter's and deletes its waiter item in one transaction, so the counter
// does not move. Transactions are idempotent under the SDK's retries (it sends the same
// ClientRequestToken), and every item carries a condition, so a repeated or racing operation
// fails instead of counting twice.
//
// # Operations and their costs
//
// Write units: a write costs ceil(item size / 1 KB) units; a transactional write twice that
// per item. Holder items and the counter item are under 1 KB; a waiter item is about
// 0.2 KB plus its task token (AWS's are about 0.7 KB, so a waiter item is one unit).
//
//   - Draw a ticket (the state machine, before it parks; DrawTicketUpdate): 1 write unit.
//   - Park (Client.Park): a read of the counter; below the limit with no older waiter, the
//     acquire transaction (counter + holder item: 4 units); otherwise the waiter item (1 unit)
//     and a read of the counter and the queue's head.
//   - Release with waiters (Client.Release): one Query (counter + oldest waiters), the hand-off
//     transaction (releaser's holder item, waiter's holder item, waiter item: 6 units), and
//     the waiter's wake-up (SendTaskSuccess).
//   - Release without waiters: the release transaction (counter + holder item: 4 units).
//
// An execution that waits costs about 1 + 1 + 6 = 8 write units in all, whatever the backlog
// and the limit; one that finds a free slot 1 + 4 + 4 = 9.
//
// # Waiting, and why nobody is forgotten
//
// A waiter's place is its ticket, drawn from the counter item before it parks; a lost reply
// there costs an unused ticket, which nobody waits for (the queue is read, not counted). A
// newcomer that finds a free slot takes it only if no older waiter exists (else it admits the
// oldest); so no newcomer overtakes a waiter. The two sides of a freed slot check each other: a
// release that found nobody waiting reads the queue again after counting its slot back, and a
// waiter reads the counter again after it joined the queue; whichever comes second sees the
// other and admits the oldest waiter. A woken waiter whose execution is dead gives its slot on
// at once; a waiter whose wake-up was lost finds its slot when its task times out and it parks
// again (Again).
package lock
