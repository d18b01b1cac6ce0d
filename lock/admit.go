package lock

import (
	"context"
	"fmt"
)

// AdmitResult says whom Admit let in.
type AdmitResult struct {
	// Admitted are the waiters handed a free slot and woken, oldest first.
	Admitted []string `json:"admitted"`
}

// GrantedByOperator is AttributeGrantedBy of the holder items Admit puts: an operator's
// admission, not an execution's.
const GrantedByOperator = "operator"

// Admit hands the free slots of lock (below its live limit, and not paused) to the oldest
// waiters and wakes them, with the admission a release uses when it finds a free slot: the
// acquire transaction for the waiter (counter, its holder item, its waiter item) and
// SendTaskSuccess. A raised limit and a resume call it; it is safe at any time, as the
// conditions admit nobody beyond the limit. A lock without a live limit of its own (no park
// tied it to a semaphore yet) admits nobody here: its own parks and releases fill it.
func (c *Client) Admit(ctx context.Context, lock string) (AdmitResult, error) {
	if lock == "" {
		return AdmitResult{}, fmt.Errorf("%w: admitting needs a lock name", ErrInvalidRequest)
	}
	ctr, err := c.readCounter(ctx, lock)
	if err != nil || ctr.limit == 0 {
		return AdmitResult{Admitted: []string{}}, err
	}
	admitted, err := c.admit(ctx, lock, ctr.limit, GrantedByOperator)
	return AdmitResult{Admitted: append([]string{}, admitted...)}, err
}

// admit admits the oldest waiters while the lock admits one more, configured being its limit
// when it has no live limit, on behalf of the operation of execution by (AttributeGrantedBy). It gives up with ErrBusy after c.attempts reads in a row that
// admitted nobody while the lock had room and waiters.
func (c *Client) admit(ctx context.Context, lock string, configured int, by string) ([]string, error) {
	var admitted []string
	for idle := 0; idle < c.attempts; {
		ctr, waiters, err := c.liveHead(ctx, lock, c.lookAhead)
		if err != nil {
			return admitted, err
		}
		if len(waiters) == 0 || !ctr.fits(configured, waiters[0].weight) {
			return admitted, nil
		}
		to, err := c.admitOldest(ctx, lock, configured, ctr, waiters, by)
		if err != nil {
			return admitted, err
		}
		if to == "" {
			idle++
			continue
		}
		admitted = append(admitted, to)
		idle = 0
	}
	return admitted, fmt.Errorf("%w: admit the waiters of %q: the lock changed under %d attempts", ErrBusy, lock, c.attempts)
}
