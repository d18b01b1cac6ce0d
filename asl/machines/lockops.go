package machines

import (
	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Resources of the lock table's tasks.
const (
	// ResourceUpdateItem is the optimized DynamoDB UpdateItem integration (drawing a ticket).
	ResourceUpdateItem = "arn:aws:states:::dynamodb:updateItem"
	// ResourceTransactWriteItems is the AWS SDK integration's TransactWriteItems: the acquire
	// and the release change the counter and a holder item together.
	ResourceTransactWriteItems = "arn:aws:states:::aws-sdk:dynamodb:transactWriteItems"
	// ResourceQuery is the AWS SDK integration's Query: it counts a holder item, and answers
	// Count 0 when there is none (a GetItem of a missing item has no Item to select).
	ResourceQuery = "arn:aws:states:::aws-sdk:dynamodb:query"
)

// Error names of the lock table's tasks, as Step Functions reports them: "DynamoDB." for the
// optimized integration, "DynamoDb." for the AWS SDK integration.
const (
	// ErrorTransactionCanceled: a condition of the acquire or release transaction failed (no
	// free slot, not a holder), or the transaction conflicted with another one.
	ErrorTransactionCanceled = "DynamoDb.TransactionCanceledException"
)

// lockRef tells a lock task where, in the state's data, the lock's name and the execution are.
type lockRef struct {
	table     string
	lockName  string // a path to the lock's name
	execution string // a path to the execution's ARN
}

// partition is the lock-name half of a key.
func (r lockRef) partition() map[string]any {
	return map[string]any{"S.$": r.lockName}
}

// counterKey is the key of the lock's counter item.
func (r lockRef) counterKey() map[string]any {
	return map[string]any{lock.AttributeLockName: r.partition(), lock.AttributeEntry: map[string]any{"S": lock.EntryLock}}
}

// holderPartition is the partition key of the lock's holder items (lock.HolderPartition).
func (r lockRef) holderPartition() map[string]any {
	return map[string]any{"S.$": "States.Format('{}" + lock.HolderPartitionSuffix + "', " + r.lockName + ")"}
}

// holderKey is the key of the execution's holder item.
func (r lockRef) holderKey() map[string]any {
	return map[string]any{
		lock.AttributeLockName: r.holderPartition(),
		lock.AttributeEntry:    map[string]any{"S.$": "States.Format('" + lock.HolderPrefix + "{}', " + r.execution + ")"},
	}
}

// acquireTask takes a slot for the execution: the counter below its live limit (or, without one,
// limit) and not paused counts one more, and the execution's holder item is created, in one
// transaction. It cancels (ErrorTransactionCanceled) when the lock is full or paused, or the
// execution holds a slot already.
func (r lockRef) acquireTask(limit int, next string, catch []*asl.Catcher) *asl.Task {
	holder := r.holderKey()
	holder[lock.AttributeSince] = map[string]any{"S.$": "$$.State.EnteredTime"}
	counter := r.counterUpdate(lock.AcquireCountUpdate, lock.AcquireCountCondition, lock.AcquireCountNames())
	counter["Update"].(map[string]any)["ExpressionAttributeValues"].(map[string]any)[":limit"] = number(limit)
	return r.transaction(next, catch, counter, map[string]any{"Put": map[string]any{
		"TableName":                r.table,
		"Item":                     holder,
		"ConditionExpression":      lock.ItemAbsent,
		"ExpressionAttributeNames": map[string]any{"#entry": lock.AttributeEntry},
	}})
}

// releaseTask gives the execution's slot back: the counter counts one less and the holder item
// goes, in one transaction. It cancels when the execution holds no slot (or on a conflict;
// the read-back after it tells).
func (r lockRef) releaseTask(next string, catch []*asl.Catcher) *asl.Task {
	return r.transaction(next, catch, r.counterUpdate(lock.ReleaseCountUpdate, lock.ReleaseCountCondition, lock.ReleaseCountNames()), map[string]any{"Delete": map[string]any{
		"TableName":                r.table,
		"Key":                      r.holderKey(),
		"ConditionExpression":      lock.ItemPresent,
		"ExpressionAttributeNames": map[string]any{"#entry": lock.AttributeEntry},
	}})
}

// counterUpdate is the transaction item that changes the counter with update under condition,
// whose attribute names are names; its values hold :zero and :one.
func (r lockRef) counterUpdate(update, condition string, names map[string]string) map[string]any {
	attributeNames := map[string]any{}
	for k, v := range names {
		attributeNames[k] = v
	}
	return map[string]any{"Update": map[string]any{
		"TableName":                 r.table,
		"Key":                       r.counterKey(),
		"UpdateExpression":          update,
		"ConditionExpression":       condition,
		"ExpressionAttributeNames":  attributeNames,
		"ExpressionAttributeValues": map[string]any{":zero": number(0), ":one": number(1)},
	}}
}

// transaction is the TransactWriteItems task of items, going to next.
func (r lockRef) transaction(next string, catch []*asl.Catcher, items ...map[string]any) *asl.Task {
	transact := make([]any, len(items))
	for i, item := range items {
		transact[i] = item
	}
	return &asl.Task{
		Transition: asl.Next(next),
		Resource:   ResourceTransactWriteItems,
		Parameters: map[string]any{"TransactItems": transact, "ReturnConsumedCapacity": "TOTAL"},
		ResultPath: asl.NullPath(),
		Retry:      transientRetry(),
		Catch:      catch,
	}
}

// holderCountTask reads, strongly consistent, whether the execution holds a slot into
// resultPath.held (1 or 0), with extra fields of the result selector.
func (r lockRef) holderCountTask(next, resultPath string, extra map[string]any) *asl.Task {
	selector := map[string]any{"held.$": "$.Count"}
	for k, v := range extra {
		selector[k] = v
	}
	return &asl.Task{
		Transition: asl.Next(next),
		Resource:   ResourceQuery,
		Parameters: map[string]any{
			"TableName":                r.table,
			"ConsistentRead":           true,
			"KeyConditionExpression":   "#lock = :lock AND #entry = :entry",
			"ExpressionAttributeNames": map[string]any{"#lock": lock.AttributeLockName, "#entry": lock.AttributeEntry},
			"ExpressionAttributeValues": map[string]any{
				":lock":  r.holderPartition(),
				":entry": r.holderKey()[lock.AttributeEntry],
			},
			"Select":                 "COUNT",
			"ReturnConsumedCapacity": "TOTAL",
		},
		ResultSelector: selector,
		ResultPath:     asl.P(resultPath),
		Retry:          transientRetry(),
		Catch:          []*asl.Catcher{fatalCatch()},
	}
}

// drawTicketTask draws the execution's ticket (lock.DrawTicketUpdate) into $.ticket.n.
func (r lockRef) drawTicketTask(next string) *asl.Task {
	return &asl.Task{
		Transition: asl.Next(next),
		Resource:   ResourceUpdateItem,
		Parameters: map[string]any{
			"TableName":                 r.table,
			"Key":                       r.counterKey(),
			"UpdateExpression":          lock.DrawTicketUpdate,
			"ExpressionAttributeNames":  map[string]any{"#tickets": lock.AttributeTickets},
			"ExpressionAttributeValues": map[string]any{":zero": number(0), ":one": number(1)},
			"ReturnValues":              "UPDATED_NEW",
			"ReturnConsumedCapacity":    "TOTAL",
		},
		ResultSelector: map[string]any{"n.$": "States.StringToJson($.Attributes." + lock.AttributeTickets + ".N)"},
		ResultPath:     asl.P("$.ticket"),
		Retry:          transientRetry(),
		Catch:          []*asl.Catcher{fatalCatch()},
	}
}
