package simulate

import (
	"errors"
	"testing"

	"github.com/turnstile-sfn/turnstile/emulator/template"
	"github.com/turnstile-sfn/turnstile/lock"
)

// TestLockTableIsTheMachines: in a stack of several semaphores, each with its own lock table,
// the run reads the table its machine names, not the first one; a name that is no lock table of
// the stack is ErrNoSemaphore.
func TestLockTableIsTheMachines(t *testing.T) {
	keys := []template.KeySchemaElement{{AttributeName: lock.AttributeLockName}, {AttributeName: lock.AttributeEntry}}
	tmpl := &template.Template{Tables: []template.Table{
		{Name: "Other-LockTable", KeySchema: keys},
		{Name: "Orders-LockTable", KeySchema: keys},
		{Name: "Audit", KeySchema: keys[:1]},
	}}
	if got, err := lockTable(tmpl, "Orders-LockTable"); err != nil || got != "Orders-LockTable" {
		t.Errorf("lockTable = %q, %v; want the machine's Orders-LockTable", got, err)
	}
	for _, name := range []string{"Audit", "Missing", ""} {
		if _, err := lockTable(tmpl, name); !errors.Is(err, ErrNoSemaphore) {
			t.Errorf("lockTable(%q) = %v, want ErrNoSemaphore", name, err)
		}
	}
}
