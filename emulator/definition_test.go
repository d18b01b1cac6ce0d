package emulator

import (
	"errors"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl"
)

func TestCreateStateMachineRejects(t *testing.T) {
	em := newEmulator(t, 0, newFake().handle("arn:aws:states:::lambda:invoke", returning(nil)))
	tests := []struct {
		name       string
		definition string
		opts       StateMachineOptions
		kind       error  // asl.ErrInvalidDefinition or asl.ErrUnsupported
		state      string // the state the error names
		field      string // the field it names
	}{
		{"Next naming no state", `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"Nowhere"}}}`, StateMachineOptions{},
			asl.ErrInvalidDefinition, "A", "Next"},
		{"Catch naming no state", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke",
"Catch":[{"ErrorEquals":["States.ALL"],"Next":"Gone"}],"End":true}}}`, StateMachineOptions{}, asl.ErrInvalidDefinition, "A", "Catch[0].Next"},
		{"unknown field", `{"StartAt":"A","States":{"A":{"Type":"Pass","Colour":"red","End":true}}}`, StateMachineOptions{},
			asl.ErrInvalidDefinition, "A", "Colour"},
		{"invalid JSONPath", `{"StartAt":"A","States":{"A":{"Type":"Pass","InputPath":"$.a[","End":true}}}`, StateMachineOptions{},
			asl.ErrInvalidDefinition, "A", "InputPath"},
		{"ResultPath with a wildcard", `{"StartAt":"A","States":{"A":{"Type":"Pass","ResultPath":"$.a[*]","End":true}}}`, StateMachineOptions{},
			asl.ErrInvalidDefinition, "A", "ResultPath"},
		{"invalid intrinsic function", `{"StartAt":"A","States":{"A":{"Type":"Pass","Parameters":{"x.$":"States.Format('a'"},"End":true}}}`, StateMachineOptions{},
			asl.ErrInvalidDefinition, "A", "Parameters"},
		{"nested state", `{"StartAt":"P","States":{"P":{"Type":"Parallel","End":true,"Branches":[{"StartAt":"X","States":{"X":{"Type":"Wait","End":true}}}]}}}`,
			StateMachineOptions{}, asl.ErrInvalidDefinition, "P/Branches[0]/X", "Seconds"},
		{"JSONPath field in a JSONata state", `{"QueryLanguage":"JSONata","StartAt":"A","States":{"A":{"Type":"Pass","ResultPath":"$.x","End":true}}}`, StateMachineOptions{},
			asl.ErrInvalidDefinition, "A", "ResultPath"},
		{"invalid JSONata expression", `{"QueryLanguage":"JSONata","StartAt":"A","States":{"A":{"Type":"Pass","Output":{"x":"{% $states.input.( %}"},"End":true}}}`, StateMachineOptions{},
			asl.ErrInvalidDefinition, "A", "Output"},
		{"Assign not an object", `{"StartAt":"A","States":{"A":{"Type":"Pass","Assign":[1],"End":true}}}`, StateMachineOptions{},
			asl.ErrInvalidDefinition, "A", "Assign"},
		{"distributed Map", `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"ItemProcessor":{"ProcessorConfig":{"Mode":"DISTRIBUTED","ExecutionType":"STANDARD"},
"StartAt":"X","States":{"X":{"Type":"Pass","End":true}}}}}}`, StateMachineOptions{}, asl.ErrUnsupported, "M", "ItemProcessor.ProcessorConfig.Mode"},
		{"ItemReader", `{"StartAt":"M","States":{"M":{"Type":"Map","End":true,"ItemReader":{"Resource":"arn:aws:states:::s3:getObject"},
"ItemProcessor":{"StartAt":"X","States":{"X":{"Type":"Pass","End":true}}}}}}`, StateMachineOptions{}, asl.ErrUnsupported, "M", "ItemReader"},
		{"activity", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:us-east-1:123456789012:activity:approve","End":true}}}`,
			StateMachineOptions{}, asl.ErrUnsupported, "A", "Resource"},
		{"resource with no integration", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::sns:publish","End":true}}}`,
			StateMachineOptions{}, asl.ErrUnsupported, "A", "Resource"},
		{".sync on an integration without it", `{"StartAt":"A","States":{"A":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.sync","End":true}}}`,
			StateMachineOptions{}, asl.ErrUnsupported, "A", "Resource"},
		{"Express machine", passMachine, StateMachineOptions{Type: TypeExpress}, asl.ErrUnsupported, "", "Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := em.CreateStateMachine("rejected", tt.definition, tt.opts)
			if !errors.Is(err, ErrInvalidDefinition) || !errors.Is(err, tt.kind) {
				t.Fatalf("got %v, want an InvalidDefinition error wrapping %v", err, tt.kind)
			}
			var de *asl.DefinitionError
			if !errors.As(err, &de) || de.State != tt.state || de.Field != tt.field {
				t.Errorf("got %v, want it to name state %q and field %q", err, tt.state, tt.field)
			}
			if tt.kind == asl.ErrUnsupported && !strings.Contains(err.Error(), "not supported") {
				t.Errorf("message %q does not say \"not supported\"", err)
			}
		})
	}
}

func TestCreateStateMachineIsIdempotent(t *testing.T) {
	em := newEmulator(t, 0)
	first, err := em.CreateStateMachine("same", passMachine, StateMachineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := em.CreateStateMachine("same", passMachine, StateMachineOptions{})
	if err != nil || again != first {
		t.Errorf("same definition: got %q %v, want %q", again, err, first)
	}
	if _, err := em.CreateStateMachine("same", `{"StartAt":"Q","States":{"Q":{"Type":"Succeed"}}}`, StateMachineOptions{}); !errors.Is(err, ErrStateMachineExists) {
		t.Errorf("another definition: got %v, want StateMachineAlreadyExists", err)
	}
	if _, err := em.CreateStateMachine("bad name", passMachine, StateMachineOptions{}); !errors.Is(err, ErrInvalidName) {
		t.Errorf("invalid name: got %v, want InvalidName", err)
	}
}
