//! `ilkit scan --html FILE`: one self-contained page (no network, no scripts from
//! elsewhere) with the summary table, the per-file table (sortable by clicking a column
//! header), and inline SVG plots drawn with plotters: SCC sizes, loop depths, kept vs all
//! IL entries per translation unit, and time per file.

use ilkit::scan::{summary, totals, FileRecord, WallTime};
use plotters::prelude::*;

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A bar chart of a histogram as SVG markup.
fn histogram_svg(title: &str, labels: &[String], counts: &ilkit::scan::Histogram) -> String {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (460, 300)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let top = counts.iter().copied().max().unwrap_or(0).max(1);
        let chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(
                (0u32..counts.len() as u32).into_segmented(),
                0u64..top + top / 10 + 1,
            );
        if let Ok(mut c) = chart {
            let _ = c
                .configure_mesh()
                .disable_x_mesh()
                .x_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(i) => {
                        labels.get(*i as usize).cloned().unwrap_or_default()
                    }
                    _ => String::new(),
                })
                .y_desc("count")
                .draw();
            let _ = c.draw_series(
                Histogram::vertical(&c)
                    .style(RGBColor(70, 110, 180).filled())
                    .margin(4)
                    .data(counts.iter().enumerate().map(|(i, &n)| (i as u32, n))),
            );
        }
        let _ = root.present();
    }
    s
}

/// Grouped bars of two counts per item (kept and all IL entries per TU).
fn paired_bars_svg(title: &str, items: &[(String, u64, u64)]) -> String {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (460, 300)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let top = items.iter().map(|x| x.2).max().unwrap_or(0).max(1);
        let n = items.len().max(1) as u32;
        let chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d(0u32..n * 3, 0u64..top + top / 10 + 1);
        if let Ok(mut c) = chart {
            let _ = c
                .configure_mesh()
                .disable_x_mesh()
                // (`x_labels(0)` would make plotters loop: one blank label instead)
                .x_labels(1)
                .x_label_formatter(&|_| String::new())
                .x_desc("translation units")
                .y_desc("IL entries")
                .draw();
            let all = RGBColor(180, 190, 210);
            let kept = RGBColor(70, 150, 90);
            let _ = c
                .draw_series(items.iter().enumerate().map(|(i, x)| {
                    let i = i as u32 * 3;
                    Rectangle::new([(i, 0), (i + 1, x.2)], all.filled())
                }))
                .map(|s| {
                    s.label("all").legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 10, y + 5)], all.filled())
                    })
                });
            let _ = c
                .draw_series(items.iter().enumerate().map(|(i, x)| {
                    let i = i as u32 * 3 + 1;
                    Rectangle::new([(i, 0), (i + 1, x.1)], kept.filled())
                }))
                .map(|s| {
                    s.label("kept in IL").legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 10, y + 5)], kept.filled())
                    })
                });
            let _ = c
                .configure_series_labels()
                .background_style(WHITE)
                .border_style(BLACK)
                .draw();
        }
        let _ = root.present();
    }
    s
}

