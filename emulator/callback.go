package emulator

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/turnstile-sfn/turnstile/emulator/jsonvalue"
)

// callbackWait is a task waiting for SendTaskSuccess or SendTaskFailure with its token.
type callbackWait struct {
	ex        *execution
	outcome   chan callbackOutcome // buffered: delivery never blocks
	arrived   *Signal              // fired once the outcome is in the channel
	heartbeat func()               // restarts the task's heartbeat countdown; nil without one
}

// callbackOutcome is what SendTaskSuccess or SendTaskFailure delivered.
type callbackOutcome struct {
	output  any
	failure *failure
}

// tokenClaims is what a task token encodes: the execution that issued it, a unique id, and
// filler that gives the token the length of AWS's.
type tokenClaims struct {
	ExecutionArn string `json:"e"`
	ID           string `json:"t"`
	Filler       string `json:"p,omitempty"`
}

// taskTokenLength is the length of the task tokens the emulator issues (unless a very long
// execution ARN makes one longer): AWS's tokens seen in public code are 664 to 684 characters,
// and SendTaskSuccess accepts up to 2,048. Code that stores tokens (a wait queue in a DynamoDB
// item) then meets the sizes it will meet in AWS.
const taskTokenLength = 684

// tokenAlphabet is what the filler is drawn from: characters JSON carries without escapes.
const tokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// newTaskToken issues a task token for an attempt of a Task of this execution: the URL-safe
// base64 of its claims, taskTokenLength characters long. The filler is drawn from a source
// seeded by the token's id, so it takes no numbers from the execution's own random source.
func (r *runner) newTaskToken() string {
	claims := tokenClaims{ExecutionArn: r.ex.arn, ID: uuidFrom(r.rng)}
	raw, _ := json.Marshal(claims)
	// 3 bytes encode as 4 characters; the filler field adds len(`,"p":""`) bytes and its value.
	if missing := taskTokenLength*3/4 - len(raw) - len(`,"p":""`); missing > 0 {
		filler := make([]byte, missing)
		source := derivedRand(0, claims.ID)
		for i := range filler {
			filler[i] = tokenAlphabet[source.IntN(len(tokenAlphabet))]
		}
		claims.Filler = string(filler)
		raw, _ = json.Marshal(claims)
	}
	token := base64.RawURLEncoding.EncodeToString(raw)
	r.ex.mu.Lock()
	if r.ex.issuedTokens == nil {
		r.ex.issuedTokens = map[string]bool{}
	}
	r.ex.issuedTokens[token] = true
	r.ex.mu.Unlock()
	return token
}

// awaitToken registers a waiter for a token; the returned function unregisters it.
func (em *Emulator) awaitToken(token string, w *callbackWait) func() {
	em.mu.Lock()
	em.tokens[token] = w
	em.mu.Unlock()
	return func() {
		em.mu.Lock()
		delete(em.tokens, token)
		em.mu.Unlock()
	}
}

// SendTaskSuccess completes the waiting task that owns the token with output (JSON text).
func (em *Emulator) SendTaskSuccess(_ context.Context, token, output string) error {
	v, err := jsonvalue.Decode([]byte(output))
	if err != nil {
		return apiError(ErrInvalidOutput, "Invalid Output: '%s'", output)
	}
	if len(output) > MaxPayloadBytes {
		return apiError(ErrInvalidOutput, "Output exceeds the maximum size")
	}
	return em.deliver(token, func(w *callbackWait) bool {
		w.outcome <- callbackOutcome{output: v}
		w.arrived.Fire()
		return true
	})
}

// SendTaskFailure fails the waiting task that owns the token with an error name and cause.
func (em *Emulator) SendTaskFailure(_ context.Context, token, errName, cause string) error {
	return em.deliver(token, func(w *callbackWait) bool {
		w.outcome <- callbackOutcome{failure: &failure{name: errName, cause: cause}}
		w.arrived.Fire()
		return true
	})
}

// SendTaskHeartbeat reports that the work of the waiting task that owns the token goes on.
func (em *Emulator) SendTaskHeartbeat(_ context.Context, token string) error {
	return em.deliver(token, func(w *callbackWait) bool {
		if w.heartbeat != nil {
			w.heartbeat()
		}
		return false
	})
}

// deliver hands something to the task waiting on a token. done says whether that ends the
// wait. Errors are AWS's: InvalidToken, TaskDoesNotExist, TaskTimedOut.
func (em *Emulator) deliver(token string, act func(*callbackWait) (done bool)) error {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	var claims tokenClaims
	if err != nil || json.Unmarshal(raw, &claims) != nil || claims.ExecutionArn == "" {
		return apiError(ErrInvalidToken, "Invalid Token: '%s'", token)
	}
	em.mu.Lock()
	if em.closed {
		em.mu.Unlock()
		return ErrClosed
	}
	if w, ok := em.tokens[token]; ok && !w.ex.isClosed() {
		if act(w) {
			delete(em.tokens, token)
		}
		em.mu.Unlock()
		return nil
	}
	ex := em.executions[claims.ExecutionArn]
	em.mu.Unlock()
	if ex != nil {
		ex.mu.Lock()
		issued := ex.issuedTokens[token]
		ex.mu.Unlock()
		if issued {
			return apiError(ErrTaskTimedOut, "Task Timed Out: 'Provided task does not exist anymore'")
		}
	}
	return apiError(ErrTaskDoesNotExist, "Task Does Not Exist: 'Provided task does not exist'")
}
