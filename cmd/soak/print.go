package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/turnstile-sfn/turnstile/internal/capacity"
	"github.com/turnstile-sfn/turnstile/internal/soak"
)

// printReport prints the settings and the figures, as text or as one JSON object.
func printReport(w io.Writer, o options, report soak.Report, elapsed time.Duration) error {
	c := o.config
	if o.json {
		out := struct {
			soak.Report
			capacity.PerExecution         // per pair
			Strategy              string  `json:"strategy"`
			Limit                 int     `json:"limit"`
			Goroutines            int     `json:"goroutines"`
			ReplyLost             float64 `json:"replyLost"`
			LostBefore            float64 `json:"lostBefore"`
			Throttled             float64 `json:"throttledRate"`
			DropEvents            float64 `json:"dropEvents"`
			DupEvents             float64 `json:"dupEvents"`
			Failures              int64   `json:"failures"`
			ElapsedSeconds        float64 `json:"elapsedSeconds"`
		}{report, report.Capacity.PerExecution(report.Pairs), string(strategyOf(c)), c.Limit, c.Goroutines, c.ReplyLost, c.LostBefore, c.Throttled, c.DropEvents, c.DupEvents,
			report.Failures(), elapsed.Round(time.Millisecond).Seconds()}
		enc := json.NewEncoder(w)
		return enc.Encode(out)
	}
	if _, err := fmt.Fprintf(w, "soak (%s): %d goroutines, limit %d; requests: %.1f %% applied/reply lost, %.1f %% lost before, %.1f %% throttled; events: %.0f %% dropped, %.0f %% duplicated\n",
		strategyOf(c), c.Goroutines, c.Limit, 100*c.ReplyLost, 100*c.LostBefore, 100*c.Throttled, 100*c.DropEvents, 100*c.DupEvents); err != nil {
		return err
	}
	if err := report.WriteText(w, c.Limit); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%-40s %d\n%-40s %v\n", "failures", report.Failures(), "wall time", elapsed.Round(time.Second))
	return err
}

// strategyOf names the config's strategy, the default included.
func strategyOf(c soak.Config) soak.Strategy {
	if c.Strategy == "" {
		return soak.StrategyPoll
	}
	return c.Strategy
}
