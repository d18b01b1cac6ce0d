package semcheck

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// QueueKind is what an operation of the queue protocol (the Callback strategy, package lock)
// does.
type QueueKind int

// The kinds of queue operation.
const (
	// QueuePark parks an execution with its ticket (lock.Client.Park): it takes a free slot or
	// joins the queue.
	QueuePark QueueKind = iota + 1
	// QueueRelease gives an execution's slot up (lock.Client.Release): to the queue's head, or
	// back to the lock when nobody waits.
	QueueRelease
	// QueueLeave takes a waiting execution out of the queue (lock.Client.Leave); one handed a
	// slot meanwhile gives it up as QueueRelease does.
	QueueLeave
	// QueueAdmit is a waiter admitted to a free slot by someone else's operation (seen as the
	// wake-up of its task with itself as the granter, or as its leave finding it holding a slot
	// nobody woke it for): it must be the queue's head.
	QueueAdmit
	// QueueSettled is the lock read at a quiescent point, nothing in flight: the state must be
	// exactly QueueInput.Holders and QueueInput.Waiters.
	QueueSettled
)

// QueueInput is a queue operation as its client called it.
type QueueInput struct {
	Kind QueueKind
	// Execution is the execution parking, releasing, leaving or admitted.
	Execution string
	// Ticket is the parking execution's ticket (QueuePark).
	Ticket int64
	// Weight is the parking execution's weight with weighted permits (QueuePark); 0 for one
	// slot. The model takes every execution's weight from WithWeights.
	Weight int
	// Holders and Waiters are the state read at a quiescent point (QueueSettled); Waiters in
	// ticket order.
	Holders []string
	Waiters []QueueWaiter
}

// QueueWaiter is an execution in the queue with its ticket.
type QueueWaiter struct {
	Ticket    int64
	Execution string
}

// Park is the input of a park of execution with ticket.
func Park(execution string, ticket int64) QueueInput {
	return QueueInput{Kind: QueuePark, Execution: execution, Ticket: ticket}
}

// ParkWeighted is the input of a park of execution with ticket and weight (weighted permits).
func ParkWeighted(execution string, ticket int64, weight int) QueueInput {
	return QueueInput{Kind: QueuePark, Execution: execution, Ticket: ticket, Weight: weight}
}

// ReleaseSlot is the input of a release of execution's slot under the queue protocol.
func ReleaseSlot(execution string) QueueInput {
	return QueueInput{Kind: QueueRelease, Execution: execution}
}

// Leave is the input of execution leaving the queue.
func Leave(execution string) QueueInput { return QueueInput{Kind: QueueLeave, Execution: execution} }

// Admit is the input of a waiter's admission to a free slot, seen by its wake-up.
func Admit(execution string) QueueInput { return QueueInput{Kind: QueueAdmit, Execution: execution} }

// Settled is the input of the state read at a quiescent point.
func Settled(holders []string, waiters []QueueWaiter) QueueInput {
	return QueueInput{Kind: QueueSettled, Holders: holders, Waiters: waiters}
}

// String describes the input, e.g. "park(run-1, #7)".
func (in QueueInput) String() string {
	switch in.Kind {
	case QueuePark:
		if in.Weight > 1 {
			return fmt.Sprintf("park(%s, #%d, weight %d)", in.Execution, in.Ticket, in.Weight)
		}
		return fmt.Sprintf("park(%s, #%d)", in.Execution, in.Ticket)
	case QueueRelease:
		return fmt.Sprintf("release(%s)", in.Execution)
	case QueueLeave:
		return fmt.Sprintf("leave(%s)", in.Execution)
	case QueueAdmit:
		return fmt.Sprintf("admit(%s)", in.Execution)
	case QueueSettled:
		return fmt.Sprintf("settled(%d holders, %d waiters)", len(in.Holders), len(in.Waiters))
	default:
		return fmt.Sprintf("kind%d(%s)", int(in.Kind), in.Execution)
	}
}

// QueueOutcome is what a queue operation returned.
type QueueOutcome int

// The outcomes of a queue operation. An operation whose client never learned its outcome is
// recorded with the Outcome Unknown (Recorder's default) instead of a QueueOutput.
const (
	// Admitted: the parking execution holds a slot.
	Admitted QueueOutcome = iota + 1
	// Queued: the parking execution waits in the queue.
	Queued
	// GaveUp: the execution held a slot and gave it up, to QueueOutput.HandedTo or, when that
	// is empty, back to the lock.
	GaveUp
	// NothingHeld: the execution held no slot (a release), or held none and waits no more (a
	// leave).
	NothingHeld
	// Done: the operation happened (QueueAdmit, QueueSettled).
	Done
)

