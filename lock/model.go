package lock

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The lock table's key schema: every item of a lock shares the lock's partition, and the sort
// key tells the items apart (the package comment lists them).
const (
	// AttributeLockName is the partition key (a string): the lock's name.
	AttributeLockName = "LockName"
	// AttributeEntry is the sort key (a string): EntryLock, HolderEntry(execution) or
	// WaiterEntry(ticket).
	AttributeEntry = "Entry"
)

// EntryLock is the sort key of a lock's counter item.
const EntryLock = "lock"

// Prefixes of the sort keys of holder and waiter items. In sort order a lock's partition
// reads: its holders ("h#…"), its counter item ("lock"), its waiters ("w#…") oldest first.
const (
	HolderPrefix = "h#"
	WaiterPrefix = "w#"
)

// ticketDigits is the width of a waiter's zero-padded ticket in its sort key, so that the sort
// order of the keys is the order of the tickets.
const ticketDigits = 16

// Attributes of the items.
const (
	// AttributeCount is the counter item's number of holders. The name is the AWS sample's.
	AttributeCount = "currentlockcount"
	// AttributeTickets is the counter item's number of tickets drawn: each execution that
	// may have to wait draws the next one first, and its place in the queue is its ticket.
	AttributeTickets = "tickets"
	// AttributeChanges is the counter item's number of changes of its count: every acquire,
	// admission and release adds one, so that a reader of several items (Client.Read) tells a
	// lock that came back to the same count (one holder in, one out) from one that stood still.
	AttributeChanges = "changes"
	// AttributeSince is when a holder took its slot, or a waiter joined the queue
	// ($$.State.EnteredTime's format).
	AttributeSince = "since"
	// AttributeGrantedBy is, on a holder item, the execution whose operation put it: the
	// releaser of a hand-off, the admitting operation's execution for a free slot, the holder
	// itself for an acquire. A read-back of an operation whose reply was lost tells its own
	// hand-off from another's by it.
	AttributeGrantedBy = "grantedBy"
	// AttributeExecution is a waiter's execution ARN.
	AttributeExecution = "execution"
	// AttributeToken is a waiter's task token: completing it wakes the waiter.
	AttributeToken = "token"
	// AttributeLimit is the counter item's live limit (a number). Absent, the limit the
	// caller was configured with applies (the construct's Limit, in the machine definition).
	AttributeLimit = "limit"
	// AttributeLimitOverride marks a counter item whose AttributeLimit an operator set for
	// this key alone: changing the semaphore's default leaves it alone.
	AttributeLimitOverride = "limitOverride"
	// AttributePaused marks a paused counter item: nobody is admitted while it is present.
	AttributePaused = "paused"
	// AttributeSemaphore is the counter item's semaphore (the state machine ARN whose default
	// limit it follows), and the sort key of a defaults item.
	AttributeSemaphore = "semaphore"
	// AttributeHerdUntil is the counter item's herd mark: until when (Unix milliseconds) a
	// release of a lock of at least HerdHolders holders spreads its first try over the herd's
	// window, because a release lost the head of the line to another (release.go). Only the
	// releases' timing reads it.
	AttributeHerdUntil = "herdUntil"
	// AttributePassed is, on a waiter item, how many times a waiter with an older place that
	// joined the queue after it marked it (the mark of the late, park.go); absent, none has. A
	// grant takes a waiter item only while it is still what the grant's read showed, so a grant
	// read before an older waiter joined cannot land after it: the older one marked its target.
	AttributePassed = "passed"
)

// DefaultsPartition is the partition key of the defaults items: one per semaphore whose
// default an operator set (without one, the machine's configured limit is the default), sort
// key the semaphore's state machine ARN, AttributeLimit its default limit. No lock item has a
// state machine ARN for a sort key, so a lock named like it clashes with nothing.
const DefaultsPartition = "#defaults"

// HolderPartitionSuffix ends the partition key of a lock's holder items, which live apart from
// its counter and waiter items: a hand-off writes both partitions, so that neither takes every
// write of the lock (each partition of DynamoDB takes at most 1,000 write units a second).
const HolderPartitionSuffix = "#holders"

// HolderPartition is the partition key of lock's holder items.
func HolderPartition(lock string) string { return lock + HolderPartitionSuffix }

// LockOfHolders reads the lock back from a holder partition's key; ok is false for any other.
func LockOfHolders(partition string) (lock string, ok bool) {
	return strings.CutSuffix(partition, HolderPartitionSuffix)
}

// HolderKey is the primary key of the holder item of execution in lock.
func HolderKey(lock, execution string) map[string]types.AttributeValue {
	return Key(HolderPartition(lock), HolderEntry(execution))
}

// HolderEntry is the sort key of the holder item of execution.
func HolderEntry(execution string) string { return HolderPrefix + execution }

// WaiterEntry is the sort key of the waiter item of ticket.
func WaiterEntry(ticket int64) string {
	return fmt.Sprintf("%s%0*d", WaiterPrefix, ticketDigits, ticket)
}

// Priorities. A lock's waiters either all have a priority or none has (a semaphore passes one
// with every park, or never): with priorities, a waiter's place in the queue is
// Place(ticket, priority, ageing) instead of its ticket, so one Query from "lock" on still reads
// the head of the queue, and every cost stays what it is without priorities.
const (
	// MinPriority is the lowest priority.
	MinPriority = 0
	// MaxPriority is the highest priority.
	MaxPriority = 9
	// MaxPriorityAgeing is the largest ageing step of Place: it keeps every place within the
	// 16 digits of a waiter's sort key for the first 10^13 tickets of a lock.
	MaxPriorityAgeing = 1_000_000
)

