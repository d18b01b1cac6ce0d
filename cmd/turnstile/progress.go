package main

import (
	"io"

	"github.com/schollz/progressbar/v3"
)

// progress is the bar shown while executions run.
type progress struct{ bar *progressbar.ProgressBar }

func newProgress(w io.Writer, total int) *progress {
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("executions finished"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)}
}

// set moves the bar to finished of total.
func (p *progress) set(finished, _ int) { _ = p.bar.Set(finished) }

// finish removes the bar.
func (p *progress) finish() { _ = p.bar.Finish() }
