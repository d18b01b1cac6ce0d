package capacity

import (
	"strings"
	"testing"
)

func TestTotalsAddAndDivide(t *testing.T) {
	var sum Totals
	sum.Add(Totals{ReadUnits: 3, WriteUnits: 10, FailedConditionalWriteUnits: 2, LargestItemBytes: 512})
	sum.Add(Totals{ReadUnits: 1, WriteUnits: 6, FailedConditionalWriteUnits: 2, LargestItemBytes: 2048})
	got := sum.PerExecution(4)
	want := PerExecution{ReadUnitsPerExecution: 1, WriteUnitsPerExecution: 4, FailedConditionWriteUnitsPerExecution: 1, LargestLockItemKB: 2}
	if got != want {
		t.Errorf("PerExecution = %+v, want %+v", got, want)
	}
	if none := sum.PerExecution(0); none.WriteUnitsPerExecution != 0 || none.LargestLockItemKB != 2 {
		t.Errorf("PerExecution(0) = %+v, want no units and the largest item", none)
	}
}

func TestFiguresWording(t *testing.T) {
	f := PerExecution{ReadUnitsPerExecution: 1.25, WriteUnitsPerExecution: 7, FailedConditionWriteUnitsPerExecution: 0.5, LargestLockItemKB: 0.125}.Figures()
	var lines []string
	for _, fig := range f {
		lines = append(lines, fig.Label+": "+fig.Value+" "+fig.Note)
	}
	got := strings.Join(lines, "\n")
	want := "Capacity per execution: 1.2 read units, 7.0 write units (0.5 of them for failed conditions) (all DynamoDB requests, as billed)\n" +
		"Largest lock item: 0.12 KB "
	if got != want {
		t.Errorf("Figures:\n%s\nwant\n%s", got, want)
	}
}

func TestFiguresSayWhatIsNotKnown(t *testing.T) {
	var sum Totals
	sum.Add(Totals{WriteUnits: 4})
	sum.Add(Totals{WriteUnits: 4, FailedConditionsUnknown: true, LargestItemUnknown: true})
	f := sum.PerExecution(2).Figures()
	if got, want := f[0].Value, "0.0 read units, 4.0 write units (the part of failed conditions not known)"; got != want {
		t.Errorf("capacity = %q, want %q", got, want)
	}
	if got, want := f[1].Value, "not known"; got != want {
		t.Errorf("largest item = %q, want %q", got, want)
	}
}
