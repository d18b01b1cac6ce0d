package runtimeapi

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Credentials are the dummy AWS credentials a function's process gets, in place of its
// execution role's (Config.AccessKeyID may name another key). Local APIs accept any.
const (
	AccessKeyID     = "local"
	SecretAccessKey = "local"
	SessionToken    = "local"
)

// environment is a process's environment: the function's own variables, then those Lambda
// defines (which win, as Lambda does not let a function set them), the endpoints of the local
// APIs and PATH. Nothing else of the caller's environment is passed on, as in Lambda.
func (f *Function) environment(runtimeAPI string) []string {
	env := maps.Clone(f.cfg.Environment)
	if env == nil {
		env = map[string]string{}
	}
	taskRoot := filepath.Dir(f.cfg.Binary)
	for k, v := range map[string]string{
		"_HANDLER":                        f.cfg.Handler,
		"AWS_REGION":                      f.cfg.Region,
		"AWS_DEFAULT_REGION":              f.cfg.Region,
		"AWS_LAMBDA_FUNCTION_NAME":        f.cfg.FunctionName,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(f.cfg.MemoryMB),
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_INITIALIZATION_TYPE":  "on-demand",
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/" + f.cfg.FunctionName,
		"AWS_LAMBDA_LOG_STREAM_NAME":      time.Now().UTC().Format("2006/01/02") + "/[$LATEST]" + randomHex(16),
		"AWS_LAMBDA_RUNTIME_API":          runtimeAPI,
		"AWS_ACCESS_KEY_ID":               f.cfg.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY":           SecretAccessKey,
		"AWS_SESSION_TOKEN":               SessionToken,
		"LAMBDA_TASK_ROOT":                taskRoot,
		"LAMBDA_RUNTIME_DIR":              taskRoot,
		"TZ":                              ":UTC",
		"LANG":                            "en_US.UTF-8",
		"PATH":                            os.Getenv("PATH"),
	} {
		env[k] = v
	}
	for k, url := range map[string]string{
		"AWS_ENDPOINT_URL_DYNAMODB": f.cfg.Endpoints.DynamoDB,
		"AWS_ENDPOINT_URL_SFN":      f.cfg.Endpoints.StepFunctions,
		"AWS_ENDPOINT_URL_LAMBDA":   f.cfg.Endpoints.Lambda,
	} {
		if url != "" {
			env[k] = url
		}
	}
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

// newRequestID returns a random request id in Lambda's UUID form, for invocations whose context
// carries none.
func newRequestID() string {
	h := randomHex(16)
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:])
}

// newTraceID returns an X-Ray tracing header with a fresh root, not sampled.
func newTraceID() string {
	return fmt.Sprintf("Root=1-%08x-%s;Parent=%s;Sampled=0", time.Now().Unix(), randomHex(12), randomHex(8))
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}
