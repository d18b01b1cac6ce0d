package asl

// The query languages of the States Language.
const (
	QueryLanguageJSONPath = "JSONPath"
	QueryLanguageJSONata  = "JSONata"
)

// StateMachine is a whole definition: the top-level graph plus the fields only a machine has.
type StateMachine struct {
	// Comment is a human-readable description of the machine.
	Comment string
	// QueryLanguage is "JSONPath" (the default) or "JSONata", the default of every
	// state.
	QueryLanguage string
	// StartAt names the first state.
	StartAt string
	// Version is the States Language version, "1.0" when set.
	Version string
	// TimeoutSeconds bounds the whole execution; nil means the service's limit.
	TimeoutSeconds *int
	// States are the machine's states, in rendering order.
	States States
}

// Graph returns the machine's top-level graph.
func (m *StateMachine) Graph() *Graph {
	return &Graph{Comment: m.Comment, StartAt: m.StartAt, States: m.States}
}
