// Package lock is Turnstile's lock protocol: the lock table's data model and the operations on
// it, used by the hand-off function, the reconciler, slot.Verify, the CLI and the checks; the
// state machines send the same expressions (asl/machines takes them from here).
//
// # Data model
//
// A lock is a partition of the lock table (partition key LockName, sort key Entry) of small
// items, none of which grows with the limit or the backlog:
//
//   - the counter item, Entry "lock": AttributeCount, the number of holders,
//     AttributeTickets, the number of tickets drawn, AttributeChanges, the number of changes
//     of the count (for readers of several items), and the lock's steering: AttributeLimit,
//     its live limit (absent, the callers' configured limit applies), AttributeLimitOverride
//     when that limit is the lock's own, AttributeSemaphore, the semaphore whose default it
//     follows, AttributePaused while it admits nobody, and AttributeHerdUntil, the herd mark
//     (below), which only the releases' timing reads;
//   - one holder item per holding execution, Entry "h#<execution ARN>", with AttributeSince
//     and AttributeGrantedBy (whose operation put it: read-backs of unanswered transactions
//     tell their own grant from another's by it);
//   - one waiter item per waiting execution, Entry "w#<ticket, 16 digits>", with the
//     execution's ARN and the task token that wakes it, and AttributePassed once an older
//     waiter that joined after it marked it (below). Sort order is ticket order, so one
//     Query from "lock" on reads the counter and the oldest waiters together.
//   - one waiter item per queued submission (Submit), in the same queue under its ticket, with
//     the execution ARN it will start as (name "sub-<id>"), AttributeSubmission,
//     AttributeStateMachine, AttributeInput and AttributeExpires instead of a task token; the
//     holder item its grant puts carries the same, until its execution releases;
//   - in the partition SubmissionPartition(lock) ("<lock>#submissions"), one status item per
//     submission with an outcome, sort key its id: AttributeOutcome (started, cancelled,
//     expired, failed), AttributeExecution, AttributeReason, and AttributeTimeToLive
//     (StatusRetention after the outcome: the table's time to live deletes it then).
//
// Besides the locks, one defaults item per semaphore whose default an operator set: partition
// DefaultsPartition ("#defaults"), sort key the semaphore's state machine ARN, AttributeLimit
// its default limit.
//
// The invariant, at every moment: the counter equals the number of holder items and never
// exceeds the limit; no execution both holds and waits. Every change of the counter happens in
// one transaction with the holder item it counts, and a hand-off deletes the releaser's holder
// item, creates the waiter's and deletes its waiter item in one transaction, so the counter
// does not move. Transactions are idempotent under the SDK's retries (each carries a
// ClientRequestToken of its own, which the retries send again), and every item carries a
// condition, so a repeated or racing operation fails instead of counting twice. A give-back
// whose answer never came is sent again under its token, which tells what this try did.
//
// # Operations and their costs
//
// Write units: a write costs ceil(item size / 1 KB) units; a transactional write twice that
// per item. Holder items and the counter item are under 1 KB; a waiter item is about
// 0.2 KB plus its task token (AWS's are about 0.7 KB, so a waiter item is one unit).
//
//   - Draw a ticket (the state machine, before it parks; DrawTicketUpdate): 1 write unit.
//   - Park (Client.Park): one Query of the counter and the queue's head; below the limit with
//     no older waiter, the acquire transaction (counter + holder item: 4 units); otherwise the
//     waiter item (1 unit) and a read of the counter and the queue's head again (and a mark,
//     1 unit, of each younger waiter already queued at the head: a waiter joining late).
//   - Release with waiters (Client.Release): one Query (counter + oldest waiters), the hand-off
//     transaction (releaser's holder item, waiter's holder item, waiter item: 6 units), and
//     the waiter's wake-up (SendTaskSuccess).
//   - Release without waiters: the release transaction (counter + holder item: 4 units).
//
// An execution that waits costs about 1 + 1 + 6 = 8 write units in all, whatever the backlog
// and the limit; one that finds a free slot 1 + 4 + 4 = 9.
//
// Releases that reach for the head of the line together (work of equal length ending at one
// moment: a herd) contend: one hand-off a round trip can win it, since the oldest waiter is
// served first, and a release that loses pays its cancelled transaction (one write unit per
// item: 3). It then waits, before it reads again, a time drawn at random from a window of one
// round trip of its own (measured) per holder of the lock, at most 12 s halved at each further
// loss and at most an eighth of the time its slot was held (the slot idles meanwhile: one read
// of its holder item's AttributeSince, once, when that window is wider than the usual 50 ms
// doubling to 2 s). A herd then loses about once per release, whatever its size, instead of
// once per release and round. On a lock of HerdHolders holders or more, the first release
// to lose (its read showed no mark) also writes the herd mark, AttributeHerdUntil on the
// counter item, for its own window (1 write unit), unless the time its slot was held cut that
// window short (spreading over too short a window would idle the slots and lose as much); a
// release whose first read (the Query it makes anyway) finds the mark spreads its first try
// over the herd window before reaching for the head, so that most of the herd does not lose
// at all. Below HerdHolders nothing is marked or spread: a release hands on as soon as it
// reads. The mark is a plain write of the counter item: on AWS it conflicts with a transaction
// on that item in flight at the same moment (TransactionConflict), which is then read again and
// retried as any conflict, and a mark that fails is dropped (it only changes when releases
// try). See the README's scale table for the figures.
//
// A park in a burst at the limit may find a free slot that another park takes before its
// acquire lands: the limit refuses the acquire (a cancelled transaction, 2 write units), and the
// park queues at once, without reading again (the queue's double check, below, finds a slot
// freed meanwhile).
//
// # Submissions (admission control)
//
// A submission waits in the lock's queue like a parked execution but is not an execution yet.
// Whatever hands a slot to the oldest in line (Release, Admit, a park or a submission that finds
// a free slot and an older waiter) grants it, when that is a submission, to the execution the
// submission will start as, with the same transaction as any hand-off; then it records the
// outcome "started" and calls StartExecution with the name derived from the id, so a repeated
// start (a lost reply, a duplicated wake-up, a repair) can never make a second execution. The
// started execution parks as any (a ticket, then Park), finds its holder item (IsSubmitted) and
// goes straight to the work. A start that fails for good records "failed" with the Step
// Functions error code and releases the slot to the next in line; one that fails for now, or a
// crash between the grant and the start, leaves the grant, which the reconciler finishes
// (RepairGrant). An expired submission is removed by whoever reaches it ("expired"); Cancel
// removes a queued one ("cancelled").
//
// Costs: Submit draws a ticket (1 write unit) and puts its waiter item (1 unit, inputs under
// about 0.8 KB); its grant is the hand-off transaction (6 units, the releaser's) and the status
// item (1 unit); its execution draws a ticket (1 unit) and releases (the next hand-off, or 4
// units). About 10 write units per submission in all, whatever the backlog. Submissions need
// the Callback strategy: a Poll machine releases in the state machine, which starts nobody.
//
// # Limits, pause and drain
//
// The limit lives in the table. A lock's first park (its counter item has no AttributeLimit)
// reads its semaphore's defaults item (the state machine of the execution's ARN; without one,
// the caller's configured limit is the default) and copies the default into the counter item:
// a read and a write once per lock (paid by each execution that parks before the first such
// write lands), none on the common path, which reads the counter item anyway. Every admission checks the live limit: the acquire condition
// (AcquireCountCondition) compares the count with AttributeLimit, or without it with the
// configured :limit, and fails while AttributePaused is present; a release hands its slot on
// only while the lock holds no more than its limit and is not paused, and otherwise gives it
// back. So lowering the limit admits nobody until the holders above it have finished, and
// pausing keeps the queue as it is.
//
//   - SetLimit: one write of the counter item (marking it AttributeLimitOverride), then Admit.
//   - SetDefaultLimit: a write of the defaults item, a consistent Scan for the semaphore's
//     counter items without an override, a write of each, then Admit on each. A first park
//     concurrent with it needs no transaction: the defaults item is written before the scan,
//     so a counter item that existed before it is found and set, and one created after it
//     reads the new default (its first park's conditional write fails if the scan set it
//     first).
//   - Admit: the admission of a release that finds a free slot (the acquire transaction for
//     the oldest waiter, its waiter item deleted, and its wake-up), while the lock admits.
//   - Pause and Resume: one write of the counter item; Resume then Admits.
//   - Drain: per waiter, a conditional delete of its waiter item (1 unit) and SendTaskFailure
//     with ErrorDrained; the machine lets the error through, so the execution fails holding
//     nothing.
//
// # Waiting, and why nobody is forgotten
//
// A waiter's place is its ticket, drawn from the counter item before it parks; a lost reply
// there costs an unused ticket, which nobody waits for (the queue is read, not counted). A
// newcomer that finds a free slot takes it only if no older waiter exists (else it admits the
// oldest); so no newcomer overtakes a waiter. The two sides of a freed slot check each other: a
// release that found nobody waiting reads the queue again after counting its slot back, and a
// waiter reads the counter again after it joined the queue; whichever comes second sees the
// other and admits the oldest waiter.
//
// Waiters join in ticket order but for delayed requests, and a grant (a hand-off or an
// admission) reaches for the oldest waiter its read showed, in a transaction that may land
// much later (the SDK retrying a request lost on its way). A waiter that joined after that
// read, with an older ticket, would be passed over. So a waiter that joins reads the head of
// the queue (the read of the double check, twice as deep as a grant's) and marks every younger
// waiter in it (AttributePassed, one write each) before it says it waits, and a grant deletes
// its waiter's item only while that item's mark is what the grant read: a grant read before
// the older waiter joined fails, and reads again. Only a waiter that joins behind younger ones
// at the head of the queue pays for marks. The grants in flight it covers are those whose
// target is still among the first 2·DefaultLookAhead waiters: passed over, a target moves
// back by one place for each older waiter joining late, so the window is left only by more
// than DefaultLookAhead waiters joining late at once ahead of one grant in flight. Not
// covered: a newcomer's acquire read before such a waiter joined (no older waiter then) that
// lands after it said it waits, into a slot given back by a release read before it joined
// too; the late waiter cannot tell them apart from any other newcomer and release without a
// write of the counter item on every park. A woken waiter whose execution is dead gives its slot on
// at once; a waiter whose wake-up was lost finds its slot when its task times out and it parks
// again (Again).
//
// # Priorities
//
// A semaphore with priorities parks each waiter under Place(ticket, priority, ageing) instead
// of its ticket: the waiter item's sort key still orders the queue, so everything above holds
// with "place" for "ticket" (the oldest waiter is the one with the lowest place), and the costs
// do not change. Higher priorities come first, first in, first out within a priority; the
// ageing step bounds the overtaking (see Place): a waiter of priority p is overtaken by at most
// (q-p)·ageing later arrivals of each priority q above it.
//
// # Weighted permits
//
// An execution may take several slots (ParkRequest.Weight, 1 to the limit; above the live
// limit, ErrWeightAboveLimit). Its waiter and holder items carry AttributeWeight, the counter
// counts held weight, and the invariant reads: the counter equals the sum of the holders'
// weights and never exceeds the limit. The head of the line is served strictly first in, first
// out: a waiter that does not fit blocks the lighter ones behind it until enough is released
// (heavy waiters never starve; the price is the throughput lost while slots wait for the
// head). A release of weight w hands on to a head of weight w' in one transaction that moves
// the counter by w'-w within the room the limit leaves (WeightedGrowCondition); when the head
// does not fit, the release gives its weight back; whatever is left free after a hand-off,
// an admission or a heavy waiter's leave goes on to the next waiters that fit. Costs: a lock
// whose executions all weigh 1 sends exactly the requests above; a weighted lock's counter item
// is marked AttributeWeighted (one write, by the first heavy waiter), and each of its releases
// reads the holder's weight first (one strongly consistent read).
package lock
