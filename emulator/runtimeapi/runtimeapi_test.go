package runtimeapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/turnstile-sfn/turnstile/emulator/lambdafn"
	"github.com/turnstile-sfn/turnstile/emulator/runtimeapi"
	"github.com/turnstile-sfn/turnstile/golambda/gobuild"
)

// testPackage is the test function's main package (testdata/fn).
const testPackage = "github.com/turnstile-sfn/turnstile/emulator/runtimeapi/testdata/fn"

// binary is the test function, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "runtimeapi-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary, err = runtimeapi.NewBuilder("", dir).Build(context.Background(), testPackage)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// output is what the test function returns (testdata/fn.Output).
type output struct {
	Value        string            `json:"value"`
	RequestID    string            `json:"requestId"`
	FunctionARN  string            `json:"functionArn"`
	Custom       map[string]string `json:"custom"`
	DeadlineMs   int64             `json:"deadlineMs"`
	PID          int               `json:"pid"`
	Invocations  int               `json:"invocations"`
	FunctionName string            `json:"functionName"`
	RuntimeAPI   string            `json:"runtimeApi"`
}

// lockedBuffer is a log the processes write to while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// fixture is a Function registered in a lambdafn.Registry under the name "fn".
type fixture struct {
	reg *lambdafn.Registry
	fn  *runtimeapi.Function
	log *lockedBuffer
}

func newFixture(t *testing.T, cfg runtimeapi.Config, opts ...lambdafn.FunctionOption) *fixture {
	t.Helper()
	cfg.Binary, cfg.FunctionName = binary, "fn"
	log := &lockedBuffer{}
	cfg.Log = log
	fn, err := runtimeapi.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := lambdafn.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Register("fn", fn.Handler(), opts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := reg.Close(ctx); err != nil {
			t.Error(err)
		}
		if err := fn.Close(); err != nil {
			t.Error(err)
		}
	})
	return &fixture{reg: reg, fn: fn, log: log}
}

// invoke invokes the function with input (JSON-encoded) and an optional client context.
func (f *fixture) invoke(t *testing.T, input map[string]any, clientContext string) *lambdafn.InvokeOutput {
	t.Helper()
	payload, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.reg.Invoke(context.Background(), &lambdafn.InvokeInput{FunctionName: "fn", Payload: payload, ClientContext: clientContext})
	if err != nil {
		t.Fatalf("invoke %v: %v", input, err)
	}
	return out
}

// succeed invokes and decodes a successful response.
func (f *fixture) succeed(t *testing.T, input map[string]any) output {
	t.Helper()
	out := f.invoke(t, input, "")
	if out.FunctionError != "" {
		t.Fatalf("invoke %v: function error %s", input, out.Payload)
	}
	var o output
	if err := json.Unmarshal(out.Payload, &o); err != nil {
		t.Fatalf("response %s: %v", out.Payload, err)
	}
	return o
}

// fail invokes and decodes a function error.
func (f *fixture) fail(t *testing.T, input map[string]any) lambdafn.FunctionError {
	t.Helper()
	out := f.invoke(t, input, "")
	if out.FunctionError != lambdafn.FunctionErrorUnhandled {
		t.Fatalf("invoke %v: want a function error, got %q %s", input, out.FunctionError, out.Payload)
	}
	var fe lambdafn.FunctionError
	if err := json.Unmarshal(out.Payload, &fe); err != nil {
		t.Fatalf("error document %s: %v", out.Payload, err)
	}
	return fe
}

func TestEchoReusesTheWarmProcess(t *testing.T) {
	f := newFixture(t, runtimeapi.Config{})
	first := f.succeed(t, map[string]any{"action": "echo", "value": "hello"})
	second := f.succeed(t, map[string]any{"action": "echo", "value": "again"})
	if first.Value != "hello" || second.Value != "again" {
		t.Errorf("values %q, %q; want hello, again", first.Value, second.Value)
	}
	if first.PID != second.PID || second.Invocations != 2 {
		t.Errorf("second invocation ran in pid %d (invocation %d), want the warm pid %d (invocation 2)", second.PID, second.Invocations, first.PID)
	}
	if s := f.fn.Stats(); s.Started != 1 || s.Running != 1 || s.Idle != 1 {
		t.Errorf("stats %+v, want one process started, running and idle", s)
	}
}

