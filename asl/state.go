package asl

// StateType names the kind of a state, as written in its "Type" field.
type StateType string

// The state types of the States Language.
const (
	TypePass     StateType = "Pass"
	TypeTask     StateType = "Task"
	TypeChoice   StateType = "Choice"
	TypeWait     StateType = "Wait"
	TypeSucceed  StateType = "Succeed"
	TypeFail     StateType = "Fail"
	TypeParallel StateType = "Parallel"
	TypeMap      StateType = "Map"
)

// State is one typed state: *Pass, *Task, *Choice, *Wait, *Succeed, *Fail, *Parallel or *Map.
type State interface {
	// Type returns the state's type.
	Type() StateType
	// Base returns the fields every state has.
	Base() *Common
	// fields returns the state's JSON fields in rendering order, "Type" first.
	fields() []field
}

// Common holds the fields every state type accepts.
type Common struct {
	// Comment is a human-readable description of the state.
	Comment string
	// QueryLanguage is the state's own query language, "JSONPath" or "JSONata"; empty means the
	// machine's.
	QueryLanguage string
	// Assign maps variable names to the values the state assigns when it ends; in a JSONata
	// state "{% %}" strings in it are expressions, in a JSONPath state keys ending in ".$" are
	// paths or intrinsic functions.
	Assign any
	// Output is a JSONata state's output template; nil means the state's result (or input).
	Output any
	// InputPath selects the part of the raw input the state works on. Absent means "$".
	InputPath *Path
	// OutputPath selects the part of the state's result passed on. Absent means "$".
	OutputPath *Path
}

// Base returns c itself; it lets every typed state satisfy State through embedding.
func (c *Common) Base() *Common { return c }

// Transition says where a non-terminal state goes next: exactly one of Next and End is set.
type Transition struct {
	// Next is the name of the state that runs after this one.
	Next string
	// End marks the state as the last one of its graph.
	End bool
}

// Next returns a Transition to the named state.
func Next(name string) Transition { return Transition{Next: name} }

// End returns a Transition that ends the graph.
func End() Transition { return Transition{End: true} }

// Pass passes its input to its output, optionally injecting a fixed Result or a Parameters
// template.
type Pass struct {
	Common
	Transition
	// Parameters is a payload template evaluated against the effective input.
	Parameters any
	// Result is a fixed value used as the state's result instead of its input.
	Result any
	// ResultPath says where in the input the result goes; absent means "$" (replace the input).
	ResultPath *Path
}

// Type returns TypePass.
func (*Pass) Type() StateType { return TypePass }

// Task runs a unit of work: an activity, a Lambda function or a service integration.
type Task struct {
	Common
	Transition
	// Resource is the ARN of the work, e.g. "arn:aws:states:::dynamodb:updateItem".
	Resource string
	// Parameters is a payload template whose result is sent to the resource.
	Parameters any
	// ResultSelector is a payload template applied to the raw result.
	ResultSelector any
	// ResultPath says where in the input the result goes; absent means "$".
	ResultPath *Path
	// TimeoutSeconds is the longest the task may run; nil means the default (60 s for
	// activities and callbacks without a heartbeat, otherwise unbounded up to the execution's).
	TimeoutSeconds *int
	// TimeoutSecondsPath reads the timeout from the input instead.
	TimeoutSecondsPath string
	// HeartbeatSeconds is the longest gap allowed between two heartbeats of a callback task.
	HeartbeatSeconds *int
	// HeartbeatSecondsPath reads the heartbeat interval from the input instead.
	HeartbeatSecondsPath string
	// Arguments is a JSONata state's payload template sent to the resource.
	Arguments any
	// TimeoutSecondsExpression is a JSONata "{% %}" expression in place of TimeoutSeconds.
	TimeoutSecondsExpression string
	// HeartbeatSecondsExpression is a JSONata "{% %}" expression in place of HeartbeatSeconds.
	HeartbeatSecondsExpression string
	// Credentials names a role to assume for the task (kept for rendering; not emulated).
	Credentials any
	// Retry lists the retriers tried in order when the task fails.
	Retry []*Retrier
	// Catch lists the catchers tried in order when retries are exhausted.
	Catch []*Catcher
}

// Type returns TypeTask.
func (*Task) Type() StateType { return TypeTask }

// Choice adds branching: the first rule that matches names the next state.
type Choice struct {
	Common
	// Choices are the rules, evaluated in order.
	Choices []*ChoiceRule
	// Default is the next state when no rule matches; without it the state fails with
	// States.NoChoiceMatched.
	Default string
}

// Type returns TypeChoice.
func (*Choice) Type() StateType { return TypeChoice }

// Wait delays the execution for a time or until a timestamp. Exactly one of its four fields is
// set.
type Wait struct {
	Common
	Transition
	// Seconds is a fixed delay; nil when another field is used.
	Seconds *int
	// Timestamp is an RFC 3339 time to wait until.
	Timestamp string
	// SecondsPath reads the delay from the input.
	SecondsPath string
	// TimestampPath reads the timestamp from the input.
	TimestampPath string
	// SecondsExpression is a JSONata "{% %}" expression in place of Seconds.
	SecondsExpression string
}

