package waitqueue

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// lockState is what one consistent read of a lock item says.
type lockState struct {
	// exists is false when the lock item does not exist yet.
	exists bool
	// count is the holder counter.
	count int
	// holders are the holding executions.
	holders map[string]bool
	// queue are the waiting executions, oldest first.
	queue []string
	// tokens are the waiters' task tokens, by execution.
	tokens map[string]string
}

// parseLock reads a lock item (nil when it does not exist).
func parseLock(item map[string]types.AttributeValue) lockState {
	st := lockState{exists: item != nil, holders: map[string]bool{}, tokens: map[string]string{}}
	for name, v := range item {
		switch {
		case name == machines.AttributeHolderCount:
			if n, ok := v.(*types.AttributeValueMemberN); ok {
				st.count, _ = strconv.Atoi(n.Value)
			}
		case name == machines.AttributeQueue:
			if l, ok := v.(*types.AttributeValueMemberL); ok {
				for _, e := range l.Value {
					if s, ok := e.(*types.AttributeValueMemberS); ok {
						st.queue = append(st.queue, s.Value)
					}
				}
			}
		case machines.IsHolderAttribute(name):
			st.holders[name] = true
		case strings.HasPrefix(name, machines.AttributeWaiterTokenPrefix):
			if s, ok := v.(*types.AttributeValueMemberS); ok {
				st.tokens[strings.TrimPrefix(name, machines.AttributeWaiterTokenPrefix)] = s.Value
			}
		}
	}
	return st
}

// position is the execution's index in the queue, or -1.
func (st lockState) position(execution string) int { return slices.Index(st.queue, execution) }

// tokenAttribute names the attribute holding a waiter's task token.
func tokenAttribute(execution string) string { return machines.AttributeWaiterTokenPrefix + execution }
