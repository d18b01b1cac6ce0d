package eventbus

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Event is an EventBridge event with its standard envelope. It marshals to exactly the JSON
// EventBridge delivers to targets.
type Event struct {
	// Version is always "0".
	Version string `json:"version"`
	// ID identifies the event.
	ID string `json:"id"`
	// DetailType is the event's type, e.g. "Step Functions Execution Status Change".
	DetailType string `json:"detail-type"`
	// Source is the emitting service or application, e.g. "aws.states".
	Source string `json:"source"`
	// Account is the AWS account ID of the source.
	Account string `json:"account"`
	// Time is the event time in UTC, formatted as EventBridge does (2019-02-26T19:42:21Z).
	Time string `json:"time"`
	// Region is the AWS region of the source.
	Region string `json:"region"`
	// Resources lists the ARNs the event concerns (never null).
	Resources []string `json:"resources"`
	// Detail is the event-specific JSON object.
	Detail json.RawMessage `json:"detail"`
}

// Envelope constants.
const (
	// EventVersion is the version of every EventBridge event.
	EventVersion = "0"
	// SourceScheduler is the source of scheduled-rule events.
	SourceScheduler = "aws.events"
	// DetailTypeScheduled is the detail-type of scheduled-rule events.
	DetailTypeScheduled = "Scheduled Event"
)

// eventTimeLayout is the format of the envelope's time field.
const eventTimeLayout = "2006-01-02T15:04:05Z"

// FormatEventTime renders t the way the envelope's time field does (UTC, whole seconds).
func FormatEventTime(t time.Time) string {
	return t.UTC().Format(eventTimeLayout)
}

// ScheduledEvent builds the event a scheduled rule sends its targets at time at. Account and
// region come from the rule's ARN.
func ScheduledEvent(id string, at time.Time, ruleARN string) (Event, error) {
	account, region, ok := arnAccountRegion(ruleARN, "events")
	if !ok {
		return Event{}, fmt.Errorf("eventbus: %w: rule ARN %q is malformed", ErrInvalidEvent, ruleARN)
	}
	return Event{
		Version:    EventVersion,
		ID:         id,
		DetailType: DetailTypeScheduled,
		Source:     SourceScheduler,
		Account:    account,
		Time:       FormatEventTime(at),
		Region:     region,
		Resources:  []string{ruleARN},
		Detail:     json.RawMessage(`{}`),
	}, nil
}

// arnAccountRegion reads the region and account of an ARN of the given service
// (arn:partition:service:region:account:resource).
func arnAccountRegion(arn, service string) (account, region string, ok bool) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != service || parts[3] == "" || parts[4] == "" || parts[5] == "" {
		return "", "", false
	}
	return parts[4], parts[3], true
}

// validate checks what Publish needs of an event and fills in the defaults EventBridge
// applies (version, an empty resources list, an empty detail object).
func (e Event) validate() (Event, error) {
	if e.Source == "" || e.DetailType == "" {
		return e, fmt.Errorf("eventbus: %w: source and detail-type are required", ErrInvalidEvent)
	}
	if e.Version == "" {
		e.Version = EventVersion
	}
	if e.Resources == nil {
		e.Resources = []string{}
	}
	if len(e.Detail) == 0 {
		e.Detail = json.RawMessage(`{}`)
	}
	var detail map[string]any
	if err := json.Unmarshal(e.Detail, &detail); err != nil || detail == nil {
		return e, fmt.Errorf("eventbus: %w: detail must be a JSON object", ErrInvalidEvent)
	}
	return e, nil
}