// Place is the place in the queue, in the waiter's sort key (WaiterEntry), of the execution
// with ticket and priority (MinPriority to MaxPriority) on a lock whose waiters have
// priorities, with ageing step ageing (at least 1): the waiter queues as if it had drawn its
// ticket (MaxPriority-priority)·ageing tickets later, so higher priorities come first,
// first in first out within a priority, and each later arrival ages the waiters before it.
//
// The starvation bound: a waiter of priority p is overtaken by at most (q-p)·ageing executions
// of priority q > p that drew their tickets after it, and by none of priority p or lower; an
// execution of priority q is admitted before every waiter of priority p < q that drew its
// ticket fewer than (q-p)·ageing tickets earlier. Places are distinct (the last digit is
// MaxPriority-priority) and ordered by (ticket + (MaxPriority-priority)·ageing, then higher
// priority first).
func Place(ticket int64, priority int, ageing int64) int64 {
	behind := int64(MaxPriority - priority)
	return (ticket+behind*ageing)*(MaxPriority+1) + behind
}

// CheckPriority returns an ErrInvalidRequest error unless priority and ageing are in range.
func CheckPriority(priority int, ageing int64) error {
	switch {
	case priority < MinPriority || priority > MaxPriority:
		return fmt.Errorf("%w: priority %d out of range: give an integer from %d to %d", ErrInvalidRequest, priority, MinPriority, MaxPriority)
	case ageing < 1 || ageing > MaxPriorityAgeing:
		return fmt.Errorf("%w: priority ageing %d out of range: give an integer from 1 to %d", ErrInvalidRequest, ageing, MaxPriorityAgeing)
	}
	return nil
}

// TicketOf reads the ticket back from a waiter item's sort key; ok is false for any other key.
func TicketOf(entry string) (ticket int64, ok bool) {
	digits, found := strings.CutPrefix(entry, WaiterPrefix)
	if !found {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

// ExecutionOf reads the execution back from a holder item's sort key; ok is false for any other key.
func ExecutionOf(entry string) (execution string, ok bool) {
	return strings.CutPrefix(entry, HolderPrefix)
}

// Key is the primary key of a lock's item.
func Key(lock, entry string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		AttributeLockName: &types.AttributeValueMemberS{Value: lock},
		AttributeEntry:    &types.AttributeValueMemberS{Value: entry},
	}
}

// Expressions of the operations that change the holder count, shared by the state machines
// (which send them through the AWS SDK integration for TransactWriteItems) and this package.
// #count names AttributeCount, #entry AttributeEntry.
const (
	// AcquireCountUpdate counts one more holder, creating the counter item on first use.
	AcquireCountUpdate = "SET #count = if_not_exists(#count, :zero) + :one ADD #changes :one"
	// AcquireCountCondition admits only while the lock is not paused (#paused) and its count
	// is below its live limit (#limit), or, without one, below the caller's :limit; strictly
	// "<", so lowering the limit stops admissions.
	AcquireCountCondition = "attribute_not_exists(#paused) AND (attribute_not_exists(#count) OR (attribute_not_exists(#limit) AND #count < :limit) OR #count < #limit)"
	// ReleaseCountUpdate counts one holder less.
	ReleaseCountUpdate = "SET #count = #count - :one ADD #changes :one"
	// ReleaseCountCondition keeps the counter from going negative.
	ReleaseCountCondition = "#count > :zero"
	// ItemAbsent is the condition of a holder or waiter item's creation.
	ItemAbsent = "attribute_not_exists(#entry)"
	// ItemPresent is the condition of a holder or waiter item's removal.
	ItemPresent = "attribute_exists(#entry)"
	// DrawTicketUpdate draws the next ticket; the new AttributeTickets is the ticket.
	DrawTicketUpdate = "SET #tickets = if_not_exists(#tickets, :zero) + :one"
)

// AcquireCountNames are the expression attribute names of AcquireCountUpdate and
// AcquireCountCondition: #count, #changes, #limit and #paused.
func AcquireCountNames() map[string]string {
	return map[string]string{"#count": AttributeCount, "#changes": AttributeChanges, "#limit": AttributeLimit, "#paused": AttributePaused}
}

// ReleaseCountNames are the expression attribute names of ReleaseCountUpdate and
// ReleaseCountCondition: #count and #changes.
func ReleaseCountNames() map[string]string {
	return map[string]string{"#count": AttributeCount, "#changes": AttributeChanges}
}

// MaxLimit is the largest limit a lock takes. The counter item stays small whatever the
// limit (each holder is an item of its own), so the bound only keeps a typo from reading as a
// deliberate choice.
const MaxLimit = 1_000_000

// MaxLockNameBytes is the longest lock name: DynamoDB's limit for a partition key value, less
// HolderPartitionSuffix.
const MaxLockNameBytes = 2048 - len(HolderPartitionSuffix)

// IAM actions on the lock table, by user. A transaction needs the action of each of its
// writes.
var (
	// ClientActions are what a Client's operations need: the hand-off function's, the
	// reconciler's (with dynamodb:Scan), the CLI's.
	ClientActions = []string{"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"}
	// AcquireActions are what the acquire transaction and its read-back need.
	AcquireActions = []string{"dynamodb:UpdateItem", "dynamodb:PutItem", "dynamodb:Query"}
	// ReleaseActions are what the release transaction and its read-back need.
	ReleaseActions = []string{"dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:Query"}
	// TicketActions are what drawing a ticket needs.
	TicketActions = []string{"dynamodb:UpdateItem"}
)