func TestFunctionErrorKeepsItsType(t *testing.T) {
	f := newFixture(t, runtimeapi.Config{})
	fe := f.fail(t, map[string]any{"action": "fail", "value": "disk full"})
	if fe.Type != "WorkFailed" || fe.Message != "work failed: disk full" {
		t.Errorf("error %+v, want WorkFailed / work failed: disk full", fe)
	}
	// aws-lambda-go logs the error document on stderr: it reaches the log with the prefix.
	waitLog(t, f.log, `[fn] `)
	waitLog(t, f.log, `"errorType":"WorkFailed"`)
	// A function error leaves the process warm.
	if o := f.succeed(t, map[string]any{"action": "echo"}); o.Invocations != 2 {
		t.Errorf("after a function error the next invocation is number %d of its process, want 2", o.Invocations)
	}
}

func TestPanicReportsThenReplacesTheProcess(t *testing.T) {
	f := newFixture(t, runtimeapi.Config{})
	first := f.succeed(t, map[string]any{"action": "echo"})
	fe := f.fail(t, map[string]any{"action": "panic", "value": "boom"})
	if fe.Type != "string" || fe.Message != "asked to panic: boom" || len(fe.StackTrace) == 0 {
		t.Errorf("error %+v, want aws-lambda-go's panic document", fe)
	}
	// aws-lambda-go exits after reporting a panic: the next invocation gets a new process.
	next := f.succeed(t, map[string]any{"action": "echo", "value": "after"})
	if next.Value != "after" || next.PID == first.PID {
		t.Errorf("after the panic: %+v, want a new process (old pid %d)", next, first.PID)
	}
}

func TestLambdaContextReachesTheFunction(t *testing.T) {
	f := newFixture(t, runtimeapi.Config{}, lambdafn.Timeout(10*time.Second))
	cc := base64.StdEncoding.EncodeToString([]byte(`{"custom":{"execution":"arn:aws:states:us-east-1:000000000000:execution:m:e1","redriveCount":"0"}}`))
	before := time.Now()
	out := f.invoke(t, map[string]any{"action": "context"}, cc)
	if out.FunctionError != "" {
		t.Fatalf("function error %s", out.Payload)
	}
	var o output
	if err := json.Unmarshal(out.Payload, &o); err != nil {
		t.Fatal(err)
	}
	if o.RequestID != out.RequestID {
		t.Errorf("request id %q, want the invocation's %q", o.RequestID, out.RequestID)
	}
	if want := "arn:aws:lambda:us-east-1:000000000000:function:fn"; o.FunctionARN != want {
		t.Errorf("function ARN %q, want %q", o.FunctionARN, want)
	}
	if o.Custom["execution"] != "arn:aws:states:us-east-1:000000000000:execution:m:e1" || o.Custom["redriveCount"] != "0" {
		t.Errorf("client context custom %v", o.Custom)
	}
	deadline := time.UnixMilli(o.DeadlineMs)
	if deadline.Before(before.Add(9*time.Second)) || deadline.After(time.Now().Add(10*time.Second)) {
		t.Errorf("deadline %v, want about 10 s after %v", deadline, before)
	}
}

func TestExitErrorThenRecovery(t *testing.T) {
	f := newFixture(t, runtimeapi.Config{})
	first := f.succeed(t, map[string]any{"action": "echo"})
	fe := f.fail(t, map[string]any{"action": "exit", "value": "2"})
	if fe.Type != "Runtime.ExitError" || !strings.HasSuffix(fe.Message, "Error: Runtime exited with error: exit status 2") ||
		!strings.HasPrefix(fe.Message, "RequestId: ") {
		t.Errorf("error %+v, want Lambda's Runtime.ExitError", fe)
	}
	next := f.succeed(t, map[string]any{"action": "echo", "value": "back"})
	if next.Value != "back" || next.PID == first.PID || next.Invocations != 1 {
		t.Errorf("after the exit: %+v, want a fresh process", next)
	}
	if s := f.fn.Stats(); s.Started != 2 || s.Running != 1 {
		t.Errorf("stats %+v, want 2 started, 1 running", s)
	}
}

func TestTimeoutKillsTheProcess(t *testing.T) {
	f := newFixture(t, runtimeapi.Config{}, lambdafn.Timeout(time.Second))
	first := f.succeed(t, map[string]any{"action": "echo"})
	out := f.invoke(t, map[string]any{"action": "sleep", "sleep": int64(30 * time.Second)}, "")
	if out.FunctionError != lambdafn.FunctionErrorUnhandled || !bytes.Contains(out.Payload, []byte("Task timed out after 1.00 seconds")) {
		t.Fatalf("timeout: %q %s", out.FunctionError, out.Payload)
	}
	waitGone(t, first.PID)
	next := f.succeed(t, map[string]any{"action": "echo", "value": "fresh"})
	if next.PID == first.PID || next.Value != "fresh" {
		t.Errorf("after the timeout: %+v, want a new process", next)
	}
}

