package semcheck

import (
	"context"
	"fmt"

	"github.com/turnstile-sfn/turnstile/asl/machines"
	"github.com/turnstile-sfn/turnstile/emulator/dynamo"
)

// ReadSnapshot reads the lock item lockName of table with a strongly consistent GetItem through
// in (give it the server's own endpoint, past any fault proxy, to see what really landed).
func ReadSnapshot(ctx context.Context, in *dynamo.Integration, table, lockName string) (Snapshot, error) {
	result, err := in.Invoke(ctx, getItemResource, map[string]any{
		"TableName":      table,
		"Key":            map[string]any{machines.AttributeLockName: map[string]any{"S": lockName}},
		"ConsistentRead": true,
	})
	if err != nil {
		return Snapshot{}, fmt.Errorf("semcheck: read %s of %s: %w", lockName, table, err)
	}
	item, _ := result.(map[string]any)["Item"].(map[string]any)
	return SnapshotFromItem(item)
}
