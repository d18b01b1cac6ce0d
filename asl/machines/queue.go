package machines

// The actions of the hand-off function (Callback strategy), named in its payload's "action".
const (
	// HandOffActionPark admits the execution (a free slot, nobody older waiting) or puts it in
	// the lock's queue under its ticket, and completes its task token when it holds a slot.
	HandOffActionPark = "park"
	// HandOffActionRelease gives the execution's slot to the oldest waiter, or back to the
	// lock when nobody waits.
	HandOffActionRelease = "release"
	// HandOffActionLeave takes a waiting execution out of the queue (its acquire timed out),
	// handing on a slot it was given meanwhile.
	HandOffActionLeave = "leave"
)