func TestConcurrentInvocationsStartProcessesUpToTheMaximum(t *testing.T) {
	for _, tc := range []struct{ max, calls, wantStarted int }{{4, 4, 4}, {2, 6, 2}} {
		t.Run(fmt.Sprintf("max%d_calls%d", tc.max, tc.calls), func(t *testing.T) {
			f := newFixture(t, runtimeapi.Config{MaxConcurrency: tc.max}, lambdafn.Timeout(30*time.Second))
			stop, peak := make(chan struct{}), make(chan int)
			go func() { // samples how many processes run at once
				highest := 0
				for {
					highest = max(highest, f.fn.Stats().Running)
					select {
					case <-stop:
						peak <- highest
						return
					case <-time.After(time.Millisecond):
					}
				}
			}()
			var wg sync.WaitGroup
			pids := make([]int, tc.calls)
			for i := range tc.calls {
				wg.Go(func() {
					pids[i] = f.succeed(t, map[string]any{"action": "sleep", "sleep": int64(500 * time.Millisecond)}).PID
				})
			}
			wg.Wait()
			close(stop)
			if p := <-peak; p > tc.max {
				t.Errorf("%d processes ran at once, more than the maximum %d", p, tc.max)
			}
			distinct := map[int]bool{}
			for _, p := range pids {
				distinct[p] = true
			}
			if s := f.fn.Stats(); s.Started != tc.wantStarted || len(distinct) != tc.wantStarted {
				t.Errorf("stats %+v, %d distinct pids; want %d processes", s, len(distinct), tc.wantStarted)
			}
		})
	}
}

func TestResponseTooLarge(t *testing.T) {
	f := newFixture(t, runtimeapi.Config{})
	fe := f.fail(t, map[string]any{"action": "big"})
	if fe.Type != runtimeapi.ErrorTypeResponseTooLarge || !strings.Contains(fe.Message, "6291556 bytes") {
		t.Errorf("error %+v, want Function.ResponseSizeTooLarge", fe)
	}
	if o := f.succeed(t, map[string]any{"action": "echo", "value": "small"}); o.Value != "small" {
		t.Errorf("after the large response: %+v", o)
	}
}

func TestInitialisationErrors(t *testing.T) {
	t.Run("exit", func(t *testing.T) {
		f := newFixture(t, runtimeapi.Config{Environment: map[string]string{"INIT": "exit"}})
		fe := f.fail(t, map[string]any{"action": "echo"})
		if fe.Type != "Runtime.ExitError" || !strings.HasSuffix(fe.Message, "exit status 3") {
			t.Errorf("error %+v, want Runtime.ExitError with exit status 3", fe)
		}
		waitLog(t, f.log, "[fn] init failed as asked\n")
	})
	t.Run("posted", func(t *testing.T) {
		f := newFixture(t, runtimeapi.Config{Environment: map[string]string{"INIT": "post"}})
		fe := f.fail(t, map[string]any{"action": "echo"})
		if fe.Type != "ConfigMissing" || fe.Message != "no configuration" {
			t.Errorf("error %+v, want the posted ConfigMissing", fe)
		}
	})
}

