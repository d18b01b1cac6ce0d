// Package handoff is the hand-off function of the Callback wait strategy: the Lambda handler
// that the semaphore machine's "Wait In Queue" task (action "park") and its release states
// (action "release") invoke, over package waitqueue. The cleanup machine invokes it too, to
// release a dead execution's slot or remove it from the queue.
package handoff