// QueueOutput is what a queue operation returned.
type QueueOutput struct {
	Outcome QueueOutcome
	// HandedTo are the waiters the slot went to, in order (lock.ReleaseResult.HandedTo): all
	// but the last were found dead when woken, and gave it on.
	HandedTo []string
}

// String names the output.
func (o QueueOutput) String() string {
	switch o.Outcome {
	case Admitted:
		return "admitted"
	case Queued:
		return "queued"
	case GaveUp:
		if len(o.HandedTo) == 0 {
			return "back to the lock"
		}
		return "handed to " + strings.Join(o.HandedTo, ", ")
	case NothingHeld:
		return "nothing held"
	case Done:
		return "done"
	default:
		return fmt.Sprintf("outcome%d", int(o.Outcome))
	}
}

// queueState is the queue model's state: the holders, sorted, and the waiters in ticket order,
// each rendered as one string so that equal states are equal values.
type queueState struct {
	holders string // sorted, joined by newlines
	waiters string // "<16-digit ticket> <execution>", in ticket order, joined by newlines
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func newQueueState(holders []string, waiters []QueueWaiter) queueState {
	hs := slices.Clone(holders)
	slices.Sort(hs)
	hs = slices.Compact(hs)
	ws := make([]string, len(waiters))
	for i, w := range waiters {
		ws[i] = fmt.Sprintf("%016d %s", w.Ticket, w.Execution)
	}
	slices.Sort(ws)
	return queueState{holders: strings.Join(hs, "\n"), waiters: strings.Join(ws, "\n")}
}

func (s queueState) holderList() []string { return splitLines(s.holders) }

func (s queueState) waiterList() []QueueWaiter {
	var ws []QueueWaiter
	for _, line := range splitLines(s.waiters) {
		digits, execution, _ := strings.Cut(line, " ")
		ticket, _ := strconv.ParseInt(digits, 10, 64)
		ws = append(ws, QueueWaiter{Ticket: ticket, Execution: execution})
	}
	return ws
}

func (s queueState) holds(e string) bool { return slices.Contains(s.holderList(), e) }

func (s queueState) withHolders(hs []string) queueState {
	return newQueueState(hs, s.waiterList())
}

// waiting returns e's place in the queue, or -1.
func (s queueState) waiting(e string) int {
	return slices.IndexFunc(s.waiterList(), func(w QueueWaiter) bool { return w.Execution == e })
}

func (s queueState) withoutWaiter(e string) queueState {
	ws := slices.DeleteFunc(s.waiterList(), func(w QueueWaiter) bool { return w.Execution == e })
	return newQueueState(s.holderList(), ws)
}

// queueRules are the model's limit and the executions' weights (weighted permits): the
// holders' weights never add up to more than the limit.
type queueRules struct {
	limit  int
	weight func(execution string) int // nil: every execution weighs 1
}

// w is execution e's weight.
func (r queueRules) w(e string) int {
	if r.weight == nil {
		return 1
	}
	return max(r.weight(e), 1)
}

// held is the holders' weight.
func (r queueRules) held(holders []string) int {
	n := 0
	for _, h := range holders {
		n += r.w(h)
	}
	return n
}

// QueueOption adjusts QueueModel and CheckQueue.
type QueueOption func(*queueRules)

// WithWeights gives every execution its weight (weighted permits): a holder of weight w takes w
// slots, and the head of the line is served strictly first in, first out (a waiter that does
// not fit blocks the ones behind it). A release may give its slots back to the lock even when
// the head would fit: concurrent releases each decide on a read that counts the others' weight
// as held, and the head is then admitted by their second look at the queue (an Admit), which
// must still find it at the head and fitting; a waiter left behind with room free shows as a
// stranded waiter, not here.
func WithWeights(weight func(execution string) int) QueueOption {
	return func(r *queueRules) { r.weight = weight }
}

// park returns the states after e parks with ticket: admitted (ok false when no slot is free
// for it: the lock is full or an older ticket waits) and queued (ok false when e holds).
func (s queueState) park(r queueRules, e string, ticket int64) (admitted queueState, canAdmit bool, queued queueState, canQueue bool) {
	holders := s.holderList()
	if slices.Contains(holders, e) {
		return s, true, s, false
	}
	older := slices.ContainsFunc(s.waiterList(), func(w QueueWaiter) bool { return w.Ticket < ticket && w.Execution != e })
	if r.held(holders)+r.w(e) <= r.limit && !older {
		admitted, canAdmit = s.withoutWaiter(e).withHolders(append(holders, e)), true
	}
	queued = s
	if s.waiting(e) < 0 {
		queued = newQueueState(holders, append(s.waiterList(), QueueWaiter{Ticket: ticket, Execution: e}))
	}
	return admitted, canAdmit, queued, true
}

// admit returns the state after the queue's head e takes a free slot; ok is false when e is
// not the head or no slot is free. An admission of an execution that holds already (recorded
// twice: by its waker and by its own leave) changes nothing.
func (s queueState) admit(r queueRules, e string) (queueState, bool) {
	if s.holds(e) {
		return s, true
	}
	ws, holders := s.waiterList(), s.holderList()
	if len(ws) == 0 || ws[0].Execution != e || r.held(holders)+r.w(e) > r.limit {
		return s, false
	}
	return newQueueState(append(holders, e), ws[1:]), true
}

// giveUp returns the state after holder e gives its slot to the waiters handedTo in turn (each
// the queue's head when it gets the slot; all but the last give it on at once), or back to the
// lock when handedTo is empty (with one slot each, only when nobody waits or the lock is above
// its limit; with weights at any time, see WithWeights).
func (s queueState) giveUp(r queueRules, e string, handedTo []string) (queueState, bool) {
	holders := s.holderList()
	if !slices.Contains(holders, e) {
		return s, false
	}
	ws := s.waiterList()
	if len(handedTo) == 0 {
		if r.weight == nil && len(ws) > 0 && r.held(holders)-r.w(e)+r.w(ws[0].Execution) <= r.limit {
			return s, false
		}
		return newQueueState(slices.DeleteFunc(holders, func(h string) bool { return h == e }), ws), true
	}
	giver := e
	for _, w := range handedTo {
		if len(ws) == 0 || ws[0].Execution != w || r.held(holders)-r.w(giver)+r.w(w) > r.limit {
			return s, false
		}
		ws = ws[1:]
		holders = slices.DeleteFunc(holders, func(h string) bool { return h == giver })
		holders = append(holders, w)
		giver = w
	}
	return newQueueState(holders, ws), true
}

// queueStep returns the states the lock can be in after in returned output in state s.
func queueStep(r queueRules, s queueState, in QueueInput, output any) []any {
	out, known := output.(QueueOutput)
	if !known {
		return queueUnknown(r, s, in)
	}
	switch in.Kind {
	case QueuePark:
		admitted, canAdmit, queued, canQueue := s.park(r, in.Execution, in.Ticket)
		switch {
		case out.Outcome == Admitted && canAdmit:
			return []any{admitted}
		case out.Outcome == Queued && canQueue:
			return []any{queued}
		}
	case QueueRelease, QueueLeave:
		switch {
		case out.Outcome == GaveUp:
			if next, ok := s.giveUp(r, in.Execution, out.HandedTo); ok {
				return []any{next}
			}
		case out.Outcome == NothingHeld && !s.holds(in.Execution):
			if in.Kind == QueueLeave {
				return []any{s.withoutWaiter(in.Execution)}
			}
			return []any{s}
		}
	case QueueAdmit:
		if next, ok := s.admit(r, in.Execution); ok && out.Outcome == Done {
			return []any{next}
		}
	case QueueSettled:
		if out.Outcome == Done && s == newQueueState(in.Holders, in.Waiters) {
			return []any{s}
		}
	}
	return nil
}

// queueUnknown returns the states an operation of unknown outcome may have left: any it can
// return, or none of its effect.
func queueUnknown(r queueRules, s queueState, in QueueInput) []any {
	next := []any{s}
	switch in.Kind {
	case QueuePark:
		admitted, canAdmit, queued, canQueue := s.park(r, in.Execution, in.Ticket)
		if canAdmit {
			next = append(next, admitted)
		}
		if canQueue {
			next = append(next, queued)
		}
	case QueueRelease, QueueLeave:
		if in.Kind == QueueLeave && !s.holds(in.Execution) {
			next = append(next, s.withoutWaiter(in.Execution))
		}
		if back, ok := s.giveUp(r, in.Execution, nil); ok {
			next = append(next, back)
		}
		if ws := s.waiterList(); len(ws) > 0 {
			if handed, ok := s.giveUp(r, in.Execution, []string{ws[0].Execution}); ok {
				next = append(next, handed)
			}
		}
	case QueueAdmit:
		if admitted, ok := s.admit(r, in.Execution); ok {
			next = append(next, admitted)
		}
	}
	return next
}

// QueueModel returns the porcupine model of a FIFO counting semaphore of limit slots, starting
// with the holders and waiters given (e.g. read at a quiescent point): a park takes a free slot
// only when no older ticket waits, else it joins the queue in ticket order; a release hands its
// slot to the queue's head, and gives it back to the lock only when nobody waits (or the lock
// is above its limit); a waiter admitted to a free slot is the queue's head. Operations have a
// QueueInput as input and a QueueOutput, or the Outcome Unknown, as output. With WithWeights,
// slots are counted by weight and the head of the line blocks the waiters behind it.
func QueueModel(limit int, holders []string, waiters []QueueWaiter, opts ...QueueOption) porcupine.Model {
	start := newQueueState(holders, waiters)
	r := queueRules{limit: limit}
	for _, o := range opts {
		o(&r)
	}
	m := porcupine.NondeterministicModel{
		Init: func() []any { return []any{start} },
		Step: func(state, input, output any) []any {
			return queueStep(r, state.(queueState), input.(QueueInput), output)
		},
		DescribeOperation: func(input, output any) string {
			return fmt.Sprintf("%v -> %v", input, output)
		},
		DescribeState: func(state any) string {
			s := state.(queueState)
			return fmt.Sprintf("holders {%s}, waiters [%s]", strings.ReplaceAll(s.holders, "\n", ", "), strings.ReplaceAll(s.waiters, "\n", ", "))
		},
	}
	return m.ToModel()
}

// ErrQueueNotLinearizable reports a queue history that no order of its operations explains
// with a FIFO counting semaphore: a slot over the limit, a waiter overtaken, a slot lost.
var ErrQueueNotLinearizable = errors.New("semcheck: queue history is not linearizable with a FIFO counting semaphore")

// CheckQueue checks that history is linearizable with respect to QueueModel(limit, holders,
// waiters, opts...). A timeout of 0 lets the check run until it decides; one that runs out is
// ErrInconclusive.
func CheckQueue(limit int, holders []string, waiters []QueueWaiter, history []porcupine.Operation, timeout time.Duration, opts ...QueueOption) error {
	switch result := porcupine.CheckOperationsTimeout(QueueModel(limit, holders, waiters, opts...), history, timeout); result {
	case porcupine.Ok:
		return nil
	case porcupine.Illegal:
		return fmt.Errorf("%w: %d operations, limit %d", ErrQueueNotLinearizable, len(history), limit)
	default:
		return fmt.Errorf("%w after %v: %d operations, limit %d", ErrInconclusive, timeout, len(history), limit)
	}
}

// admission is when an execution was admitted, as an interval of the history's clock.
type admission struct{ call, ret int64 }

// OutOfOrder counts the executions of a queue history admitted while a waiter with an older
// ticket waited: B is counted when some A with a smaller ticket had joined the queue (its park
// returned Queued) before B's admission began, and nothing that may have admitted A (its
// admission, its leave, or an operation of unknown outcome, which may have handed it a slot)
// began before B's admission returned. It sees only what real time proves, so it never counts
// a correct history; the linearizability check finds the subtler cases.
func OutOfOrder(history []porcupine.Operation) int {
	tickets := map[string]int64{}
	queued := map[string]int64{}
	parked := map[string]int64{} // the call of the park that returned queued
	admitted := map[string]admission{}
	waitEnd := map[string]int64{}
	admit := func(e string, call, ret int64) {
		if _, seen := admitted[e]; !seen {
			admitted[e] = admission{call, ret}
		}
		if end, seen := waitEnd[e]; !seen || call < end {
			waitEnd[e] = call
		}
	}
	for _, op := range history {
		in := op.Input.(QueueInput)
		out, known := op.Output.(QueueOutput)
		switch {
		case in.Kind == QueuePark:
			tickets[in.Execution] = in.Ticket
			if known && out.Outcome == Queued {
				if q, seen := queued[in.Execution]; !seen || op.Return < q {
					queued[in.Execution] = op.Return
					parked[in.Execution] = op.Call
				}
			}
			if known && out.Outcome == Admitted {
				admit(in.Execution, op.Call, op.Return)
			}
		case in.Kind == QueueAdmit:
			admit(in.Execution, op.Call, op.Return)
		case in.Kind == QueueLeave && known && out.Outcome == NothingHeld:
			if end, seen := waitEnd[in.Execution]; !seen || op.Call < end {
				waitEnd[in.Execution] = op.Call
			}
		}
		if known && out.Outcome == GaveUp {
			for _, w := range out.HandedTo {
				admit(w, op.Call, op.Return)
			}
		}
	}
	// An operation of unknown outcome may have admitted any waiter whose park began before the
	// operation ended.
	var unknownOps []porcupine.Operation
	for _, op := range history {
		if _, known := op.Output.(QueueOutput); !known && op.Input.(QueueInput).Kind != QueueSettled {
			unknownOps = append(unknownOps, op)
		}
	}
	for a := range queued {
		for _, op := range unknownOps {
			if end, ended := waitEnd[a]; op.Return > parked[a] && (!ended || op.Call < end) {
				waitEnd[a] = op.Call
			}
		}
	}
	count := 0
	for b, ab := range admitted {
		for a, qa := range queued {
			end, ended := waitEnd[a]
			if a != b && tickets[a] < tickets[b] && qa < ab.call && (!ended || ab.ret < end) {
				count++
				break
			}
		}
	}
	return count
}
