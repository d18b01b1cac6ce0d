package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
)

// showProgress reports whether a progress bar belongs on w: only on a terminal, so that logs
// (CI, a pipe, a file) get the report without the bar's redraws.
func showProgress(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

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
