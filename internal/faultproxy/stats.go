package faultproxy

import (
	"sync/atomic"

	"github.com/turnstile-sfn/turnstile/internal/capacity"
)

// Stats counts what the proxy did with the requests it received.
type Stats struct {
	// Requests is the number of requests received.
	Requests int64
	// Forwarded is the number of requests sent on to the target (passed or AppliedReplyLost).
	Forwarded int64
	// AppliedReplyLost is the number of requests forwarded whose reply was dropped.
	AppliedReplyLost int64
	// LostBefore is the number of requests dropped without forwarding.
	LostBefore int64
	// Throttled is the number of requests answered with a throttling error.
	Throttled int64
	// ForwardFailures is the number of forwarded requests the target gave no reply to (answered
	// with HTTP 502).
	ForwardFailures int64
	// ReadUnits is the read capacity units the forwarded reads consumed, as DynamoDB bills them:
	// as the server reported them, but for BatchGetItem and replayed transactions, which the
	// proxy computes (see capacity.go).
	ReadUnits float64
	// WriteUnits is the write capacity units the forwarded writes consumed, as DynamoDB bills
	// them: as the server reported them for single-item and batch writes, computed by the proxy
	// for transactions, plus FailedConditionalWriteUnits.
	WriteUnits float64
	// FailedConditionalWrites is the number of PutItem, UpdateItem and DeleteItem requests that
	// failed their condition (ConditionalCheckFailedException), and of TransactWriteItems
	// requests cancelled because a condition failed or another transaction conflicted
	// (TransactionCanceledException).
	FailedConditionalWrites int64
	// FailedConditionalWriteUnits is what DynamoDB bills for them: for a single write,
	// ceil(size of the existing item / 1 KB) write units, at least 1; for a cancelled
	// transaction, one such write of each of its items (see transact.go).
	FailedConditionalWriteUnits float64
	// LargestItemBytes is the size of the largest item seen in a reply (an item read, returned by
	// a write, or returned by a failed condition) or written by a transaction, by DynamoDB's
	// item-size rules.
	LargestItemBytes int64
}

// Capacity is the capacity figures of s.
func (s Stats) Capacity() capacity.Totals {
	return capacity.Totals{
		ReadUnits:                   s.ReadUnits,
		WriteUnits:                  s.WriteUnits,
		FailedConditionalWriteUnits: s.FailedConditionalWriteUnits,
		LargestItemBytes:            s.LargestItemBytes,
	}
}

// Faults is the number of faults injected, of every kind.
func (s Stats) Faults() int64 { return s.AppliedReplyLost + s.LostBefore + s.Throttled }

// counters are the live counts behind Stats.
type counters struct {
	requests, forwarded, appliedReplyLost, lostBefore, throttled, forwardFailures atomic.Int64
}

// count records the fate of one request.
func (c *counters) count(f Fault) {
	switch f {
	case AppliedReplyLost:
		c.appliedReplyLost.Add(1)
	case LostBefore:
		c.lostBefore.Add(1)
	case Throttled:
		c.throttled.Add(1)
	}
}

func (c *counters) snapshot() Stats {
	return Stats{
		Requests:         c.requests.Load(),
		Forwarded:        c.forwarded.Load(),
		AppliedReplyLost: c.appliedReplyLost.Load(),
		LostBefore:       c.lostBefore.Load(),
		Throttled:        c.throttled.Load(),
		ForwardFailures:  c.forwardFailures.Load(),
	}
}
