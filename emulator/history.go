package emulator

import "github.com/turnstile-sfn/turnstile/emulator/sfnapi"

// HistoryEvent is one event of an execution's history. The emulator records the events in the
// shape of the Step Functions API (package sfnapi), which GetExecutionHistory returns as they
// are: ids from 1, PreviousEventID linking each event to the one it follows in its flow, and the
// details object of its type (none for some types, such as ParallelStateStarted). Input and
// output payloads are JSON text.
type HistoryEvent = sfnapi.HistoryEvent

// enteredEvent and exitedEvent give the event types of each state type.
var (
	enteredEvent = map[string]sfnapi.HistoryEventType{
		"Pass": sfnapi.EventPassStateEntered, "Choice": sfnapi.EventChoiceStateEntered, "Wait": sfnapi.EventWaitStateEntered,
		"Succeed": sfnapi.EventSucceedStateEntered, "Fail": sfnapi.EventFailStateEntered, "Task": sfnapi.EventTaskStateEntered,
		"Parallel": sfnapi.EventParallelStateEntered, "Map": sfnapi.EventMapStateEntered,
	}
	exitedEvent = map[string]sfnapi.HistoryEventType{
		"Pass": sfnapi.EventPassStateExited, "Choice": sfnapi.EventChoiceStateExited, "Wait": sfnapi.EventWaitStateExited,
		"Succeed": sfnapi.EventSucceedStateExited, "Task": sfnapi.EventTaskStateExited,
		"Parallel": sfnapi.EventParallelStateExited, "Map": sfnapi.EventMapStateExited,
	}
)

// untruncated returns the data details of a payload the emulator records: never truncated.
func untruncated() *sfnapi.HistoryEventExecutionDataDetails {
	return &sfnapi.HistoryEventExecutionDataDetails{}
}
