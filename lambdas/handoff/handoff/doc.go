// Package handoff is the hand-off function of the Callback wait strategy: the Lambda handler
// that the semaphore machine's "Wait In Queue" task (action "park"), its release states (action
// "release") and its "Leave Queue" state (action "leave") invoke, over package lock. The cleanup
// machine invokes it too, to release a dead execution's slot.
package handoff
