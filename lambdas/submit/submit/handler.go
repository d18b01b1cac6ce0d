package submit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/turnstile-sfn/turnstile/asl"
	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/lock"
)

// Config is what the function submits to.
type Config struct {
	// TableName is the lock table. Required.
	TableName string
	// StateMachineArn is the semaphore machine (Callback strategy). Required.
	StateMachineArn string
	// Limit is the semaphore's limit. Required, except with SeveralLocks.
	Limit int
	// LockName is the fixed lock name; exactly one of LockName, LockNamePath and SeveralLocks
	// is required.
	LockName string
	// LockNamePath is where each input names its lock: a "$." path of member names
	// ("$.deployment.environment").
	LockNamePath string
	// SeveralLocks is true for a semaphore with several locks or a total cap: each input waits
	// for the first lock its execution takes (machines.InputLocks), read from the machine's
	// definition by LoadInputLocks.
	SeveralLocks bool
	// InputLocks is, with SeveralLocks, what the machine reads of each input to list its locks;
	// LoadInputLocks sets it. Required with SeveralLocks.
	InputLocks *machines.InputLocks
	// TTL is how long a submission may wait. Default: lock.DefaultSubmissionTTL.
	TTL time.Duration
	// PriorityPath is where each input gives its priority (the semaphore's PriorityPath, a
	// "$." path of member names); "" without priorities.
	PriorityPath string
	// PriorityAgeing is the semaphore's PriorityAgeing; required with PriorityPath.
	PriorityAgeing int64
	// WeightPath is where each input gives its weight (the semaphore's WeightPath, a "$."
	// path of member names); "" without weighted permits.
	WeightPath string
}

// ErrConfig is wrapped by the errors of a configuration the function cannot serve.
var ErrConfig = errors.New("submit: invalid configuration")

// ErrNoLockName: the input has no non-empty string at the LockNamePath.
var ErrNoLockName = errors.New("submit: the execution input has no non-empty string at the lock name path")

// DescribeStateMachineAPI is what LoadInputLocks needs of Step Functions; *sfn.Client has it.
type DescribeStateMachineAPI interface {
	DescribeStateMachine(ctx context.Context, in *sfn.DescribeStateMachineInput, opts ...func(*sfn.Options)) (*sfn.DescribeStateMachineOutput, error)
}

// LoadInputLocks reads, for a Config with SeveralLocks, the machine's definition
// (DescribeStateMachine) and sets InputLocks from it: the submit function calls it once, at cold
// start. Other Configs are returned as they are.
func LoadInputLocks(ctx context.Context, api DescribeStateMachineAPI, c Config) (Config, error) {
	if !c.SeveralLocks {
		return c, nil
	}
	out, err := api.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(c.StateMachineArn)})
	if err != nil {
		return c, fmt.Errorf("submit: read the definition of %s (the function needs states:DescribeStateMachine on it): %w", c.StateMachineArn, err)
	}
	m, err := asl.Parse([]byte(aws.ToString(out.Definition)))
	if err != nil {
		return c, fmt.Errorf("%w: the definition of %s: %v", ErrConfig, c.StateMachineArn, err)
	}
	first, ok := machines.SemaphoreInputLocks(m)
	if !ok {
		return c, fmt.Errorf("%w: %s is no Turnstile semaphore with several locks or a total cap (%s is set)", ErrConfig, c.StateMachineArn, machines.EnvSubmitSeveralLocks)
	}
	c.InputLocks = &first
	return c, nil
}

