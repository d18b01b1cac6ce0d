package lock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// Admission control: a submission is a waiter of the lock's own queue that is not an execution
// yet. It draws a ticket like a parking execution, so that submissions and parked executions
// share one order (FIFO, or with priorities Place's), waits at its place with its weight as a
// park does, and its waiter item carries what starts it (the state machine and the
// execution input) instead of a task token. Whoever hands a slot to it (Release, Admit, a park
// that finds a free slot and an older waiter) grants the slot to the execution the submission
// will start as, in the same transaction as any hand-off, records the outcome and then starts
// that execution: it runs already holding its slot (its park finds its holder item).

// Attributes of a submission's waiter item (besides AttributeExecution, the execution it
// will start as, and AttributeSince) and of the holder item its grant puts.
const (
	// AttributeSubmission is the submission's id.
	AttributeSubmission = "submission"
	// AttributeStateMachine is the ARN of the state machine the submission starts.
	AttributeStateMachine = "stateMachine"
	// AttributeInput is the execution input (JSON text).
	AttributeInput = "input"
	// AttributeExpires is when a queued submission expires (Unix seconds): whoever reaches it
	// in the queue afterwards removes it, recording OutcomeExpired. It is not a DynamoDB TTL
	// attribute: a submission never vanishes without an outcome.
	AttributeExpires = "expires"
	// AttributeOutcome is a status item's outcome (an Outcome).
	AttributeOutcome = "outcome"
	// AttributeReason is a status item's named reason (OutcomeFailed, OutcomeCancelled).
	AttributeReason = "reason"
)

// SubmissionPartitionSuffix ends the partition key of a lock's submission status items: one
// per submission with an outcome, sort key the submission's id.
const SubmissionPartitionSuffix = "#submissions"

// SubmissionPartition is the partition key of lock's submission status items.
func SubmissionPartition(lock string) string { return lock + SubmissionPartitionSuffix }

// SubmissionNamePrefix begins the name of every execution a submission starts: "sub-<id>".
const SubmissionNamePrefix = "sub-"

// DefaultSubmissionTTL is how long a submission may wait in the queue when SubmitRequest.TTL
// is zero; past it, it is removed as OutcomeExpired when the queue reaches it.
const DefaultSubmissionTTL = 24 * time.Hour

// MaxInputBytes is the largest execution input a submission takes: Step Functions'
// maximum (256 KiB). The waiter item holds it (a 400 KB DynamoDB item fits it), and its write
// units grow with it: an input of a few hundred bytes keeps a submission at one unit per write.
const MaxInputBytes = 256 * 1024

// Outcome is what became of a submission.
type Outcome string

// The outcomes. Every submission ends exactly one way: started, cancelled, expired or failed.
const (
	// OutcomeQueued: it waits in the queue (its waiter item).
	OutcomeQueued Outcome = "queued"
	// OutcomeStarted: it was granted a slot and its execution started (or is being started:
	// the grant's holder item carries what starts it, and the reconciler finishes a start that
	// a crash interrupted).
	OutcomeStarted Outcome = "started"
	// OutcomeCancelled: Cancel (or Drain) took it out of the queue.
	OutcomeCancelled Outcome = "cancelled"
	// OutcomeExpired: it waited longer than its TTL.
	OutcomeExpired Outcome = "expired"
	// OutcomeFailed: it was granted a slot but its execution could not start, for a named
	// Reason (the Step Functions error code: StateMachineDoesNotExist, InvalidExecutionInput,
	// ExecutionAlreadyExists, ...); its slot went on to the next in line.
	OutcomeFailed Outcome = "failed"
)

// Errors of submissions.
var (
	// ErrNoSubmission: no submission with that id exists on the lock (a wrong id or lock
	// name).
	ErrNoSubmission = errors.New("lock: no such submission; check the id and the lock name")
	// ErrNotQueued: the submission has left the queue (started, expired, failed or cancelled)
	// and cannot be cancelled; its status says how it ended.
	ErrNotQueued = errors.New("lock: the submission is no longer queued")
	// ErrInputTooLarge: the execution input exceeds MaxInputBytes.
	ErrInputTooLarge = errors.New("lock: the execution input is larger than Step Functions' 256 KiB")
	// ErrCannotStart: the Client's Step Functions client cannot StartExecution (pass a
	// *sfn.Client); a granted submission keeps its slot until the reconciler starts it.
	ErrCannotStart = errors.New("lock: the Step Functions client cannot StartExecution; pass a *sfn.Client")
)

// StartExecutionAPI is what starting a submission needs of Step Functions besides
// StepFunctionsAPI; *sfn.Client has it.
type StartExecutionAPI interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

