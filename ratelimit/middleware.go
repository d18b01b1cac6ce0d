package ratelimit

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// CapacityMiddlewareID is the ID of the middleware WithCapacityLimit adds to the client's
// Initialize step.
const CapacityMiddlewareID = "turnstile.ratelimit.Capacity"

// WithCapacityLimit is a DynamoDB client option that keeps a fleet's aggregate consumed read
// and write capacity under the targets of reads and writes (either may be nil: not limited):
//
//	client := dynamodb.NewFromConfig(cfg, ratelimit.WithCapacityLimit(reads, writes))
//
// Before each GetItem, BatchGetItem, Query, Scan and TransactGetItems it waits on reads, and
// before each PutItem, UpdateItem, DeleteItem, BatchWriteItem and TransactWriteItems on writes,
// for an estimate of the units (1 per item, capped at the burst); it sets
// ReturnConsumedCapacity to TOTAL (unless INDEXES was asked for) and, from the response's
// ConsumedCapacity, records the difference between the units consumed and the estimate, so
// that the next waits pay for a large item and the report carries what DynamoDB counted. Other
// operations pass unlimited. Give the Adaptive limiters a client without this option: their
// own requests must not wait on themselves.
func WithCapacityLimit(reads, writes *Adaptive) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc(CapacityMiddlewareID,
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					write, items, ok := askCapacity(in.Parameters)
					limiter := reads
					if write {
						limiter = writes
					}
					if !ok || limiter == nil {
						return next.HandleInitialize(ctx, in)
					}
					estimate := min(max(items, 1), limiter.local.Burst())
					if err := limiter.WaitN(ctx, estimate); err != nil {
						return middleware.InitializeOutput{}, middleware.Metadata{}, err
					}
					out, md, err := next.HandleInitialize(ctx, in)
					if err == nil {
						if units, ok := consumedUnits(out.Result); ok {
							limiter.Record(units - float64(estimate))
						}
					}
					return out, md, err
				}), middleware.After)
		})
	}
}

// askCapacity sets ReturnConsumedCapacity on the input of an operation the middleware limits,
// and returns whether it writes and how many items it touches; ok is false for other operations.
func askCapacity(params any) (write bool, items int, ok bool) {
	ask := func(r *types.ReturnConsumedCapacity) {
		if *r != types.ReturnConsumedCapacityIndexes {
			*r = types.ReturnConsumedCapacityTotal
		}
	}
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		ask(&in.ReturnConsumedCapacity)
		return false, 1, true
	case *dynamodb.QueryInput:
		ask(&in.ReturnConsumedCapacity)
		return false, 1, true
	case *dynamodb.ScanInput:
		ask(&in.ReturnConsumedCapacity)
		return false, 1, true
	case *dynamodb.BatchGetItemInput:
		ask(&in.ReturnConsumedCapacity)
		for _, k := range in.RequestItems {
			items += len(k.Keys)
		}
		return false, items, true
	case *dynamodb.TransactGetItemsInput:
		ask(&in.ReturnConsumedCapacity)
		return false, len(in.TransactItems), true
	case *dynamodb.PutItemInput:
		ask(&in.ReturnConsumedCapacity)
		return true, 1, true
	case *dynamodb.UpdateItemInput:
		ask(&in.ReturnConsumedCapacity)
		return true, 1, true
	case *dynamodb.DeleteItemInput:
		ask(&in.ReturnConsumedCapacity)
		return true, 1, true
	case *dynamodb.BatchWriteItemInput:
		ask(&in.ReturnConsumedCapacity)
		for _, w := range in.RequestItems {
			items += len(w)
		}
		return true, items, true
	case *dynamodb.TransactWriteItemsInput:
		ask(&in.ReturnConsumedCapacity)
		return true, len(in.TransactItems), true
	}
	return false, 0, false
}

// consumedUnits sums the ConsumedCapacity of an output of the operations askCapacity limits.
func consumedUnits(result any) (float64, bool) {
	var cs []types.ConsumedCapacity
	switch out := result.(type) {
	case *dynamodb.GetItemOutput:
		cs = one(out.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		cs = one(out.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		cs = one(out.ConsumedCapacity)
	case *dynamodb.PutItemOutput:
		cs = one(out.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		cs = one(out.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		cs = one(out.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		cs = out.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		cs = out.ConsumedCapacity
	case *dynamodb.TransactGetItemsOutput:
		cs = out.ConsumedCapacity
	case *dynamodb.TransactWriteItemsOutput:
		cs = out.ConsumedCapacity
	}
	if len(cs) == 0 {
		return 0, false
	}
	total := 0.0
	for _, c := range cs {
		if c.CapacityUnits != nil {
			total += *c.CapacityUnits
		}
	}
	return total, true
}

// one is c as a slice, empty when c is nil.
func one(c *types.ConsumedCapacity) []types.ConsumedCapacity {
	if c == nil {
		return nil
	}
	return []types.ConsumedCapacity{*c}
}
