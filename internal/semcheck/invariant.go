package semcheck

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// ErrInvariant reports a snapshot of the lock item that breaks the lock's invariant.
var ErrInvariant = errors.New("semcheck: lock invariant broken")

// ErrMalformedItem reports a lock item that SnapshotFromItem cannot read.
var ErrMalformedItem = errors.New("semcheck: malformed lock item")

// Snapshot is the lock item as one consistent read saw it.
type Snapshot struct {
	// Count is the item's counter of holders (0 when the item does not exist yet).
	Count int64
	// Holders are the names of the item's holder attributes, sorted.
	Holders []string
}

// InvariantError is a snapshot that breaks the lock's invariant, and how.
type InvariantError struct {
	Snapshot Snapshot
	Limit    int
	// Violation says which part of the invariant broke.
	Violation string
}

// Error describes the broken invariant.
func (e *InvariantError) Error() string {
	return fmt.Sprintf("%v: %s (counter %d, %d holders, limit %d)",
		ErrInvariant, e.Violation, e.Snapshot.Count, len(e.Snapshot.Holders), e.Limit)
}

// Unwrap returns ErrInvariant.
func (e *InvariantError) Unwrap() error { return ErrInvariant }

// Check checks the invariant (docs/architecture.md, "The invariant") for a lock of limit slots: the
// counter equals the number of holders, and 0 ≤ counter ≤ limit. It returns an *InvariantError when
// it breaks.
func (s Snapshot) Check(limit int) error {
	var violation string
	switch {
	case s.Count < 0:
		violation = "negative counter"
	case s.Count != int64(len(s.Holders)):
		violation = "counter differs from the number of holders"
	case s.Count > int64(limit):
		violation = "more holders than the limit"
	default:
		return nil
	}
	return &InvariantError{Snapshot: s, Limit: limit, Violation: violation}
}

// SnapshotFromItem reads a lock item in DynamoDB's JSON shape, as the "Item" of a GetItem result
// of the Step Functions DynamoDB integration: {"LockName": {"S": ...}, "currentlockcount": {"N":
// ...}, "<holder>": {"S": ...}, ...}. A nil item (not created yet) is an empty snapshot. Every
// attribute but the key and the counter is a holder.
func SnapshotFromItem(item map[string]any) (Snapshot, error) {
	var s Snapshot
	for name, value := range item {
		switch name {
		case machines.AttributeLockName:
		case machines.AttributeHolderCount:
			count, err := numberValue(value)
			if err != nil {
				return Snapshot{}, fmt.Errorf("%w: %s: %w", ErrMalformedItem, name, err)
			}
			s.Count = count
		default:
			s.Holders = append(s.Holders, name)
		}
	}
	slices.Sort(s.Holders)
	return s, nil
}

// numberValue reads an integer number attribute value, {"N": "3"}.
func numberValue(value any) (int64, error) {
	attribute, _ := value.(map[string]any)
	text, ok := attribute["N"].(string)
	if !ok {
		return 0, fmt.Errorf("want a number attribute value, got %v", value)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want an integer, got %q", text)
	}
	return n, nil
}
