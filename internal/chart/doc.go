// Package chart draws the picture the original AWS demo shows in CloudWatch: how many
// executions were inside the protected work step over time, with the semaphore's limit as a
// line and the failed executions marked where their work ended.
//
//	err := chart.Write("concurrency.svg", chart.Concurrency{
//		Limit: 5,
//		Work:  []chart.Interval{{Start: 0, End: 15 * time.Second}, {Start: 2 * time.Second, End: 17 * time.Second, Failed: true}},
//	})
//
// The format follows the file's extension: .svg, .png or .pdf.
package chart
