package semcheck

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// QueueHistory is one check of the queue model written down: the lock's limit, the state the
// history starts from, the executions' weights and the operations. A soak keeps the histories
// that fail (WriteJSON) so that they can be read back (ReadQueueHistory), checked again and
// drawn (Visualize) long after the run that made them.
type QueueHistory struct {
	Limit   int
	Holders []string
	Waiters []QueueWaiter
	// Weights are the executions' weights with weighted permits (WithWeights); nil without.
	Weights    map[string]int `json:",omitempty"`
	Operations []QueueRecord
}

// QueueRecord is one operation of a QueueHistory: porcupine.Operation with the queue model's
// types.
type QueueRecord struct {
	Client int
	Input  QueueInput
	// Output is nil for an operation whose outcome is unknown.
	Output *QueueOutput `json:",omitempty"`
	// Call and Return are the Recorder's clock; an operation never ended returns at
	// math.MaxInt64.
	Call, Return int64
}

// NewQueueHistory writes down the check of history (a Recorder's operations of the queue
// model) against QueueModel(limit, holders, waiters) with the weights of weight (nil: one
// slot each).
func NewQueueHistory(limit int, holders []string, waiters []QueueWaiter, history []porcupine.Operation, weight func(execution string) int) QueueHistory {
	h := QueueHistory{Limit: limit, Holders: holders, Waiters: waiters, Operations: make([]QueueRecord, len(history))}
	executions := slices.Clone(holders)
	for _, w := range waiters {
		executions = append(executions, w.Execution)
	}
	for i, op := range history {
		in := op.Input.(QueueInput)
		r := QueueRecord{Client: op.ClientId, Input: in, Call: op.Call, Return: op.Return}
		if out, known := op.Output.(QueueOutput); known {
			r.Output = &out
		}
		h.Operations[i] = r
		executions = append(append(executions, in.Execution), in.Holders...)
	}
	if weight == nil {
		return h
	}
	h.Weights = map[string]int{}
	for _, e := range executions {
		if e != "" {
			h.Weights[e] = weight(e)
		}
	}
	return h
}

// ReadQueueHistory reads a QueueHistory written by WriteJSON.
func ReadQueueHistory(r io.Reader) (QueueHistory, error) {
	var h QueueHistory
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return QueueHistory{}, fmt.Errorf("semcheck: read a queue history: %w", err)
	}
	return h, nil
}

// ReadQueueHistoryFile reads the QueueHistory kept in the file at path (a soak's
// --keep-failing file).
func ReadQueueHistoryFile(path string) (QueueHistory, error) {
	f, err := os.Open(path)
	if err != nil {
		return QueueHistory{}, fmt.Errorf("semcheck: read a queue history: %w", err)
	}
	defer f.Close()
	h, err := ReadQueueHistory(f)
	if err != nil {
		return QueueHistory{}, fmt.Errorf("%w (%s)", err, path)
	}
	return h, nil
}

// WriteJSON writes h as JSON, which ReadQueueHistory reads back.
func (h QueueHistory) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(h)
}

// operations returns h's operations as porcupine's.
func (h QueueHistory) operations() []porcupine.Operation {
	ops := make([]porcupine.Operation, len(h.Operations))
	for i, r := range h.Operations {
		ops[i] = porcupine.Operation{ClientId: r.Client, Input: r.Input, Output: Unknown, Call: r.Call, Return: r.Return}
		if r.Output != nil {
			ops[i].Output = *r.Output
		}
	}
	return ops
}

// options returns the queue model's options of h.
func (h QueueHistory) options() []QueueOption {
	if h.Weights == nil {
		return nil
	}
	return []QueueOption{WithWeights(func(e string) int { return h.Weights[e] })}
}

// Check checks h as CheckQueue does.
func (h QueueHistory) Check(timeout time.Duration) error {
	return CheckQueue(h.Limit, h.Holders, h.Waiters, h.operations(), timeout, h.options()...)
}

// Visualize checks h and writes porcupine's drawing of it as an HTML page: every operation on
// its client's line and, for a history that fails, the longest orders of its operations that
// the model explains, with the state after each.
func (h QueueHistory) Visualize(w io.Writer, timeout time.Duration) error {
	model := QueueModel(h.Limit, h.Holders, h.Waiters, h.options()...)
	_, info := porcupine.CheckOperationsVerbose(model, h.operations(), timeout)
	return porcupine.Visualize(model, info, w)
}
