package chart

import (
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ErrUnsupportedFormat is returned for a file extension the chart cannot be written as.
var ErrUnsupportedFormat = errors.New("chart: unsupported image format (use .svg, .png or .pdf)")

// Interval is the time one execution spent inside the work step, measured from the start of the
// run.
type Interval struct {
	// Start and End bound the work.
	Start, End time.Duration
	// Failed marks work that ended in an error.
	Failed bool
}

// Concurrency is what the chart shows.
type Concurrency struct {
	// Title heads the chart. Default: "Executions inside the work step".
	Title string
	// Limit is the semaphore's limit, drawn as a horizontal line; 0 draws none.
	Limit int
	// Work holds one interval per execution that entered the work step.
	Work []Interval
	// Rate, when set, adds the admission rate: executions the Rate gate let into the work per
	// second, and the rate limit as a line. Default: nil, no admission rate.
	Rate *AdmissionRate
}

// AdmissionRate is the admission rate a chart draws beside the concurrency.
type AdmissionRate struct {
	// PerSecond is the rate limit, drawn as a dotted line.
	PerSecond float64
	// Admissions are the times the Rate gate let executions go into the work, measured from the
	// start of the run.
	Admissions []time.Duration
}

// PerSecondBuckets counts the admissions in each whole second from 0 to the last one: element i
// counts the admissions in [i s, i+1 s).
func (r AdmissionRate) PerSecondBuckets() []int {
	var out []int
	for _, e := range r.Admissions {
		i := int(e / time.Second)
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i]++
	}
	return out
}

// Step is one point of the concurrency curve: from At on, Count executions are working.
type Step struct {
	At    time.Duration
	Count int
}

// Steps turns the intervals into the step function of the number of executions working. An
// interval that ends when another starts does not overlap it.
func Steps(work []Interval) []Step {
	type edge struct {
		at    time.Duration
		delta int
	}
	edges := make([]edge, 0, 2*len(work))
	for _, w := range work {
		edges = append(edges, edge{w.Start, +1}, edge{w.End, -1})
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta
	})
	var steps []Step
	count := 0
	for i, e := range edges {
		count += e.delta
		if i+1 < len(edges) && edges[i+1].at == e.at {
			continue // one point per instant
		}
		steps = append(steps, Step{At: e.at, Count: count})
	}
	return steps
}

// Write draws c into path; the extension picks the format.
func Write(path string, c Concurrency) error {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch ext {
	case "svg", "png", "pdf":
	default:
		return fmt.Errorf("%w: %q", ErrUnsupportedFormat, path)
	}
	p, err := c.plot()
	if err != nil {
		return err
	}
	if err := p.Save(8*vg.Inch, 4*vg.Inch, path); err != nil {
		return fmt.Errorf("chart: write %s: %w", path, err)
	}
	return nil
}

// plot builds the chart.
func (c Concurrency) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = c.Title
	if p.Title.Text == "" {
		p.Title.Text = "Executions inside the work step"
	}
	p.X.Label.Text = "time since the first start (s)"
	p.Y.Label.Text = "executions working"
	if c.Rate != nil {
		p.Y.Label.Text = "executions working; admissions a second"
	}
	p.Y.Min = 0
	p.Add(plotter.NewGrid())

	steps := Steps(c.Work)
	curve := make(plotter.XYs, 0, 2*len(steps)+1)
	curve = append(curve, plotter.XY{X: 0, Y: 0})
	prev := 0
	for _, s := range steps {
		x := s.At.Seconds()
		curve = append(curve, plotter.XY{X: x, Y: float64(prev)}, plotter.XY{X: x, Y: float64(s.Count)})
		prev = s.Count
	}
	line, err := plotter.NewLine(curve)
	if err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	line.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	line.Width = vg.Points(1.5)
	p.Add(line)
	p.Legend.Add("working", line)

	if c.Limit > 0 && len(curve) > 0 {
		end := curve[len(curve)-1].X
		limit, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(c.Limit)}, {X: end, Y: float64(c.Limit)}})
		if err != nil {
			return nil, fmt.Errorf("chart: %w", err)
		}
		limit.Color = color.RGBA{R: 214, G: 39, B: 40, A: 255}
		limit.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(limit)
		p.Legend.Add(fmt.Sprintf("limit (%d)", c.Limit), limit)
		p.Y.Max = float64(c.Limit)*1.5 + 1 // head room for the legend
	}

	if c.Rate != nil {
		if err := c.Rate.add(p); err != nil {
			return nil, err
		}
	}

	var failures plotter.XYs
	for _, w := range c.Work {
		if w.Failed {
			failures = append(failures, plotter.XY{X: w.End.Seconds(), Y: 0})
		}
	}
	if len(failures) > 0 {
		marks, err := plotter.NewScatter(failures)
		if err != nil {
			return nil, fmt.Errorf("chart: %w", err)
		}
		marks.GlyphStyle.Shape = draw.CrossGlyph{}
		marks.GlyphStyle.Color = color.RGBA{R: 214, G: 39, B: 40, A: 255}
		marks.GlyphStyle.Radius = vg.Points(4)
		p.Add(marks)
		p.Legend.Add(fmt.Sprintf("failed work (%d)", len(failures)), marks)
	}
	p.Legend.Top = true
	return p, nil
}

// add draws the admissions per second as a step curve and the rate limit as a dotted line.
func (r AdmissionRate) add(p *plot.Plot) error {
	buckets := r.PerSecondBuckets()
	curve := make(plotter.XYs, 0, 2*len(buckets))
	for i, n := range buckets {
		curve = append(curve, plotter.XY{X: float64(i), Y: float64(n)}, plotter.XY{X: float64(i + 1), Y: float64(n)})
	}
	if len(curve) == 0 {
		return nil
	}
	line, err := plotter.NewLine(curve)
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	line.Color = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	line.Width = vg.Points(1)
	p.Add(line)
	p.Legend.Add("admissions per second", line)
	end := curve[len(curve)-1].X
	limit, err := plotter.NewLine(plotter.XYs{{X: 0, Y: r.PerSecond}, {X: end, Y: r.PerSecond}})
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	limit.Color = color.RGBA{R: 44, G: 160, B: 44, A: 255}
	limit.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(limit)
	p.Legend.Add(fmt.Sprintf("rate (%g/s)", r.PerSecond), limit)
	return nil
}
