// Package semcheck checks what a counting semaphore did: it records the acquires and releases of
// its clients as a history and checks the history for linearizability against a model of a
// counting semaphore of limit N (with github.com/anishathalye/porcupine). The invariant of a
// lock's state (the counter equals the holder items, never above the limit, nobody both holds
// and waits) is package lock's: read with lock.Client.Read, check with lock.State.Check.
//
// The model: the state is the set of holders. Acquire(h) returns Acquired when h held a slot or
// one was free (h then holds one), Full when h held none and none was free. Release(h) returns
// Released when h held a slot (it then holds none), NotHeld when it held none. An operation whose
// outcome its client never learned (the reply was lost and the client gave up) is recorded
// without a return: it may or may not have taken effect, at any time after its call. When
// nothing can apply it later (behind a faultproxy, which never delivers a lost request late),
// Call.Abandon records it as over when its client gave up, which keeps the check precise and
// fast. CheckFrom checks a part of a long history from the holders read at a quiescent point.
//
// LockClient runs the Poll machine's own acquire transaction, read-back Query and release
// transaction (the Parameters of its tasks, rendered by machines.Semaphore) through the
// emulator's DynamoDB integration and records them; Variant breaks the protocol on purpose, to
// show the checks catch it.
//
// The queue protocol of the Callback strategy (package lock: Park with a ticket, Release,
// Leave) has a model of its own, QueueModel: a FIFO counting semaphore whose state is the
// holders and the waiters in ticket order. A park takes a free slot only when no older ticket
// waits; a release hands its slot to the oldest waiter (lock.ReleaseResult.HandedTo), and back
// to the lock only when nobody waits; a waiter admitted to a free slot by someone else's
// operation (seen as its wake-up, recorded with Recorder.BeginSince from that operation's
// call) must be the oldest; Settled pins the state read at a quiescent point. CheckQueue checks
// a history against it, and OutOfOrder counts the admissions that real time alone proves
// overtook an older ticket.
//
//	recorder := semcheck.NewRecorder()
//	call := recorder.Begin(client, semcheck.Acquire(holder))
//	// ... send the conditional UpdateItem; read back on a failed condition ...
//	call.End(semcheck.Acquired) // or leave it open if the outcome is unknown
//	if err := semcheck.Check(limit, recorder.Operations(), time.Minute); err != nil {
//		// errors.Is(err, semcheck.ErrNotLinearizable): the semaphore broke its promise
//	}
//
//	state, err := locks.Read(ctx, lockName) // locks: a *lock.Client past any fault proxy
//	if err == nil {
//		err = state.Check(limit) // errors.Is(err, lock.ErrInvariant) when broken
//	}
package semcheck
