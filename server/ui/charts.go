package ui

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/proctor-eval/proctor/result"
)

// Chart geometry, in SVG user units: the plot area sits inside margins
// that hold the axes' labels.
const (
	chartW, chartH   = 480.0, 220.0
	marginL, marginR = 44.0, 12.0
	marginT, marginB = 12.0, 34.0
	plotW, plotH     = chartW - marginL - marginR, chartH - marginT - marginB
	maxCurvePoints   = 200 // points drawn on a curve; more trials are sampled
)

// urlPath escapes an id for a URL path segment.
func urlPath(id string) string { return url.PathEscape(id) }

// svgOpen starts a chart: it scales with its container and has a title
// for screen readers.
func svgOpen(b *strings.Builder, class, title string) {
	fmt.Fprintf(b, `<svg class="chart %s" viewBox="0 0 %g %g" role="img" aria-label="%s"><title>%s</title>`,
		class, chartW, chartH, html.EscapeString(title), html.EscapeString(title))
}

// yAxis draws horizontal grid lines at 0, 0.25 ... 1 with their labels.
func yAxis(b *strings.Builder) {
	for i := 0; i <= 4; i++ {
		v := float64(i) / 4
		y := marginT + plotH*(1-v)
		fmt.Fprintf(b, `<line class="grid" x1="%g" y1="%.1f" x2="%g" y2="%.1f"/>`, marginL, y, marginL+plotW, y)
		fmt.Fprintf(b, `<text class="tick" x="%g" y="%.1f" text-anchor="end">%.2f</text>`, marginL-6, y+4, v)
	}
}

// passCurves draws pass^k and pass@k against k for every k of the
// summary, with the do-nothing baseline as a dashed line when known.
func passCurves(sum result.Summary) template.HTML {
	n := sum.NumTrials
	if n < 1 || len(sum.PassHatK) == 0 {
		return ""
	}
	var b strings.Builder
	svgOpen(&b, "curves", fmt.Sprintf("pass^k and pass@k for k = 1 to %d", n))
	yAxis(&b)
	x := func(k int) float64 {
		if n == 1 {
			return marginL + plotW/2
		}
		return marginL + plotW*float64(k-1)/float64(n-1)
	}
	y := func(v float64) float64 { return marginT + plotH*(1-clamp01(v)) }
	if base := sum.DoNothingBaseline; base != nil {
		fmt.Fprintf(&b, `<line class="baseline" x1="%g" y1="%.1f" x2="%g" y2="%.1f"/>`, marginL, y(base.PassHat1), marginL+plotW, y(base.PassHat1))
	}
	step := max(1, n/maxCurvePoints)
	// pass@k is drawn first, wide and with open rings, pass^k over it,
	// thin with dots: where they are equal both stay visible.
	for _, series := range []struct {
		class string
		vals  map[string]float64
		r     int
	}{{"pass-at", sum.PassAtK, 5}, {"pass-hat", sum.PassHatK, 3}} {
		var pts []string
		for k := 1; k <= n; k += step {
			v, ok := series.vals[strconv.Itoa(k)]
			if !ok {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(k), y(v)))
			fmt.Fprintf(&b, `<circle class="%s" cx="%.1f" cy="%.1f" r="%d"><title>k=%d: %.3f</title></circle>`, series.class, x(k), y(v), series.r, k, v)
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline class="%s" points="%s"/>`, series.class, strings.Join(pts, " "))
		}
	}
	for _, k := range axisTicks(n) {
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%g" text-anchor="middle">%d</text>`, x(k), marginT+plotH+16, k)
	}
	fmt.Fprintf(&b, `<text class="axis" x="%g" y="%g" text-anchor="middle">k (trials)</text>`, marginL+plotW/2, chartH-2)
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // #nosec: numbers and escaped text only
}

// axisTicks picks at most 10 values of k to label.
func axisTicks(n int) []int {
	step := max(1, int(math.Ceil(float64(n)/10)))
	var out []int
	for k := 1; k <= n; k += step {
		out = append(out, k)
	}
	if out[len(out)-1] != n {
		out = append(out, n)
	}
	return out
}

// latencyBounds are the upper edges of the histogram's buckets, in ms:
// roughly logarithmic, so that a 1 ms and a 10 s request both show.
func latencyBounds() []float64 {
	return []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, math.Inf(1)}
}

// latencyHistogram draws the request latencies as bars over logarithmic
// buckets, empty buckets at both ends left out.
func latencyHistogram(lat []float64) template.HTML {
	if len(lat) == 0 {
		return ""
	}
	bounds := latencyBounds()
	counts := make([]int, len(bounds))
	for _, v := range lat {
		for i, hi := range bounds {
			if v < hi {
				counts[i]++
				break
			}
		}
	}
	first, last := 0, len(counts)-1
	for first < last && counts[first] == 0 {
		first++
	}
	for last > first && counts[last] == 0 {
		last--
	}
	peak := 0
	for _, c := range counts[first : last+1] {
		peak = max(peak, c)
	}
	var b strings.Builder
	svgOpen(&b, "histogram", fmt.Sprintf("latency of %d requests", len(lat)))
	nb := last - first + 1
	bw := plotW / float64(nb)
	for i := first; i <= last; i++ {
		hgt := plotH * float64(counts[i]) / float64(peak)
		x := marginL + bw*float64(i-first)
		fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %d</title></rect>`,
			x+1, marginT+plotH-hgt, bw-2, hgt, bucketLabel(bounds, i), counts[i])
		if counts[i] > 0 {
			fmt.Fprintf(&b, `<text class="count" x="%.1f" y="%.1f" text-anchor="middle">%d</text>`, x+bw/2, marginT+plotH-hgt-3, counts[i])
		}
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%g" text-anchor="middle">%s</text>`, x+bw/2, marginT+plotH+16, bucketEdge(bounds[i]))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%g" y="%g" text-anchor="middle">latency, upper edge of bucket</text>`, marginL+plotW/2, chartH-2)
	b.WriteString(`</svg>`)
	return template.HTML(b.String()) // #nosec: numbers and fixed text only
}

// bucketEdge labels a bucket by its upper edge.
func bucketEdge(hi float64) string {
	switch {
	case math.IsInf(hi, 1):
		return "more"
	case hi >= 1000:
		return fmt.Sprintf("%gs", hi/1000)
	default:
		return fmt.Sprintf("%gms", hi)
	}
}

// bucketLabel says which latencies bucket i holds.
func bucketLabel(bounds []float64, i int) string {
	lo := "0ms"
	if i > 0 {
		lo = bucketEdge(bounds[i-1])
	}
	if math.IsInf(bounds[i], 1) {
		return "at least " + lo
	}
	return lo + " to " + bucketEdge(bounds[i])
}