// Type returns TypeWait.
func (*Wait) Type() StateType { return TypeWait }

// Succeed stops its graph successfully.
type Succeed struct {
	Common
}

// Type returns TypeSucceed.
func (*Succeed) Type() StateType { return TypeSucceed }

// Fail stops the execution with an error name and a cause. Fail accepts neither InputPath nor
// OutputPath; the validator reports them.
type Fail struct {
	Common
	// Error is the error name.
	Error string
	// ErrorPath reads the error name from the input.
	ErrorPath string
	// Cause is the human-readable cause.
	Cause string
	// CausePath reads the cause from the input.
	CausePath string
}

// Type returns TypeFail.
func (*Fail) Type() StateType { return TypeFail }

// Parallel runs its branches at the same time on the same input; its result is the array of the
// branches' outputs, in branch order.
type Parallel struct {
	Common
	Transition
	// Branches are the graphs run in parallel.
	Branches []*Graph
	// Parameters is a payload template evaluated before the branches start.
	Parameters any
	// Arguments is the JSONata form of Parameters.
	Arguments any
	// ResultSelector is a payload template applied to the array of branch outputs.
	ResultSelector any
	// ResultPath says where in the input the result goes; absent means "$".
	ResultPath *Path
	// Retry lists the retriers tried when a branch fails.
	Retry []*Retrier
	// Catch lists the catchers tried when retries are exhausted.
	Catch []*Catcher
}

// Type returns TypeParallel.
func (*Parallel) Type() StateType { return TypeParallel }

// Map runs its item processor once per element of an array in its input.
type Map struct {
	Common
	Transition
	// ItemsPath selects the array; absent means "$".
	ItemsPath *Path
	// Items is the JSONata form of ItemsPath: an array or a "{% %}" expression giving one.
	Items any
	// ItemSelector is a payload template evaluated for each item (with $$.Map.Item.*).
	ItemSelector any
	// Parameters is the older name of ItemSelector.
	Parameters any
	// ItemProcessor is the graph run for each item.
	ItemProcessor *ItemProcessor
	// Iterator is the older name of ItemProcessor.
	Iterator *ItemProcessor
	// MaxConcurrency bounds the iterations running at once; 0 or nil means no bound.
	MaxConcurrency *int
	// MaxConcurrencyPath reads MaxConcurrency from the input.
	MaxConcurrencyPath string
	// MaxConcurrencyExpression is a JSONata "{% %}" expression in place of MaxConcurrency.
	MaxConcurrencyExpression string
	// ResultSelector is a payload template applied to the array of iteration outputs.
	ResultSelector any
	// ResultPath says where in the input the result goes; absent means "$".
	ResultPath *Path
	// Retry lists the retriers tried when an iteration fails.
	Retry []*Retrier
	// Catch lists the catchers tried when retries are exhausted.
	Catch []*Catcher
	// ToleratedFailureCount and ToleratedFailurePercentage (a number, or a JSONata expression
	// string) and their JSONPath *Path forms: the tolerated failure threshold, which AWS
	// accepts on an inline Map too.
	ToleratedFailurePercentage, ToleratedFailureCount         any
	ToleratedFailurePercentagePath, ToleratedFailureCountPath string
	// Distributed-map fields, kept for rendering and reported as unsupported by the emulator.
	ItemReader, ItemBatcher, ResultWriter any
	Label                                 string
}

// Every typed state is a State.
var (
	_ State = (*Pass)(nil)
	_ State = (*Task)(nil)
	_ State = (*Choice)(nil)
	_ State = (*Wait)(nil)
	_ State = (*Succeed)(nil)
	_ State = (*Fail)(nil)
	_ State = (*Parallel)(nil)
	_ State = (*Map)(nil)
)

// Type returns TypeMap.
func (*Map) Type() StateType { return TypeMap }

// Processor returns the item processor, whichever of ItemProcessor and Iterator is set.
func (m *Map) Processor() *ItemProcessor {
	if m.ItemProcessor != nil {
		return m.ItemProcessor
	}
	return m.Iterator
}

// Graph is a set of states with a start: a Parallel branch, or the body of a machine.
type Graph struct {
	// Comment is a human-readable description.
	Comment string
	// StartAt names the first state.
	StartAt string
	// States are the graph's states, in rendering order.
	States States
}

// ProcessorConfig says how a Map state runs its items.
type ProcessorConfig struct {
	// Mode is "INLINE" (the default) or "DISTRIBUTED".
	Mode string
	// ExecutionType is "STANDARD" or "EXPRESS" for distributed maps.
	ExecutionType string
}

// ItemProcessor is the graph a Map state runs for each item.
type ItemProcessor struct {
	Graph
	// ProcessorConfig says how the items are processed; nil means inline.
	ProcessorConfig *ProcessorConfig
}

// NamedState pairs a state with its name.
type NamedState struct {
	// Name is the state's name, unique within its graph.
	Name string
	// State is the state itself.
	State State
}

// States is an ordered list of named states; the order is the rendering order.
type States []NamedState

// Get returns the state with the given name, or nil.
func (s States) Get(name string) State {
	for _, n := range s {
		if n.Name == name {
			return n.State
		}
	}
	return nil
}
