package template

import (
	"time"

	"github.com/turnstile-sfn/turnstile/internal/metadata"
)

// Function is an AWS::Lambda::Function, with what the emulator needs to bind it to a Go
// handler and run it with Lambda's limits.
type Function struct {
	// LogicalID is the resource's logical ID in the template.
	LogicalID string
	// CDKPath is the construct path CDK recorded in the aws:cdk:path metadata ("" if none).
	CDKPath string
	// Name is the physical function name (FunctionName, or the emulator's deterministic name).
	Name string
	// ARN is the unqualified function ARN.
	ARN string
	// Handler is the handler setting ("" for container images).
	Handler string
	// Runtime is the runtime identifier, e.g. provided.al2023.
	Runtime string
	// Architectures lists the instruction set architectures (default [x86_64]).
	Architectures []string
	// MemorySize is the memory in MB (default 128).
	MemorySize int
	// Timeout is the maximum run time of one invocation (default 3 s).
	Timeout time.Duration
	// ReservedConcurrency is the reserved concurrent executions; nil when unreserved.
	ReservedConcurrency *int
	// Environment holds the resolved environment variables.
	Environment map[string]string
	// RoleARN is the execution role's ARN.
	RoleARN string
	// AssetPath is the aws:asset:path metadata CDK records for bundled code ("" if none).
	AssetPath string
	// GoPackage is the import path of the Go package the function is built from, as Turnstile's
	// Go Lambda construct records it in the metadata.GoPackage metadata ("" if none). The
	// emulator runs the function from it.
	GoPackage string
}

// Lambda defaults applied when the template does not set a value.
const (
	DefaultFunctionMemoryMB       = 128
	DefaultFunctionTimeoutSeconds = 3
	DefaultArchitecture           = "x86_64"
)

// assetPathKey is the metadata key under which CDK records an asset's staging directory.
const assetPathKey = "aws:asset:path"

// function resolves an AWS::Lambda::Function.
func (r *resolver) function(id string, res rawResource) (Function, error) {
	f := Function{LogicalID: id, CDKPath: res.cdkPath(), Architectures: []string{DefaultArchitecture}}
	f.AssetPath, _ = res.Metadata[assetPathKey].(string)
	f.GoPackage, _ = res.Metadata[metadata.GoPackage].(string)
	name, err := r.physicalName(id, res)
	if err != nil {
		return f, err
	}
	attrs, _, err := r.attributes(id, res, name)
	if err != nil {
		return f, err
	}
	f.Name, f.ARN = name, attrs["Arn"]
	if f.Handler, err = r.stringProperty(id, res, "Handler", ""); err != nil {
		return f, err
	}
	if f.Runtime, err = r.stringProperty(id, res, "Runtime", ""); err != nil {
		return f, err
	}
	if f.RoleARN, err = r.stringProperty(id, res, "Role", ""); err != nil {
		return f, err
	}
	if f.MemorySize, err = r.intProperty(id, res, "MemorySize", DefaultFunctionMemoryMB); err != nil {
		return f, err
	}
	if f.Timeout, err = r.secondsProperty(id, res, "Timeout", DefaultFunctionTimeoutSeconds); err != nil {
		return f, err
	}
	if f.ReservedConcurrency, err = r.optionalIntProperty(id, res, "ReservedConcurrentExecutions"); err != nil {
		return f, err
	}
	if _, err := r.decodeProperty(id, res, "Architectures", &f.Architectures); err != nil {
		return f, err
	}
	if f.Environment, err = r.environment(id, res); err != nil {
		return f, err
	}
	return f, nil
}

// environment resolves Environment.Variables; numbers and booleans become their string form.
func (r *resolver) environment(id string, res rawResource) (map[string]string, error) {
	v, present, err := r.property(id, res, "Environment")
	if err != nil || !present {
		return map[string]string{}, err
	}
	s := propertySite(id, "Environment")
	env, ok := v.(map[string]any)
	if !ok {
		return nil, s.failf(ErrInvalidProperty, "Environment must be an object")
	}
	vars, _ := env["Variables"].(map[string]any)
	out := make(map[string]string, len(vars))
	for _, k := range sortedKeys(vars) {
		if out[k], ok = scalarString(vars[k]); !ok {
			return nil, s.key("Variables").key(k).failf(ErrInvalidProperty, "environment variable must be a string")
		}
	}
	return out, nil
}
