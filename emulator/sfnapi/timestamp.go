package sfnapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Timestamp is a point in time as the Step Functions API carries it: epoch seconds as a JSON
// number with a fractional part, to the millisecond (e.g. 1773500966.535). The zero Timestamp
// is omitted from responses by the fields tagged omitzero.
type Timestamp struct {
	time.Time
}

// NewTimestamp returns t as a Timestamp.
func NewTimestamp(t time.Time) Timestamp { return Timestamp{Time: t} }

// MarshalJSON encodes the timestamp as epoch seconds with millisecond precision.
func (ts Timestamp) MarshalJSON() ([]byte, error) {
	return strconv.AppendFloat(nil, float64(ts.UnixMilli())/1e3, 'f', 3, 64), nil
}

// UnmarshalJSON decodes epoch seconds, rounding to the millisecond.
func (ts *Timestamp) UnmarshalJSON(data []byte) error {
	var n json.Number
	if err := json.Unmarshal(data, &n); err != nil {
		return fmt.Errorf("timestamp must be epoch seconds as a number: %w", err)
	}
	seconds, err := n.Float64()
	if err != nil {
		return fmt.Errorf("timestamp must be epoch seconds as a number: %w", err)
	}
	ts.Time = time.UnixMilli(int64(math.Round(seconds * 1e3))).UTC()
	return nil
}
