package sidebyside

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/turnstile-sfn/turnstile/emulator"
)

// ErrNoTooling reports a checkout without the pinned Node tooling (aws-local-stepfunctions in
// .cdk/node_modules): run make setup.
var ErrNoTooling = errors.New("sidebyside: .cdk/node_modules/aws-local-stepfunctions not found; run make setup")

// Script is run.mjs's path relative to the module root.
const Script = "internal/sidebyside/run.mjs"

// FindRoot returns the Turnstile checkout holding dir (walking up to the directory with go.mod
// and .cdk), or ErrNoTooling when none holds the installed tooling.
func FindRoot(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".cdk", "node_modules", "aws-local-stepfunctions", "package.json")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, Script)); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ErrNoTooling
		}
		dir = parent
	}
}

// job is what run.mjs reads from its standard input.
type job struct {
	Definition         string          `json:"definition"`
	Input              json.RawMessage `json:"input"`
	Executions         int             `json:"executions"`
	Concurrency        int             `json:"concurrency"`
	Endpoint           string          `json:"endpoint"`
	Region             string          `json:"region"`
	ExecutionArnPrefix string          `json:"executionArnPrefix"`
}

// RunTheirs runs load executions of w in aws-local-stepfunctions with the pinned Node of the
// checkout at root (see FindRoot) and returns what run.mjs measured.
func RunTheirs(ctx context.Context, root string, w Workload, load Load) (Result, error) {
	if err := load.check(); err != nil {
		return Result{}, err
	}
	endpoint := w.Endpoint
	if endpoint == "" {
		endpoint = "http://127.0.0.1:1" // never called: the workload has no DynamoDB task
	}
	in, err := json.Marshal(job{
		Definition:         w.Definition,
		Input:              json.RawMessage(w.Input),
		Executions:         load.Executions,
		Concurrency:        load.Concurrency,
		Endpoint:           endpoint,
		Region:             emulator.DefaultRegion,
		ExecutionArnPrefix: fmt.Sprintf("arn:aws:states:%s:%s:execution:%s:", emulator.DefaultRegion, emulator.DefaultAccount, w.Name),
	})
	if err != nil {
		return Result{}, fmt.Errorf("sidebyside: encode the job: %w", err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(root, ".cdk", "node_modules", ".bin", "node"), filepath.Join(root, Script))
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return Result{}, fmt.Errorf("sidebyside: %s on %s: %w: %s", Script, w.Name, err, strings.TrimSpace(stderr.String()))
	}
	var r Result
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return Result{}, fmt.Errorf("sidebyside: %s printed %q: %w", Script, stdout.String(), err)
	}
	return r, nil
}
