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
	// CPUSeconds is the CPU time (user and system) the interpreter's process used during the
	// run; 0 where it is not measured. On a machine shared with other work it varies much less
	// than Seconds.
	CPUSeconds float64 `json:"cpuSeconds"`
	// DynamoDBRequests counts the requests the DynamoDB tasks sent.
	DynamoDBRequests int64 `json:"dynamodbRequests"`
	// FirstOutput is the output of the first execution, to compare the interpreters by.
	FirstOutput json.RawMessage `json:"firstOutput"`
}

// ExecutionsPerCPUSecond is Executions / CPUSeconds, 0 when the CPU time was not measured.
func (r Result) ExecutionsPerCPUSecond() float64 {
	if r.CPUSeconds <= 0 {
		return 0
	}
	return float64(r.Executions) / r.CPUSeconds
}

// Median returns the median of metric over results (the upper median of an even count); 0
// for none.
func Median(results []Result, metric func(Result) float64) float64 {
	if len(results) == 0 {
		return 0
	}
	values := make([]float64, len(results))
	for i, r := range results {
		values[i] = metric(r)
	}
	slices.Sort(values)
	return values[len(values)/2]
}

// ExecutionsPerSecond is Result.ExecutionsPerSecond as a metric for Median.
func ExecutionsPerSecond(r Result) float64 { return r.ExecutionsPerSecond }

// DynamoDBRequestsPerExecution is the mean number of DynamoDB requests of an execution.
func DynamoDBRequestsPerExecution(r Result) float64 {
	return float64(r.DynamoDBRequests) / float64(max(r.Executions, 1))
}