// SubmitRequest is a submission: start StateMachine with Input when Lock has a slot for it.
type SubmitRequest struct {
	// Lock is the lock's name (with a LockNamePath machine, the key its input names).
	Lock string
	// Limit is the machine's configured limit, used while the lock has no live limit (as a
	// park's).
	Limit int
	// StateMachine is the ARN of the semaphore's state machine (Callback strategy: its
	// releases go through package lock, which starts the submission).
	StateMachine string
	// Input is the execution input, JSON text; "" means "{}".
	Input string
	// TTL is how long it may wait; 0 means DefaultSubmissionTTL.
	TTL time.Duration
	// Priority is the submission's priority, MinPriority to MaxPriority, on a lock whose
	// waiters have priorities (PriorityAgeing above 0): it waits at Place(ticket, Priority,
	// PriorityAgeing), as a park of the machine's does.
	Priority int
	// PriorityAgeing is the machine's ageing step (Place); 0 means no priorities: the
	// submission waits under its ticket, and Priority must be 0.
	PriorityAgeing int64
	// Weight is how many slots its execution takes (weighted permits), 1 to the lock's
	// limit; 0 means 1.
	Weight int
}

// Submission is a submission as Submit made it.
type Submission struct {
	// ID is the submission's id: "<place>-<16 hex digits>", its place in the queue (Ticket)
	// first.
	ID string `json:"id"`
	// Lock is the lock it waits for.
	Lock string `json:"lock"`
	// Execution is the ARN its execution will have (name SubmissionNamePrefix + ID).
	Execution string `json:"execution"`
	// Ticket is its place in the queue: its ticket, or with priorities Place of it (its
	// waiter item's sort key is WaiterEntry(Ticket)).
	Ticket int64 `json:"ticket"`
	// Expires is when it expires if still queued (RFC 3339).
	Expires string `json:"expires"`
}

// SubmissionStatus is what Status reads of a submission.
type SubmissionStatus struct {
	// ID is the submission's id.
	ID string `json:"id"`
	// Lock is its lock.
	Lock string `json:"lock"`
	// Outcome is what became of it, OutcomeQueued while it waits.
	Outcome Outcome `json:"outcome"`
	// Execution is the ARN of its execution (started), or of the one it will start as.
	Execution string `json:"execution"`
	// Reason names why it failed or was cancelled.
	Reason string `json:"reason,omitempty"`
	// At is when it was queued (OutcomeQueued), granted its slot (OutcomeStarted), or when its
	// other outcome was recorded.
	At string `json:"at,omitempty"`
	// Expires is when a queued submission expires (RFC 3339).
	Expires string `json:"expires,omitempty"`
	// Ahead is, for a queued submission, how many waiters (executions and submissions) are
	// ahead of it, as far as one read of the queue shows (at most 100).
	Ahead int `json:"ahead,omitempty"`
}

// SubmissionExecution is the execution ARN a submission id starts as on stateMachine:
// arn:…:execution:MACHINE:sub-<id>. The name is the same on every try, so a repeated start
// can never create a second execution.
func SubmissionExecution(stateMachine, id string) string {
	return strings.Replace(stateMachine, ":stateMachine:", ":execution:", 1) + ":" + SubmissionNamePrefix + id
}

// IsSubmitted reports whether execution's name is a submission's (SubmissionNamePrefix): it
// may have been started holding its slot, so its park looks for its holder item first.
func IsSubmitted(execution string) bool {
	i := strings.LastIndexByte(execution, ':')
	return i >= 0 && strings.HasPrefix(execution[i+1:], SubmissionNamePrefix)
}

// ticketOfID reads the place in the queue (Submission.Ticket) back from a submission id.
func ticketOfID(id string) (int64, bool) {
	digits, nonce, ok := strings.Cut(id, "-")
	if !ok || len(nonce) != 16 {
		return 0, false
	}
	if _, err := hex.DecodeString(nonce); err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil && n > 0
}

