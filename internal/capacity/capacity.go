// Package capacity is the DynamoDB capacity a run consumed, as every report prints it: the
// simulation (turnstile simulate), the load test of a deployment (turnstile loadtest) and the
// soak. One model and one wording for all of them: read units and write units per execution,
// every DynamoDB request included, the write units billed for failed conditions among them, and
// the largest item.
package capacity

import "fmt"

// Totals is the capacity a run consumed in all.
type Totals struct {
	// ReadUnits is the read capacity units consumed, as DynamoDB bills them.
	ReadUnits float64 `json:"readUnits"`
	// WriteUnits is the write capacity units consumed, as DynamoDB bills them, failed
	// conditional writes included.
	WriteUnits float64 `json:"writeUnits"`
	// FailedConditionalWriteUnits is the part of WriteUnits billed for writes whose condition
	// failed, cancelled transactions included.
	FailedConditionalWriteUnits float64 `json:"failedConditionalWriteUnits"`
	// LargestItemBytes is the size of the largest item seen, by DynamoDB's item-size rules.
	LargestItemBytes int64 `json:"largestItemBytes"`
	// FailedConditionsUnknown and LargestItemUnknown are set when the source of the figures
	// cannot tell them (CloudWatch, for a deployment): the figures are then 0.
	FailedConditionsUnknown bool `json:"failedConditionsUnknown,omitempty"`
	LargestItemUnknown      bool `json:"largestItemUnknown,omitempty"`
}

// Add adds the units of u to t and keeps the larger of the largest items; a figure unknown in
// either is unknown in the sum.
func (t *Totals) Add(u Totals) {
	t.ReadUnits += u.ReadUnits
	t.WriteUnits += u.WriteUnits
	t.FailedConditionalWriteUnits += u.FailedConditionalWriteUnits
	t.LargestItemBytes = max(t.LargestItemBytes, u.LargestItemBytes)
	t.FailedConditionsUnknown = t.FailedConditionsUnknown || u.FailedConditionsUnknown
	t.LargestItemUnknown = t.LargestItemUnknown || u.LargestItemUnknown
}

// PerExecution divides t by the number of executions; the units are 0 for no executions.
func (t Totals) PerExecution(executions int) PerExecution {
	p := PerExecution{
		LargestLockItemKB:       float64(t.LargestItemBytes) / 1024,
		FailedConditionsUnknown: t.FailedConditionsUnknown,
		LargestItemUnknown:      t.LargestItemUnknown,
	}
	if n := float64(executions); n > 0 {
		p.ReadUnitsPerExecution = t.ReadUnits / n
		p.WriteUnitsPerExecution = t.WriteUnits / n
		p.FailedConditionWriteUnitsPerExecution = t.FailedConditionalWriteUnits / n
	}
	return p
}

// PerExecution is the capacity a run consumed per execution.
type PerExecution struct {
	// ReadUnitsPerExecution is the read capacity units per execution, every DynamoDB request
	// included, as DynamoDB bills them.
	ReadUnitsPerExecution float64 `json:"readUnitsPerExecution"`
	// WriteUnitsPerExecution is the write capacity units per execution, failed conditional
	// writes included.
	WriteUnitsPerExecution float64 `json:"writeUnitsPerExecution"`
	// FailedConditionWriteUnitsPerExecution is the part of WriteUnitsPerExecution billed for
	// writes whose condition failed: ceil(existing item / 1 KB) each, at least 1; one write
	// per item for a cancelled transaction.
	FailedConditionWriteUnitsPerExecution float64 `json:"failedConditionWriteUnitsPerExecution"`
	// LargestLockItemKB is the largest item seen, in KB of 1,024 bytes by DynamoDB's item-size
	// rules.
	LargestLockItemKB float64 `json:"largestLockItemKB"`
	// FailedConditionsUnknown and LargestItemUnknown are set when the source of the figures
	// cannot tell them (see Totals).
	FailedConditionsUnknown bool `json:"failedConditionsUnknown,omitempty"`
	LargestItemUnknown      bool `json:"largestItemUnknown,omitempty"`
}

// Figure is one line of a report: a label, a value and a note (may be empty).
type Figure struct {
	Label, Value, Note string
}

// Figures are p's lines, in the order and the words every report prints them.
func (p PerExecution) Figures() []Figure {
	failed := fmt.Sprintf("%.1f of them for failed conditions", p.FailedConditionWriteUnitsPerExecution)
	if p.FailedConditionsUnknown {
		failed = "the part of failed conditions not known"
	}
	largest := fmt.Sprintf("%.2f KB", p.LargestLockItemKB)
	if p.LargestItemUnknown {
		largest = "not known"
	}
	return []Figure{
		{
			Label: "Capacity per execution",
			Value: fmt.Sprintf("%.1f read units, %.1f write units (%s)", p.ReadUnitsPerExecution, p.WriteUnitsPerExecution, failed),
			Note:  "(all DynamoDB requests, as billed)",
		},
		{Label: "Largest lock item", Value: largest},
	}
}