// ConfigFromEnv reads a Config from the environment the Semaphore construct sets.
func ConfigFromEnv(lookup func(string) (string, bool)) (Config, error) {
	get := func(name string) string { v, _ := lookup(name); return v }
	c := Config{TableName: get(machines.EnvReconcilerLockTable), StateMachineArn: get(machines.EnvReconcilerStateMachineArn),
		LockName: get(machines.EnvSubmitLockName), LockNamePath: get(machines.EnvSubmitLockNamePath), SeveralLocks: get(machines.EnvSubmitSeveralLocks) == "true",
		PriorityPath: get(machines.EnvSubmitPriorityPath), WeightPath: get(machines.EnvSubmitWeightPath)}
	var err error
	if raw := get(machines.EnvSubmitPriorityAgeing); raw != "" {
		if c.PriorityAgeing, err = strconv.ParseInt(raw, 10, 64); err != nil {
			return c, fmt.Errorf("%w: %s must be the semaphore's PriorityAgeing: %v", ErrConfig, machines.EnvSubmitPriorityAgeing, err)
		}
	}
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
	case c.TableName == "" || !strings.Contains(c.StateMachineArn, ":stateMachine:") || (c.Limit < 1 && !c.SeveralLocks):
		return fmt.Errorf("%w: the lock table, the state machine ARN and a limit of at least 1 are required", ErrConfig)
	case c.SeveralLocks && (c.LockName != "" || c.LockNamePath != "" || c.PriorityPath != "" || c.WeightPath != ""):
		return fmt.Errorf("%w: a semaphore with several locks or a total cap has no single lock name, lock name path, priority path or weight path", ErrConfig)
	case !c.SeveralLocks && (c.LockName == "") == (c.LockNamePath == ""):
		return fmt.Errorf("%w: exactly one of the lock name and the lock name path is required", ErrConfig)
	case c.LockNamePath != "" && !memberPath(c.LockNamePath):
		return fmt.Errorf("%w: the lock name path %q is not a \"$.\" path of member names", ErrConfig, c.LockNamePath)
	case c.PriorityPath != "" && !memberPath(c.PriorityPath), c.WeightPath != "" && !memberPath(c.WeightPath):
		return fmt.Errorf("%w: the priority path %q and the weight path %q must be \"$.\" paths of member names (or empty)", ErrConfig, c.PriorityPath, c.WeightPath)
	case (c.PriorityPath == "") != (c.PriorityAgeing == 0):
		return fmt.Errorf("%w: the priority path and the priority ageing come together (the semaphore's PriorityPath and PriorityAgeing)", ErrConfig)
	case c.PriorityPath != "":
		if err := lock.CheckPriority(lock.MinPriority, c.PriorityAgeing); err != nil {
			return fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	return nil
}

// memberPath reports whether p is a "$." path of member names.
func memberPath(p string) bool {
	return machines.IsLockNamePath(p) && !strings.ContainsAny(p, "[]'\"")
}

// order is what the semaphore reads of each input to order it.
func (c Config) order() machines.InputOrder {
	return machines.InputOrder{PriorityPath: c.PriorityPath, PriorityAgeing: c.PriorityAgeing, WeightPath: c.WeightPath, Limit: c.Limit}
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
	if cfg.SeveralLocks && cfg.InputLocks == nil {
		return nil, fmt.Errorf("%w: with several locks, read the machine's locks first (LoadInputLocks)", ErrConfig)
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

// submit submits one input to its lock (with several locks, the first its execution takes),
// with the priority and weight it gives; an input the machine would refuse (no lock name, an
// invalid priority or weight) is not submitted: a named error (ErrNoLockName,
// machines.ErrInputLockName, machines.ErrInputPriority, machines.ErrInputWeight).
func (h *Handler) submit(ctx context.Context, input string) (lock.Submission, error) {
	var doc any
	if err := json.Unmarshal([]byte(input), &doc); err != nil {
		return lock.Submission{}, fmt.Errorf("%w: the input is not JSON: %v", lock.ErrInvalidRequest, err)
	}
	r := lock.SubmitRequest{Lock: h.cfg.LockName, Limit: h.cfg.Limit, StateMachine: h.cfg.StateMachineArn, Input: input, TTL: h.cfg.TTL, PriorityAgeing: h.cfg.PriorityAgeing}
	var err error
	switch {
	case h.cfg.InputLocks != nil:
		if r.Lock, r.Limit, err = h.cfg.InputLocks.For(input); err != nil {
			return lock.Submission{}, err
		}
	case h.cfg.LockNamePath != "":
		v, _ := valueAt(doc, h.cfg.LockNamePath)
		if r.Lock, _ = v.(string); r.Lock == "" {
			return lock.Submission{}, fmt.Errorf("%w (%s)", ErrNoLockName, h.cfg.LockNamePath)
		}
	}
	if r.Priority, r.Weight, err = h.cfg.order().Read(func(path string) (any, bool) { return valueAt(doc, path) }); err != nil {
		return lock.Submission{}, err
	}
	return h.locks.Submit(ctx, r)
}

// valueAt reads the value at path ("$.a.b", member names only) in the decoded input; ok is
// false when it has none.
func valueAt(doc any, path string) (v any, ok bool) {
	v = doc
	for _, name := range strings.Split(strings.TrimPrefix(path, "$."), ".") {
		obj, isObj := v.(map[string]any)
		if !isObj {
			return nil, false
		}
		if v, ok = obj[name]; !ok {
			return nil, false
		}
	}
	return v, true
}