/// Seconds against megabytes, one point per file.
fn time_svg(records: &[FileRecord]) -> String {
    let mut s = String::new();
    {
        let root = SVGBackend::with_string(&mut s, (460, 300)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let mb = |r: &FileRecord| r.bytes as f64 / 1e6;
        let xmax = records.iter().map(mb).fold(0.0, f64::max).max(1e-3) * 1.1;
        let ymax = records
            .iter()
            .map(|r| r.seconds)
            .fold(0.0, f64::max)
            .max(1e-3)
            * 1.1;
        let chart = ChartBuilder::on(&root)
            .caption("Time per file", ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..xmax, 0.0..ymax);
        if let Ok(mut c) = chart {
            let _ = c.configure_mesh().x_desc("MB").y_desc("seconds").draw();
            let _ = c.draw_series(records.iter().map(|r| {
                let color = if r.error.is_some() {
                    RED
                } else {
                    RGBColor(70, 110, 180)
                };
                Circle::new((mb(r), r.seconds), 3, color.filled())
            }));
        }
        let _ = root.present();
    }
    s
}

/// The whole page.
pub fn report(records: &[FileRecord], wall: &WallTime) -> String {
    let t = totals(records);
    let bucket_sizes: Vec<String> = (0..8)
        .map(|k| match k {
            0 => "1".to_string(),
            7 => "128+".to_string(),
            k => format!("{}-{}", 1 << k, (1 << (k + 1)) - 1),
        })
        .collect();
    let depths: Vec<String> = (1..=8)
        .map(|d| if d == 8 { "8+".into() } else { d.to_string() })
        .collect();
    let il: Vec<(String, u64, u64)> = records
        .iter()
        .filter(|r| r.il_entries > 0)
        .map(|r| (r.name.clone(), r.il_kept, r.il_entries))
        .collect();
    let mut page = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>ilkit scan</title><style>\
         body{font-family:sans-serif;margin:24px;color:#222}\
         table{border-collapse:collapse;font-size:13px}\
         td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
         th{background:#eef;cursor:pointer}td.l,th.l{text-align:left}\
         tr.failed td{background:#fdd}.plots{display:flex;flex-wrap:wrap;gap:16px}\
         pre{background:#f6f6f6;padding:8px}</style></head><body>\n<h1>ilkit scan</h1>\n",
    );
    page.push_str(&format!(
        "<h2>Summary</h2>\n<pre>{}</pre>\n",
        esc(&summary(records, wall))
    ));
    page.push_str("<h2>Plots</h2>\n<div class=\"plots\">\n");
    // Inline SVG in HTML needs no namespace declaration: drop it, so the page names no
    // URL at all.
    for svg in [
        histogram_svg("Call SCC sizes", &bucket_sizes, &t.scc_sizes),
        histogram_svg("Loop nesting depths", &depths, &t.loop_depths),
        paired_bars_svg("IL entries kept per TU", &il),
        time_svg(records),
    ] {
        page.push_str("<div>");
        page.push_str(&svg.replace(" xmlns=\"http://www.w3.org/2000/svg\"", ""));
        page.push_str("</div>\n");
    }
    page.push_str("</div>\n<h2>Files</h2>\n<table id=\"files\"><thead><tr>");
    let cols = [
        "file",
        "kind",
        "MB",
        "functions",
        "blocks",
        "loops",
        "SCCs",
        "largest SCC",
        "IL entries",
        "IL kept",
        "seconds",
        "error",
    ];
    for (i, c) in cols.iter().enumerate() {
        let class = if i == 0 || i == 1 || i == 11 {
            " class=\"l\""
        } else {
            ""
        };
        page.push_str(&format!("<th{class} onclick=\"sortBy({i})\">{c}</th>"));
    }
    page.push_str("</tr></thead><tbody>\n");
    for r in records {
        let class = if r.error.is_some() {
            " class=\"failed\""
        } else {
            ""
        };
        page.push_str(&format!(
            "<tr{class}><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td class=\"l\">{}</td></tr>\n",
            esc(&r.name),
            r.kind,
            r.bytes as f64 / 1e6,
            r.functions,
            r.blocks,
            r.loops,
            r.sccs,
            r.largest_scc,
            r.il_entries,
            r.il_kept,
            r.seconds,
            esc(r.error.as_deref().unwrap_or("")),
        ));
    }
    page.push_str(
        "</tbody></table>\n<script>\n\
         function sortBy(c){const t=document.getElementById('files').tBodies[0];\
         const rows=Array.from(t.rows);const asc=t.dataset.col==c&&t.dataset.dir!='asc';\
         rows.sort((a,b)=>{const x=a.cells[c].textContent,y=b.cells[c].textContent;\
         const nx=parseFloat(x),ny=parseFloat(y);\
         const r=(isNaN(nx)||isNaN(ny))?x.localeCompare(y):nx-ny;return asc?r:-r;});\
         rows.forEach(r=>t.appendChild(r));t.dataset.col=c;t.dataset.dir=asc?'asc':'desc';}\n\
         </script>\n</body></html>\n",
    );
    page
}