// Submit queues a submission on r.Lock and returns at once: its id, and the execution ARN it
// will start as. It draws a ticket (one write), puts its waiter item (one write) at its place
// (with priorities Place of the ticket) with its weight, and, if a slot is free and it is the
// first in line, is granted it and started before Submit returns.
// Every submission then ends one way (Status): started, cancelled, expired or failed. An error
// returned with a Submission whose ID is set came after it was queued (reading the limit,
// admitting, or starting it: the reconciler finishes a start that failed for now): it is queued
// or granted, and must not be submitted again.
func (c *Client) Submit(ctx context.Context, r SubmitRequest) (Submission, error) {
	if r.Input == "" {
		r.Input = "{}"
	}
	switch {
	case r.Lock == "" || r.StateMachine == "":
		return Submission{}, fmt.Errorf("%w: a submission needs a lock name and a state machine ARN", ErrInvalidRequest)
	case !strings.Contains(r.StateMachine, ":stateMachine:"):
		return Submission{}, fmt.Errorf("%w: %q is not a state machine ARN (arn:aws:states:REGION:ACCOUNT:stateMachine:NAME)", ErrInvalidRequest, r.StateMachine)
	case r.Limit < 1:
		return Submission{}, fmt.Errorf("%w: a submission needs the machine's limit (at least 1), got %d", ErrInvalidRequest, r.Limit)
	case len(r.Lock)+len(SubmissionPartitionSuffix) > 2048:
		return Submission{}, fmt.Errorf("%w: a submission's lock name is at most %d bytes", ErrInvalidRequest, 2048-len(SubmissionPartitionSuffix))
	case len(r.Input) > MaxInputBytes:
		return Submission{}, fmt.Errorf("%w: %d bytes", ErrInputTooLarge, len(r.Input))
	case !json.Valid([]byte(r.Input)):
		return Submission{}, fmt.Errorf("%w: the execution input is not JSON", ErrInvalidRequest)
	case r.TTL < 0:
		return Submission{}, fmt.Errorf("%w: a negative TTL", ErrInvalidRequest)
	case r.PriorityAgeing == 0 && r.Priority != 0:
		return Submission{}, fmt.Errorf("%w: priority %d without an ageing step: give the machine's PriorityAgeing", ErrInvalidRequest, r.Priority)
	}
	if r.PriorityAgeing != 0 {
		if err := CheckPriority(r.Priority, r.PriorityAgeing); err != nil {
			return Submission{}, err
		}
	}
	if r.Weight < 0 {
		return Submission{}, fmt.Errorf("%w: a weight must be at least 1, got %d", ErrInvalidRequest, r.Weight)
	}
	ttl := r.TTL
	if ttl == 0 {
		ttl = DefaultSubmissionTTL
	}
	ticket, err := c.DrawTicket(ctx, r.Lock)
	if err != nil {
		return Submission{}, err
	}
	place := ticket
	if r.PriorityAgeing != 0 {
		place = Place(ticket, r.Priority, r.PriorityAgeing)
	}
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce) // never fails (crypto/rand)
	id := fmt.Sprintf("%d-%x", place, nonce)
	expires := c.now().Add(ttl)
	s := Submission{ID: id, Lock: r.Lock, Execution: SubmissionExecution(r.StateMachine, id), Ticket: place, Expires: expires.UTC().Format(time.RFC3339)}
	// The counter first: the lock's limit, the weight against the live one, and a heavier
	// submission marks the lock weighted before it joins the queue (as a park's join).
	ctr, err := c.readCounter(ctx, r.Lock)
	if err == nil && ctr.limit == 0 {
		ctr, err = c.initLimit(ctx, r.Lock, s.Execution, r.Limit)
	}
	if err == nil {
		err = checkWeight(r.Weight, ctr.limitFor(r.Limit))
	}
	if err == nil && r.Weight > 1 && !ctr.weighted {
		err = c.markWeighted(ctx, r.Lock)
	}
	if err != nil {
		return Submission{}, err
	}
	item := c.waiterItem(ParkRequest{Lock: r.Lock, Execution: s.Execution, Ticket: place, Weight: r.Weight})
	item[AttributeSubmission] = str(id)
	item[AttributeStateMachine] = str(r.StateMachine)
	item[AttributeInput] = str(r.Input)
	item[AttributeExpires] = num(expires.Unix())
	if err := c.putSubmission(ctx, s, item); err != nil {
		return Submission{}, err
	}
	// As a park's waiter: the younger waiters it passed are marked, and a slot freed before
	// the waiter item existed is handed to the oldest in line now.
	return s, c.joined(ctx, r.Lock, place, r.Limit, s.Execution)
}

// putSubmission puts a submission's waiter item. As a park's enqueue, it is sent without the
// SDK's retries: a retry landing after a grant deleted the item would queue the submission a
// second time. When no answer comes it reads back: the waiter item, then the grant's holder
// item, then the status item (a grant creates the holder item as it deletes the waiter item,
// and records the outcome before the holder item can go), so a put that landed is always seen.
func (c *Client) putSubmission(ctx context.Context, s Submission, item map[string]types.AttributeValue) error {
	in := &dynamodb.PutItemInput{
		TableName: aws.String(c.table), Item: item,
		ConditionExpression: aws.String(ItemAbsent), ExpressionAttributeNames: map[string]string{"#entry": AttributeEntry},
	}
	for range c.attempts {
		_, err := c.ddb.PutItem(ctx, in, withoutRetries)
		var failed *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			return nil
		case errors.As(err, &failed):
			// Our earlier try landed, or the ticket is someone else's (it is not: tickets are
			// drawn once); the read-back tells.
		default:
			if err = classify("submit to "+strconv.Quote(s.Lock), err); !errors.Is(err, ErrBusy) {
				return err
			}
		}
		landed, err := c.submissionLanded(ctx, s)
		if err != nil || landed {
			return err
		}
		if failed != nil {
			return fmt.Errorf("%w: ticket %d of %q belongs to another waiter; submit again", ErrInvalidRequest, s.Ticket, s.Lock)
		}
	}
	return fmt.Errorf("%w: submit to %q: no answer in %d attempts", ErrBusy, s.Lock, c.attempts)
}

// submissionLanded reads whether s's waiter item was put: it is there, or a grant turned it into
// a holder item, or the submission has an outcome.
func (c *Client) submissionLanded(ctx context.Context, s Submission) (bool, error) {
	if waiting, err := c.waits(ctx, s.Lock, s.Ticket, s.Execution); err != nil || waiting {
		return waiting, err
	}
	if holds, err := c.Holds(ctx, s.Lock, s.Execution); err != nil || holds {
		return holds, err
	}
	st, err := c.outcomeOf(ctx, s.Lock, s.ID)
	return st != nil, err
}
