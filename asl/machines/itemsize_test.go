package machines_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/turnstile-sfn/turnstile/asl/machines"
)

// maxItemBytes is DynamoDB's item size limit, 400 KB, attribute names and values included.
const maxItemBytes = 400 * 1024

// acquiredAt is a value of $$.State.EnteredTime, the holder attribute's value.
const acquiredAt = "2025-01-31T12:34:56.789Z"

// stringSize is the size DynamoDB counts for a string: its UTF-8 length.
func stringSize(s string) int { return len(s) }

// numberSize is the size DynamoDB counts for a number: one byte per two significant digits,
// plus one (leading and trailing zeros trimmed).
func numberSize(n int) int {
	digits := strings.Trim(strconv.Itoa(n), "0-")
	if digits == "" {
		digits = "0"
	}
	return (len(digits)+1)/2 + 1
}

// lockItemSize is the size of a lock item named lockName with the given holders (execution
// ARNs): the key, the counter and one attribute per holder, per the DynamoDB item-size rules.
func lockItemSize(lockName string, holders []string) int {
	size := stringSize(machines.AttributeLockName) + stringSize(lockName)
	size += stringSize(machines.AttributeHolderCount) + numberSize(len(holders))
	for _, arn := range holders {
		size += stringSize(arn) + stringSize(acquiredAt)
	}
	return size
}

// executionARN returns the ARN of execution i of a state machine: names of the given lengths,
// as CloudFormation and StartExecution generate them.
func executionARN(region, machineName string, i int) string {
	execution := fmt.Sprintf("%08x-1234-4abc-8def-%012x", i, i) // a UUID, the default name
	return "arn:aws:states:" + region + ":123456789012:execution:" + machineName + ":" + execution
}

// capacity is the largest number of holders whose lock item fits in 400 KB.
func capacity(region, machineName string) int {
	n := 0
	var holders []string
	for {
		holders = append(holders, executionARN(region, machineName, n))
		if lockItemSize("MySemaphore", holders) > maxItemBytes {
			return n
		}
		n++
	}
}

// typicalMachineName is a CloudFormation-generated state machine name: the logical ID (with
// its hash) and a 12-character suffix.
const typicalMachineName = "SemaphoreStateMachine5A3D8F2C-Xy7KpQ2mNb4R"

// TestMaxLimitFitsOneItem measures how many holders one lock item holds and checks MaxLimit
// against it: MaxLimit holders with typical ARNs fit, with less than 10 % to spare.
func TestMaxLimitFitsOneItem(t *testing.T) {
	typical := capacity("us-east-1", typicalMachineName)
	longest := capacity("ap-southeast-2", strings.Repeat("m", 80)) // 80 is the longest machine name
	t.Logf("holders per 400 KB item: %d with typical ARNs (%d bytes), %d with 80-character machine names",
		typical, len(executionARN("us-east-1", typicalMachineName, 0)), longest)

	if machines.MaxLimit > typical {
		t.Errorf("MaxLimit = %d, but only %d typical holders fit in one item", machines.MaxLimit, typical)
	}
	if machines.MaxLimit < typical*9/10 {
		t.Errorf("MaxLimit = %d is needlessly low: %d typical holders fit in one item", machines.MaxLimit, typical)
	}
}

// TestLockItemSize checks the size arithmetic on small items worked out by hand.
func TestLockItemSize(t *testing.T) {
	tests := []struct {
		name    string
		holders []string
		want    int
	}{
		// "LockName"(8) + "MySemaphore"(11) + "currentlockcount"(16) + 0 (1 digit: 2 bytes)
		{"empty", nil, 8 + 11 + 16 + 2},
		// plus "arn:x"(5) + the 24-byte time; the count 1 takes 2 bytes
		{"one holder", []string{"arn:x"}, 8 + 11 + 16 + 2 + 5 + 24},
	}
	for _, tt := range tests {
		if got := lockItemSize("MySemaphore", tt.holders); got != tt.want {
			t.Errorf("%s: lockItemSize = %d, want %d", tt.name, got, tt.want)
		}
	}
	for _, tt := range []struct{ n, want int }{{0, 2}, {5, 2}, {10, 2}, {123, 3}, {2600, 2}, {2712, 3}} {
		if got := numberSize(tt.n); got != tt.want {
			t.Errorf("numberSize(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
}
