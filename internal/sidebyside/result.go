package sidebyside

import (
	"encoding/json"
	"errors"
	"slices"
)

// Load is how many executions a run starts and how many run at once.
type Load struct {
	// Executions is the number of executions of the run.
	Executions int
	// Concurrency is the number of executions in flight at a time.
	Concurrency int
}

// ErrInvalidLoad reports a Load with a count below 1.
var ErrInvalidLoad = errors.New("sidebyside: Load.Executions and Load.Concurrency must be >= 1")

func (l Load) check() error {
	if l.Executions < 1 || l.Concurrency < 1 {
		return ErrInvalidLoad
	}
	return nil
}

// Result is what one run measured.
type Result struct {
	// Executions is the number of executions, all succeeded.
	Executions int `json:"executions"`
	// Seconds is the wall-clock time from the first start to the last end.
	Seconds float64 `json:"seconds"`
	// ExecutionsPerSecond is Executions / Seconds.
	ExecutionsPerSecond float64 `json:"executionsPerSecond"`
	// DynamoDBRequests counts the requests the DynamoDB tasks sent.
	DynamoDBRequests int64 `json:"dynamodbRequests"`
	// FirstOutput is the output of the first execution, to compare the interpreters by.
	FirstOutput json.RawMessage `json:"firstOutput"`
}

// Median returns the result of median executions per second among results (the upper median
// of an even count); the zero Result for none.
func Median(results []Result) Result {
	if len(results) == 0 {
		return Result{}
	}
	sorted := slices.Clone(results)
	slices.SortFunc(sorted, func(a, b Result) int {
		switch {
		case a.ExecutionsPerSecond < b.ExecutionsPerSecond:
			return -1
		case a.ExecutionsPerSecond > b.ExecutionsPerSecond:
			return 1
		}
		return 0
	})
	return sorted[len(sorted)/2]
}