func TestEnvironment(t *testing.T) {
	t.Setenv("RUNTIMEAPI_TEST_SECRET", "from the caller")
	f := newFixture(t, runtimeapi.Config{
		Region:      "eu-west-1",
		MemoryMB:    256,
		Environment: map[string]string{"TABLE": "locks", "AWS_REGION": "ignored"},
		Endpoints:   runtimeapi.Endpoints{DynamoDB: "http://127.0.0.1:1111", StepFunctions: "http://127.0.0.1:2222"},
	})
	for name, want := range map[string]string{
		"TABLE":                           "locks",
		"AWS_REGION":                      "eu-west-1",
		"AWS_DEFAULT_REGION":              "eu-west-1",
		"AWS_LAMBDA_FUNCTION_NAME":        "fn",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"_HANDLER":                        "bootstrap",
		"AWS_ENDPOINT_URL_DYNAMODB":       "http://127.0.0.1:1111",
		"AWS_ENDPOINT_URL_SFN":            "http://127.0.0.1:2222",
		"AWS_ENDPOINT_URL_LAMBDA":         "",
		"AWS_ACCESS_KEY_ID":               runtimeapi.AccessKeyID,
		"TZ":                              ":UTC",
		"PATH":                            os.Getenv("PATH"),
		"RUNTIMEAPI_TEST_SECRET":          "",
	} {
		if got := f.succeed(t, map[string]any{"action": "env", "value": name}).Value; got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := f.succeed(t, map[string]any{"action": "echo"}).FunctionName; got != "fn" {
		t.Errorf("lambdacontext.FunctionName = %q, want fn", got)
	}
}

func TestCloseLeavesNothingRunning(t *testing.T) {
	goroutines := runtime.NumGoroutine()
	var logBuf lockedBuffer
	fn, err := runtimeapi.New(runtimeapi.Config{Binary: binary, FunctionName: "fn", Log: &logBuf})
	if err != nil {
		t.Fatal(err)
	}
	// Three processes: two idle, one in the middle of an invocation.
	var pids []int
	var apis []string
	var wg sync.WaitGroup
	var mu sync.Mutex
	for range 3 {
		wg.Go(func() {
			b, err := fn.Invoke(context.Background(), []byte(`{"action":"sleep","sleep":200000000}`))
			if err != nil {
				t.Error(err)
				return
			}
			var o output
			json.Unmarshal(b, &o) //nolint:errcheck // checked through the pid below
			mu.Lock()
			pids, apis = append(pids, o.PID), append(apis, o.RuntimeAPI)
			mu.Unlock()
		})
	}
	wg.Wait()
	busy := make(chan error, 1)
	go func() {
		_, err := fn.Invoke(context.Background(), []byte(`{"action":"sleep","sleep":60000000000}`))
		busy <- err
	}()
	for fn.Stats().Idle > 2 {
		time.Sleep(10 * time.Millisecond)
	}
	if s := fn.Stats(); s.Running != 3 || len(pids) != 3 || pids[0] == pids[1] || pids[1] == pids[2] || pids[0] == pids[2] {
		t.Fatalf("stats %+v, pids %v; want three processes", s, pids)
	}
	if err := fn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-busy; !errors.Is(err, runtimeapi.ErrClosed) {
		t.Errorf("the invocation under way ended with %v, want ErrClosed", err)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still exists after Close (kill 0: %v)", pid, err)
		}
	}
	for _, addr := range apis {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			t.Errorf("the Runtime API at %s still accepts connections after Close", addr)
		}
	}
	if s := fn.Stats(); s.Running != 0 || s.Started != 3 {
		t.Errorf("stats after Close %+v, want 3 started, none running", s)
	}
	if _, err := fn.Invoke(context.Background(), []byte(`{"action":"echo"}`)); !errors.Is(err, runtimeapi.ErrClosed) {
		t.Errorf("Invoke after Close: %v, want ErrClosed", err)
	}
	for deadline := time.Now().Add(settleTimeout); runtime.NumGoroutine() > goroutines; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), goroutines, buf[:runtime.Stack(buf, true)])
		}
	}
}

func TestBuilderBuildsEachPackageOnce(t *testing.T) {
	b := runtimeapi.NewBuilder("", t.TempDir())
	paths := make([]string, 3)
	var wg sync.WaitGroup
	for i := range paths {
		wg.Go(func() {
			var err error
			if paths[i], err = b.Build(context.Background(), testPackage); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	first, err := os.Stat(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	again, err := b.Build(context.Background(), testPackage)
	if err != nil {
		t.Fatal(err)
	}
	later, err := os.Stat(again)
	if err != nil {
		t.Fatal(err)
	}
	if paths[1] != paths[0] || paths[2] != paths[0] || again != paths[0] || !later.ModTime().Equal(first.ModTime()) {
		t.Errorf("builds %v then %s (modified %v → %v), want one binary built once", paths, again, first.ModTime(), later.ModTime())
	}
}

func TestBuildErrors(t *testing.T) {
	t.Run("missing package", func(t *testing.T) {
		_, err := runtimeapi.NewBuilder("", t.TempDir()).Build(context.Background(), "github.com/turnstile-sfn/turnstile/emulator/runtimeapi/testdata/nosuch")
		if !errors.Is(err, gobuild.ErrPackageNotFound) || !strings.Contains(err.Error(), "nosuch") {
			t.Errorf("err = %v, want ErrPackageNotFound naming the package", err)
		}
	})
	t.Run("no go command", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := runtimeapi.NewBuilder("", t.TempDir()).Build(context.Background(), testPackage)
		if !errors.Is(err, gobuild.ErrGoNotFound) {
			t.Errorf("err = %v, want ErrGoNotFound", err)
		}
	})
}

// settleTimeout bounds the polls for what follows an action without a signal of its own (a log
// line, a process's end, goroutines returning): generous, so that a loaded machine does not fail
// them; they end as soon as the condition holds.
const settleTimeout = 30 * time.Second

// waitLog waits until the log holds want.
func waitLog(t *testing.T, log *lockedBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(settleTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(log.String(), want) {
			return
		}
	}
	t.Errorf("the log lacks %q:\n%s", want, log.String())
}

// waitGone waits until process pid no longer exists.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(settleTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return
		}
	}
	t.Errorf("process %d still runs", pid)
}
