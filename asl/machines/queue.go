package machines

import "strings"

// The wait queue of the Callback wait strategy lives in the lock item beside the holders
// (docs/architecture.md, "Waiting: Callback"), so that one conditional write can move a slot
// from its holder to the oldest waiter and dequeue that waiter at once:
//
//   - AttributeQueue, a list of execution ARNs in enqueue order (the oldest first);
//   - one AttributeWaiterTokenPrefix+ARN attribute per queued execution, holding the task token
//     of its parked "Wait In Queue" task;
//   - AttributeQueueTickets, the number of enqueues ever made on the lock: each waiter's ticket,
//     returned by the enqueue, shows its place in the order of arrival.
//
// Holder attributes are the attributes whose name starts with "arn:" (IsHolderAttribute); the
// queue's attributes never do.
const (
	// AttributeQueue is the list of waiting execution ARNs, oldest first.
	AttributeQueue = "waitqueue"
	// AttributeQueueTickets counts the enqueues made on the lock.
	AttributeQueueTickets = "waitqueuetickets"
	// AttributeQueueAdmissions counts the waiters admitted from the lock's queue: each woken
	// waiter learns its admission number, so that admission order can be checked against
	// arrival order.
	AttributeQueueAdmissions = "waitqueueadmissions"
	// AttributeWaiterTokenPrefix, followed by a waiter's execution ARN, names the attribute that
	// holds the waiter's task token.
	AttributeWaiterTokenPrefix = "waittoken "
)

// IsHolderAttribute reports whether a lock item's attribute name is a holder's (an execution
// ARN), as opposed to the key, the counter or the wait queue's attributes.
func IsHolderAttribute(name string) bool { return strings.HasPrefix(name, "arn:") }

// The expressions of the Callback strategy's fast release. #queue names AttributeQueue.
const (
	// QueueEmptyCondition is true when no execution waits in the lock's queue.
	QueueEmptyCondition = "(attribute_not_exists(#queue) OR size(#queue) = :zero)"
	// ReleaseWithoutWaitersConditionExpression lets an execution give its slot back with a
	// plain release only while nobody waits; otherwise the slot is handed to the oldest waiter
	// by the hand-off function.
	ReleaseWithoutWaitersConditionExpression = "attribute_exists(#holder) AND " + QueueEmptyCondition
)

// AcquireExpressionNames returns the ExpressionAttributeNames of the acquire's expressions for
// holder, an execution ARN, for Go callers that send the acquire themselves.
func AcquireExpressionNames(holder string) map[string]string {
	return map[string]string{"#count": AttributeHolderCount, "#holder": holder, "#queue": AttributeQueue}
}
