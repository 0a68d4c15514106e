package timeline

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"
)

// WriteHTML writes the page: one HTML document with the data and the
// drawing code inline.
func (r *Recorder) WriteHTML(w io.Writer) error { return WriteHTML(w, r.data) }

// WriteHTML writes the page for d.
func WriteHTML(w io.Writer, d Data) error {
	var b bytes.Buffer
	b.WriteString(strings.Replace(pageHead, "{{TITLE}}", html.EscapeString("vcjob timeline: "+d.Job), 1))
	b.WriteString(`<script type="application/json" id="timeline-data">`)
	// json.Encoder escapes <, > and &, so the data cannot close the script.
	if err := json.NewEncoder(&b).Encode(d); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	b.WriteString("</script>\n<script>\n")
	b.WriteString(Script)
	b.WriteString("\nvcjobTimeline.mount(document.getElementById('timeline'), JSON.parse(document.getElementById('timeline-data').textContent));\n</script>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// Script is the drawing code: vcjobTimeline.mount(element, data) draws
// Data (as JSON) into element.
//
//go:embed timeline.js
var Script string

const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{TITLE}}</title>
<style>
` + Style + `
body { margin: 0; font: 13px system-ui, sans-serif; color: #222; }
</style>
</head>
<body>
<div id="timeline" class="tl"></div>
`

// Style is the page's CSS, for pages that embed the timeline (the
// playground does).
const Style = `
.tl { display: flex; flex-direction: column; height: 100vh; }
.tl-head { padding: 6px 10px; border-bottom: 1px solid #ddd; }
.tl-head h1 { font-size: 15px; margin: 0 0 4px 0; }
.tl-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; }
.tl-legend span { display: inline-flex; align-items: center; gap: 4px; }
.tl-legend i { display: inline-block; width: 12px; height: 12px; border: 1px solid #0003; }
.tl-tools { display: flex; gap: 8px; align-items: center; margin-top: 4px; font-size: 12px; }
.tl-body { flex: 1; display: flex; min-height: 0; }
.tl-scroll { flex: 1; position: relative; overflow: auto; min-width: 0; }
.tl-canvas { position: sticky; top: 0; left: 0; display: block; }
.tl-spacer { position: absolute; top: 0; left: 0; pointer-events: none; }
.tl-details { width: 320px; border-left: 1px solid #ddd; padding: 8px; overflow: auto; font-size: 12px; white-space: pre-wrap; }
.tl-tip { position: fixed; pointer-events: none; background: #fffff0; border: 1px solid #999; padding: 4px 6px; font-size: 12px; white-space: pre-wrap; max-width: 480px; display: none; z-index: 10; box-shadow: 0 2px 6px #0003; }
.tl-failure { color: #b00020; font-weight: bold; }
.tl-summary { font-size: 12px; color: #444; max-height: 3.2em; overflow: auto; }
`
