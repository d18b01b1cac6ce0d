package submit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Config is what the function submits to.
type Config struct {
	// TableName is the lock table. Required.
	TableName string
	// StateMachineArn is the semaphore machine (Callback strategy). Required.
	StateMachineArn string
	// Limit is the semaphore's limit. Required.
	Limit int
	// LockName is the fixed lock name; exactly one of LockName and LockNamePath is required.
	LockName string
	// LockNamePath is where each input names its lock: a "$." path of member names
	// ("$.deployment.environment").
	LockNamePath string
	// TTL is how long a submission may wait. Default: lock.DefaultSubmissionTTL.
	TTL time.Duration
}

// ErrConfig is wrapped by the errors of a configuration the function cannot serve.
var ErrConfig = errors.New("submit: invalid configuration")

// ErrNoLockName: the input has no non-empty string at the LockNamePath.
var ErrNoLockName = errors.New("submit: the execution input has no non-empty string at the lock name path")

// ConfigFromEnv reads a Config from the environment the Semaphore construct sets.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(name string) string { v, _ := lookup(name); return v }
	c := Config{TableName: get(machines.EnvReconcilerLockTable), StateMachineArn: get(machines.EnvReconcilerStateMachineArn),
		LockName: get(machines.EnvSubmitLockName), LockNamePath: get(machines.EnvSubmitLockNamePath)}
	var err error
	if c.Limit, err = strconv.Atoi(get(machines.EnvReconcilerLimit)); err != nil {
		return c, fmt.Errorf("%w: %s must be the semaphore's limit: %v", ErrConfig, machines.EnvReconcilerLimit, err)
	}
	if raw := get(machines.EnvSubmitTTL); raw != "" {
		if c.TTL, err = time.ParseDuration(raw); err != nil {
			return c, fmt.Errorf("%w: %s must be a duration such as 24h: %v", ErrConfig, machines.EnvSubmitTTL, err)
		}
	}
	return c, c.validate()
}

func (c Config) validate() error {
	switch {
	case c.TableName == "" || !strings.Contains(c.StateMachineArn, ":stateMachine:") || c.Limit < 1:
		return fmt.Errorf("%w: the lock table, the state machine ARN and a limit of at least 1 are required", ErrConfig)
	case (c.LockName == "") == (c.LockNamePath == ""):
		return fmt.Errorf("%w: exactly one of the lock name and the lock name path is required", ErrConfig)
	case c.LockNamePath != "" && (!machines.IsLockNamePath(c.LockNamePath) || strings.ContainsAny(c.LockNamePath, "[]'\"")):
		return fmt.Errorf("%w: the lock name path %q is not a \"$.\" path of member names", ErrConfig, c.LockNamePath)
	}
	return nil
}

// Handler serves the function's invocations.
type Handler struct {
	cfg   Config
	locks *lock.Client
}

// New returns the Handler submitting to cfg's semaphore through locks.
func New(cfg Config, locks *lock.Client) (*Handler, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Handler{cfg: cfg, locks: locks}, nil
}

// Response is what an invocation returns.
type Response struct {
	// Submissions are the submissions made, in the order of the inputs.
	Submissions []lock.Submission `json:"submissions,omitempty"`
	// BatchItemFailures are the SQS records to redeliver (the event source mapping's
	// ReportBatchItemFailures response).
	BatchItemFailures []BatchItemFailure `json:"batchItemFailures,omitempty"`
}

// BatchItemFailure names an SQS record whose submission failed.
type BatchItemFailure struct {
	ItemIdentifier string `json:"itemIdentifier"`
}

// event is the shape shared by the three wirings' payloads, as far as telling them apart needs.
type event struct {
	Records []struct {
		MessageID   string `json:"messageId"`
		EventSource string `json:"eventSource"`
		Body        string `json:"body"`
	} `json:"Records"`
	DetailType *string         `json:"detail-type"`
	Source     string          `json:"source"`
	Detail     json.RawMessage `json:"detail"`
}

// Handle submits the invocation's inputs: an SQS batch's bodies, an EventBridge event's
// detail, or the payload itself.
func (h *Handler) Handle(ctx context.Context, payload json.RawMessage) (Response, error) {
	var e event
	_ = json.Unmarshal(payload, &e) // a payload that is no object is an input like any
	switch {
	case len(e.Records) > 0 && e.Records[0].EventSource == "aws:sqs":
		var res Response
		for _, r := range e.Records {
			s, err := h.submit(ctx, r.Body)
			if err != nil && s.ID == "" {
				res.BatchItemFailures = append(res.BatchItemFailures, BatchItemFailure{ItemIdentifier: r.MessageID})
				continue
			}
			res.Submissions = append(res.Submissions, s)
		}
		return res, nil
	case e.DetailType != nil && e.Source != "" && len(e.Detail) > 0:
		return h.one(ctx, string(e.Detail))
	}
	return h.one(ctx, string(payload))
}

// one submits a single input; a failure after the submission was queued (its start, which
// the reconciler finishes) is no failure of the invocation.
func (h *Handler) one(ctx context.Context, input string) (Response, error) {
	s, err := h.submit(ctx, input)
	if err != nil && s.ID == "" {
		return Response{}, err
	}
	return Response{Submissions: []lock.Submission{s}}, nil
}

func (h *Handler) submit(ctx context.Context, input string) (lock.Submission, error) {
	name := h.cfg.LockName
	if h.cfg.LockNamePath != "" {
		var err error
		if name, err = lockNameAt(input, h.cfg.LockNamePath); err != nil {
			return lock.Submission{}, err
		}
	}
	return h.locks.Submit(ctx, lock.SubmitRequest{Lock: name, Limit: h.cfg.Limit, StateMachine: h.cfg.StateMachineArn, Input: input, TTL: h.cfg.TTL})
}

// lockNameAt reads the string at path ("$.a.b", member names only) in the JSON input.
func lockNameAt(input, path string) (string, error) {
	var v any
	if err := json.Unmarshal([]byte(input), &v); err != nil {
		return "", fmt.Errorf("%w: the input is not JSON: %v", lock.ErrInvalidRequest, err)
	}
	for _, name := range strings.Split(strings.TrimPrefix(path, "$."), ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return "", fmt.Errorf("%w (%s)", ErrNoLockName, path)
		}
		v = obj[name]
	}
	s, ok := v.(string)
	if !ok || s == "" {
		return "", fmt.Errorf("%w (%s)", ErrNoLockName, path)
	}
	return s, nil
}
