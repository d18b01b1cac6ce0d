package waitqueue

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// write is one conditional UpdateItem on a lock item.
type write struct {
	what         string
	update       string
	condition    string
	names        map[string]string
	values       map[string]types.AttributeValue
	returnValues types.ReturnValue
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }
func num(n int) types.AttributeValue    { return &types.AttributeValueMemberN{Value: strconv.Itoa(n)} }

// enqueueWrite appends the execution to the queue with its token and draws its ticket, only
// while it must wait: the lock is full or others wait, and it neither holds a slot nor waits.
func enqueueWrite(execution, token string, limit int) write {
	return write{
		what:   "enqueue",
		update: "SET #queue = list_append(if_not_exists(#queue, :empty), :me), #token = :token, #tickets = if_not_exists(#tickets, :zero) + :one",
		condition: "attribute_exists(#count) AND attribute_not_exists(#holder) AND attribute_not_exists(#token) AND " +
			"(#count >= :limit OR size(#queue) > :zero)",
		names: map[string]string{
			"#queue": machines.AttributeQueue, "#token": tokenAttribute(execution), "#tickets": machines.AttributeQueueTickets,
			"#count": machines.AttributeHolderCount, "#holder": execution,
		},
		values: map[string]types.AttributeValue{
			":empty": &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			":me":    &types.AttributeValueMemberL{Value: []types.AttributeValue{str(execution)}},
			":token": str(token), ":zero": num(0), ":one": num(1), ":limit": num(limit),
		},
		returnValues: types.ReturnValueUpdatedNew,
	}
}

// refreshTokenWrite replaces a queued execution's token (its earlier task timed out).
func refreshTokenWrite(execution, token string) write {
	return write{
		what:      "refresh the token",
		update:    "SET #token = :token",
		condition: "attribute_exists(#token)",
		names:     map[string]string{"#token": tokenAttribute(execution)},
		values:    map[string]types.AttributeValue{":token": str(token)},
	}
}

// acquireWrite is the semaphore's own acquire (machines.AcquireConditionExpression).
func acquireWrite(execution, now string, limit int) write {
	return write{
		what:      "acquire",
		update:    machines.AcquireUpdateExpression,
		condition: machines.AcquireConditionExpression,
		names:     machines.AcquireExpressionNames(execution),
		values:    map[string]types.AttributeValue{":zero": num(0), ":one": num(1), ":limit": num(limit), ":now": str(now)},
	}
}

// admitHeadWrite gives a free slot to the oldest waiter, dequeuing it.
func admitHeadWrite(head, now string, limit int) write {
	return write{
		what:      "admit the oldest waiter",
		update:    "SET #count = #count + :one, #head = :now, #admissions = if_not_exists(#admissions, :zero) + :one REMOVE #queue[0], #token",
		condition: "#count < :limit AND #queue[0] = :head AND attribute_not_exists(#head)",
		names: map[string]string{
			"#count": machines.AttributeHolderCount, "#head": head, "#queue": machines.AttributeQueue, "#token": tokenAttribute(head),
			"#admissions": machines.AttributeQueueAdmissions,
		},
		values:       map[string]types.AttributeValue{":one": num(1), ":zero": num(0), ":now": str(now), ":limit": num(limit), ":head": str(head)},
		returnValues: types.ReturnValueUpdatedNew,
	}
}

// handOffWrite moves the holder's slot to the oldest waiter and dequeues it, with the token
// read, in one write: the counter does not change.
// A head without a token (none was read) is handed the slot only while it still has none.
func handOffWrite(holder, head, headToken, now string, limit int) write {
	w := write{
		what:      "hand the slot off",
		update:    "SET #head = :now, #admissions = if_not_exists(#admissions, :zero) + :one REMOVE #holder, #queue[0], #token",
		condition: "attribute_exists(#holder) AND #queue[0] = :head AND attribute_not_exists(#head) AND #token = :token AND #count <= :limit",
		names: map[string]string{
			"#holder": holder, "#head": head, "#queue": machines.AttributeQueue, "#token": tokenAttribute(head),
			"#admissions": machines.AttributeQueueAdmissions, "#count": machines.AttributeHolderCount,
		},
		values: map[string]types.AttributeValue{
			":now": str(now), ":head": str(head), ":token": str(headToken), ":zero": num(0), ":one": num(1), ":limit": num(limit),
		},
		returnValues: types.ReturnValueUpdatedNew,
	}
	if headToken == "" {
		w.condition = "attribute_exists(#holder) AND #queue[0] = :head AND attribute_not_exists(#head) AND attribute_not_exists(#token) AND #count <= :limit"
		delete(w.values, ":token")
	}
	return w
}

// releaseWrite is the plain release, only while nobody waits.
func releaseWrite(holder string) write {
	return write{
		what:      "release",
		update:    machines.ReleaseUpdateExpression,
		condition: machines.ReleaseWithoutWaitersConditionExpression,
		names:     map[string]string{"#count": machines.AttributeHolderCount, "#holder": holder, "#queue": machines.AttributeQueue},
		values:    map[string]types.AttributeValue{":one": num(1), ":zero": num(0)},
	}
}

// overLimitReleaseWrite gives the holder's slot back to a lock that holds more than limit (the
// limit was lowered), although executions wait: handing it on would keep the count over.
func overLimitReleaseWrite(holder string, limit int) write {
	return write{
		what:      "release over the limit",
		update:    machines.ReleaseUpdateExpression,
		condition: "attribute_exists(#holder) AND #count > :limit",
		names:     map[string]string{"#count": machines.AttributeHolderCount, "#holder": holder},
		values:    map[string]types.AttributeValue{":one": num(1), ":limit": num(limit)},
	}
}

// dequeueWrite removes a waiter at position i of the queue, with its token.
func dequeueWrite(execution string, i int) write {
	return write{
		what:      "dequeue",
		update:    "REMOVE #queue[" + strconv.Itoa(i) + "], #token",
		condition: "#queue[" + strconv.Itoa(i) + "] = :me",
		names:     map[string]string{"#queue": machines.AttributeQueue, "#token": tokenAttribute(execution)},
		values:    map[string]types.AttributeValue{":me": str(execution)},
	}
}

// counterOf reads a counter attribute from a write's UPDATED_NEW attributes (0 when absent).
func counterOf(attrs map[string]types.AttributeValue, name string) int64 {
	n, ok := attrs[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}
