//! Charts as standalone SVG files (`history --svg`, `simulate --svg`): line
//! charts of the context against the usable window, with the thresholds,
//! the overflow zone and marks, and bar charts; axes, units, a legend and a
//! title. Colours follow the reader's light or dark scheme. Each series
//! carries its values (`data-values`) so a script or test can read back
//! exactly what is drawn.

pub mod context;
pub mod simulation;

use svg::Document;
use svg::node::element::{Group, Line, Polyline, Rectangle, Style, Text, Title};

/// One line of a chart: its values, one per x from 1.
pub struct Series {
    pub name: String,
    pub values: Vec<f64>,
}

/// A horizontal line across the chart: a threshold.
#[derive(Clone)]
pub struct Level {
    pub value: f64,
    pub label: String,
}

impl Level {
    /// The threshold at `ratio` of the usable window, labelled `name 60%`.
    pub fn at(ratio: f64, name: &str) -> Level {
        Level {
            value: ratio * 100.0,
            label: format!("{name} {:.0}%", ratio * 100.0),
        }
    }
}

/// A vertical mark at an x (a compaction).
pub struct Mark {
    pub x: usize,
    pub label: String,
}

/// A line chart: y in percent of the usable window.
pub struct LineChart {
    pub title: String,
    pub subtitle: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<Series>,
    pub levels: Vec<Level>,
    pub marks: Vec<Mark>,
    /// Values above this are in the overflow zone (shaded).
    pub overflow_above: Option<f64>,
}

/// A bar chart: groups (windows) of bars (policies).
pub struct BarChart {
    pub title: String,
    pub y_label: String,
    pub groups: Vec<(String, Vec<(String, f64)>)>,
}

const WIDTH: f64 = 960.0;
const PLOT_LEFT: f64 = 70.0;
const PLOT_RIGHT: f64 = 200.0;
const PLOT_TOP: f64 = 70.0;
const PLOT_HEIGHT: f64 = 300.0;
const PLOT_BOTTOM: f64 = 60.0;

/// Light colours, with dark ones when the reader's scheme is dark.
const STYLE: &str = "
svg { font-family: 'DejaVu Sans', Verdana, sans-serif; font-size: 13px; }
.dim { font-size: 12px; }
.bg { fill: #ffffff; } .fg { fill: #1f2328; } .dim { fill: #59636e; }
.axis { stroke: #59636e; stroke-width: 1; } .grid { stroke: #d1d9e0; stroke-width: 1; }
.level { stroke: #9a6700; stroke-width: 1.5; stroke-dasharray: 6 4; }
.mark { stroke: #8250df; stroke-width: 1.5; } .marktext { fill: #8250df; }
.overflow { fill: #cf222e; fill-opacity: 0.08; }
.s0 { stroke: #0969da; } .s1 { stroke: #1a7f37; } .s2 { stroke: #bf3989; } .s3 { stroke: #bc4c00; } .s4 { stroke: #6e7781; }
.b0 { fill: #0969da; } .b1 { fill: #1a7f37; } .b2 { fill: #bf3989; } .b3 { fill: #bc4c00; } .b4 { fill: #6e7781; }
polyline { fill: none; stroke-width: 2; }
@media (prefers-color-scheme: dark) {
  .bg { fill: #0d1117; } .fg { fill: #e6edf3; } .dim { fill: #9198a1; }
  .axis { stroke: #9198a1; } .grid { stroke: #30363d; }
  .level { stroke: #d29922; } .mark { stroke: #ab7df8; } .marktext { fill: #ab7df8; }
  .overflow { fill: #f85149; fill-opacity: 0.12; }
  .s0 { stroke: #4493f8; } .s1 { stroke: #3fb950; } .s2 { stroke: #db61a2; } .s3 { stroke: #db6d28; } .s4 { stroke: #9198a1; }
  .b0 { fill: #4493f8; } .b1 { fill: #3fb950; } .b2 { fill: #db61a2; } .b3 { fill: #db6d28; } .b4 { fill: #9198a1; }
}
";

/// A line of `class` from (x1, y1) to (x2, y2).
fn line(class: &str, (x1, y1): (f64, f64), (x2, y2): (f64, f64)) -> Line {
    Line::new()
        .set("class", class)
        .set("x1", x1)
        .set("y1", y1)
        .set("x2", x2)
        .set("y2", y2)
}

fn text(x: f64, y: f64, class: &str, content: impl Into<String>) -> Text {
    Text::new(xml_text(&content.into()))
        .set("x", x)
        .set("y", y)
        .set("class", class)
}

/// A tooltip, its text made fit for XML.
fn tooltip(content: &str) -> Title {
    Title::new(xml_text(content))
}

/// `text` with every character XML 1.0 does not allow in a document
/// (controls but tab and newline, lone surrogates' stand-ins U+FFFE and
/// U+FFFF, the other non-characters) shown as U+FFFD: a conversation's
/// title or model name comes from someone else's files, and one such
/// character makes the whole chart unreadable to a browser. `<` and `&`
/// are escaped by the writer.
pub fn xml_text(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => '\u{fffd}',
            '\u{fdd0}'..='\u{fdef}' => '\u{fffd}',
            c if (c as u32) & 0xfffe == 0xfffe => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// A step for the y axis that gives four to eight ticks up to `max`.
fn tick_step(max: f64) -> f64 {
    let mut base = 1.0;
    loop {
        for s in [10.0, 20.0, 25.0, 50.0] {
            if max / (s * base) <= 8.0 {
                return s * base;
            }
        }
        base *= 10.0;
    }
}

/// The values as written in `data-values`: what the JSON says, rounded to
/// what a reader compares.
fn values_attr(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:.4}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The plot of one line chart, `top` pixels down the page.
fn line_plot(c: &LineChart, top: f64) -> Group {
    let plot_w = WIDTH - PLOT_LEFT - PLOT_RIGHT;
    let n = c
        .series
        .iter()
        .map(|s| s.values.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let peak = c
        .series
        .iter()
        .flat_map(|s| s.values.iter().copied())
        .chain(c.levels.iter().map(|l| l.value))
        .fold(100.0_f64, f64::max);
    let step = tick_step(peak * 1.05);
    let y_max = (peak * 1.05 / step).ceil() * step;
    let x_of = |i: usize| PLOT_LEFT + plot_w * (i as f64 - 1.0) / ((n - 1).max(1) as f64);
    let y_of = |v: f64| top + PLOT_HEIGHT * (1.0 - v / y_max);
    let mut g = Group::new().set("class", "plot");
    g = overflow_band(g, c, plot_w, y_max, &y_of);
    g = grid(g, y_max, step, plot_w, &y_of, &|t| format!("{t:.0}%"));
    // The x axis: about ten labels.
    let every = n.div_ceil(10).max(1);
    // The last x is labelled unless a label sits right before it.
    let last_near = (n - 1) % every != 0 && (n - 1) % every < every / 2;
    for i in (1..=n).filter(|i| (i - 1) % every == 0 || (*i == n && !last_near)) {
        g = g.add(
            text(x_of(i), top + PLOT_HEIGHT + 18.0, "dim", i.to_string())
                .set("text-anchor", "middle"),
        );
    }
    g = g
        .add(line(
            "axis",
            (PLOT_LEFT, top + PLOT_HEIGHT),
            (PLOT_LEFT + plot_w, top + PLOT_HEIGHT),
        ))
        .add(line(
            "axis",
            (PLOT_LEFT, top),
            (PLOT_LEFT, top + PLOT_HEIGHT),
        ))
        .add(
            text(
                PLOT_LEFT + plot_w / 2.0,
                top + PLOT_HEIGHT + 40.0,
                "fg",
                c.x_label.clone(),
            )
            .set("text-anchor", "middle"),
        )
        .add(
            text(18.0, top + PLOT_HEIGHT / 2.0, "fg", c.y_label.clone())
                .set("text-anchor", "middle")
                .set(
                    "transform",
                    format!("rotate(-90 18 {})", top + PLOT_HEIGHT / 2.0),
                ),
        );
    // Levels close together (85 % and 75 % on a scale to 500 %) would
    // print their labels over each other: each label keeps a line apart.
    let label_ys = spread(
        &c.levels
            .iter()
            .map(|l| y_of(l.value) + 4.0)
            .collect::<Vec<_>>(),
        12.0,
    );
    for (l, label_y) in c.levels.iter().zip(label_ys) {
        let y = y_of(l.value);
        g = g
            .add(
                line("level", (PLOT_LEFT, y), (PLOT_LEFT + plot_w, y))
                    .set("data-value", format!("{:.4}", l.value)),
            )
            .add(text(
                PLOT_LEFT + plot_w + 6.0,
                label_y,
                "dim",
                l.label.clone(),
            ));
    }
    for (k, m) in c.marks.iter().enumerate() {
        let x = x_of(m.x);
        g = g
            .add(line("mark", (x, top), (x, top + PLOT_HEIGHT)).set("data-x", m.x))
            .add(
                text(
                    x + 3.0,
                    top + 12.0 + 14.0 * (k % 3) as f64,
                    "marktext",
                    m.label.clone(),
                )
                .set("font-size", 11),
            );
    }
    for (k, s) in c.series.iter().enumerate() {
        let points: Vec<String> = s
            .values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{:.1},{:.1}", x_of(i + 1), y_of(*v)))
            .collect();
        g = g.add(
            Polyline::new()
                .set("class", format!("s{}", k % 5))
                .set("points", points.join(" "))
                .set("data-series", s.name.clone())
                .set("data-values", values_attr(&s.values))
                .add(tooltip(&s.name)),
        );
        // The legend, right of the plot.
        let ly = top + 8.0 + 20.0 * k as f64;
        g = g
            .add(
                Line::new()
                    .set("class", format!("s{}", k % 5))
                    .set("stroke-width", 3)
                    .set("x1", PLOT_LEFT + plot_w + 8.0)
                    .set("x2", PLOT_LEFT + plot_w + 28.0)
                    .set("y1", ly)
                    .set("y2", ly),
            )
            .add(text(
                PLOT_LEFT + plot_w + 34.0,
                ly + 4.0,
                "fg",
                s.name.clone(),
            ));
    }
    g
}

/// Above the usable window, a band saying what is there: overflow.
fn overflow_band(
    mut g: Group,
    c: &LineChart,
    plot_w: f64,
    y_max: f64,
    y_of: &dyn Fn(f64) -> f64,
) -> Group {
    if let Some(limit) = c.overflow_above {
        g = g.add(
            Rectangle::new()
                .set("class", "overflow")
                .set("x", PLOT_LEFT)
                .set("y", y_of(y_max))
                .set("width", plot_w)
                .set("height", y_of(limit) - y_of(y_max)),
        );
        g = g.add(
            text(
                PLOT_LEFT + plot_w - 6.0,
                y_of(limit) - 6.0,
                "dim",
                "overflow: over the usable window",
            )
            .set("text-anchor", "end"),
        );
    }
    g
}

/// A document of one or more line charts under one title, then bars.
pub fn document(title: &str, subtitle: &str, lines: &[LineChart], bars: &[BarChart]) -> Document {
    let per = PLOT_TOP + PLOT_HEIGHT + PLOT_BOTTOM;
    let height = 60.0 + per * (lines.len() + bars.len()) as f64;
    let mut doc = Document::new()
        .set("xmlns", "http://www.w3.org/2000/svg")
        .set("viewBox", (0, 0, WIDTH, height))
        .set("width", WIDTH)
        .set("height", height)
        .add(tooltip(title))
        .add(Style::new(STYLE))
        .add(
            Rectangle::new()
                .set("class", "bg")
                .set("width", "100%")
                .set("height", "100%"),
        )
        .add(
            text(20.0, 30.0, "fg", title.to_string())
                .set("font-size", 18)
                .set("font-weight", "bold"),
        )
        .add(text(20.0, 50.0, "dim", subtitle.to_string()).set("font-size", 13));
    for (k, c) in lines.iter().enumerate() {
        let top = 60.0 + per * k as f64;
        doc = doc
            .add(
                text(PLOT_LEFT, top + 40.0, "fg", c.title.clone())
                    .set("font-size", 14)
                    .set("font-weight", "bold"),
            )
            .add(text(PLOT_LEFT, top + 56.0, "dim", c.subtitle.clone()).set("font-size", 12))
            .add(line_plot(c, top + PLOT_TOP));
    }
    for (k, b) in bars.iter().enumerate() {
        doc = doc.add(bar_plot(b, 60.0 + per * (lines.len() + k) as f64));
    }
    doc
}

/// Bars by group, each group's bars side by side, with a legend.
fn bar_plot(b: &BarChart, top: f64) -> Group {
    let plot_w = WIDTH - PLOT_LEFT - PLOT_RIGHT;
    let plot_top = top + PLOT_TOP;
    let peak = b
        .groups
        .iter()
        .flat_map(|(_, bars)| bars.iter().map(|(_, v)| *v))
        .fold(1.0_f64, f64::max);
    let step = tick_step(peak * 1.1).max(1.0);
    let step = if peak <= 8.0 { 1.0 } else { step };
    let y_max = (peak * 1.1 / step).ceil() * step;
    let y_of = |v: f64| plot_top + PLOT_HEIGHT * (1.0 - v / y_max);
    let mut g = Group::new().set("class", "bars").add(
        text(PLOT_LEFT, top + 40.0, "fg", b.title.clone())
            .set("font-size", 14)
            .set("font-weight", "bold"),
    );
    g = grid(g, y_max, step, plot_w, &y_of, &human);
    g = g.add(
        text(18.0, plot_top + PLOT_HEIGHT / 2.0, "fg", b.y_label.clone())
            .set("text-anchor", "middle")
            .set(
                "transform",
                format!("rotate(-90 18 {})", plot_top + PLOT_HEIGHT / 2.0),
            ),
    );
    let groups = b.groups.len().max(1) as f64;
    let group_w = plot_w / groups;
    for (gi, (name, bars)) in b.groups.iter().enumerate() {
        let x0 = PLOT_LEFT + group_w * gi as f64;
        let bar_w = (group_w * 0.8) / bars.len().max(1) as f64;
        for (bi, (policy, v)) in bars.iter().enumerate() {
            let x = x0 + group_w * 0.1 + bar_w * bi as f64;
            g = g.add(
                Rectangle::new()
                    .set("class", format!("b{}", bi % 5))
                    .set("x", x)
                    .set("y", y_of(*v))
                    .set("width", bar_w * 0.9)
                    .set("height", y_of(0.0) - y_of(*v))
                    .set("data-group", name.clone())
                    .set("data-bar", policy.clone())
                    .set("data-value", format!("{v}"))
                    .add(tooltip(&format!("{policy} at {name}: {v}"))),
            );
        }
        g = g.add(
            text(
                x0 + group_w / 2.0,
                plot_top + PLOT_HEIGHT + 18.0,
                "dim",
                name.clone(),
            )
            .set("text-anchor", "middle"),
        );
    }
    if let Some((_, bars)) = b.groups.first() {
        for (bi, (policy, _)) in bars.iter().enumerate() {
            let ly = plot_top + 20.0 * bi as f64;
            g = g
                .add(
                    Rectangle::new()
                        .set("class", format!("b{}", bi % 5))
                        .set("x", PLOT_LEFT + plot_w + 8.0)
                        .set("y", ly - 8.0)
                        .set("width", 16)
                        .set("height", 10),
                )
                .add(text(
                    PLOT_LEFT + plot_w + 30.0,
                    ly + 2.0,
                    "fg",
                    policy.clone(),
                ));
        }
    }
    g.add(
        Line::new()
            .set("class", "axis")
            .set("x1", PLOT_LEFT)
            .set("x2", PLOT_LEFT + plot_w)
            .set("y1", y_of(0.0))
            .set("y2", y_of(0.0)),
    )
}

/// The horizontal grid lines and their labels, every `step` up to `y_max`.
fn grid(
    mut g: Group,
    y_max: f64,
    step: f64,
    plot_w: f64,
    y_of: &dyn Fn(f64) -> f64,
    label: &dyn Fn(f64) -> String,
) -> Group {
    let mut tick = 0.0;
    while tick <= y_max + 0.001 {
        let y = y_of(tick);
        g = g
            .add(line("grid", (PLOT_LEFT, y), (PLOT_LEFT + plot_w, y)))
            .add(text(PLOT_LEFT - 8.0, y + 4.0, "dim", label(tick)).set("text-anchor", "end"));
        tick += step;
    }
    g
}

/// What a chart names its conversation by, each text already cleaned
/// (controls shown, likely secrets redacted): they come from someone
/// else's files.
#[derive(Debug, Clone)]
pub struct Heading {
    pub title: String,
    pub model: String,
    /// The conversation's id, or its folder's name when it has none.
    pub id: String,
}

/// A chart's heading, cleaned as a report cleans a line: controls shown,
/// likely secrets redacted.
pub fn heading(conv: &crate::core::model::conversation::Conversation) -> Heading {
    let clean = |s: &str| {
        let s = crate::core::visible::visible_line(s);
        crate::core::ops::redact(&s).0.into_owned()
    };
    let model = crate::core::model::config::model_id(conv.merged_config())
        .map_or_else(|| "model unknown".to_string(), |m| m.to_string());
    Heading {
        title: clean(conv.title.as_deref().unwrap_or("(untitled)")),
        model: clean(&model),
        id: clean(&conv.display_id()),
    }
}

/// `1.2M`, `35k`, `12`: a bar axis's tick.
fn human(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if v >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

/// Writes `doc` to `path` atomically (see [`write_file`]).
pub fn save(path: &std::path::Path, doc: &Document) -> anyhow::Result<()> {
    write_file(path, doc.to_string().as_bytes())
}

/// Writes `bytes` to `path` atomically (a half-written chart or report is
/// never left), with the mode a new file gets from the umask, or the one
/// of the file it replaces. Errors name `path`, never the temporary file.
pub fn write_file(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let named = |e: &std::io::Error| {
        // The OS's words alone: tempfile's add the temporary file's name.
        let said = e.raw_os_error().map_or_else(
            || e.kind().to_string(),
            |code| std::io::Error::from_raw_os_error(code).to_string(),
        );
        anyhow::anyhow!("{}: {said}", path.display())
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    // The mode of a regular file replaced; never one read through a link
    // (a committed `jp-report-….html -> /dev/null` would give 0666): the
    // rename replaces the link itself, and a new file gets the umask's.
    let mode = std::fs::symlink_metadata(path)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map_or_else(|| 0o666 & !umask(), |m| m.permissions().mode() & 0o7777);
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| named(&e))?;
    tmp.write_all(bytes).map_err(|e| named(&e))?;
    tmp.as_file().sync_all().map_err(|e| named(&e))?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))
        .map_err(|e| named(&e))?;
    tmp.persist(path).map_err(|e| named(&e.error))?;
    Ok(())
}

fn umask() -> u32 {
    crate::platform::umask()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_at_the_name_lends_the_new_file_no_mode() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("open-to-all");
        std::fs::write(&target, "theirs").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o666)).unwrap();
        let name = tmp.path().join("jp-report-x.html");
        std::os::unix::fs::symlink(&target, &name).unwrap();
        write_file(&name, b"<html>").unwrap();
        let m = std::fs::symlink_metadata(&name).unwrap();
        assert!(m.is_file(), "the link is replaced by a file");
        assert_eq!(m.permissions().mode() & 0o7777, 0o666 & !umask());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
        assert_eq!(
            std::fs::metadata(&target).unwrap().permissions().mode() & 0o777,
            0o666
        );
        // A regular file replaced keeps its own mode.
        let own = tmp.path().join("mine.html");
        std::fs::write(&own, "old").unwrap();
        std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_file(&own, b"new").unwrap();
        let mode = std::fs::metadata(&own).unwrap().permissions().mode();
        assert_eq!(mode & 0o7777, 0o600);
    }

    #[test]
    fn a_line_chart_carries_its_values_and_escapes_its_text() {
        let c = LineChart {
            title: "a <b> & c".into(),
            subtitle: String::new(),
            x_label: "request".into(),
            y_label: "% of usable".into(),
            series: vec![Series {
                name: "context".into(),
                values: vec![10.0, 55.5, 120.0],
            }],
            levels: vec![Level {
                value: 85.0,
                label: "hard 85%".into(),
            }],
            marks: vec![Mark {
                x: 2,
                label: "#1".into(),
            }],
            overflow_above: Some(100.0),
        };
        let text = document("t", "s", &[c], &[]).to_string();
        assert!(
            text.contains("data-values=\"10.0000,55.5000,120.0000\""),
            "{text}"
        );
        assert!(text.contains("a &lt;b&gt; &amp; c"), "{text}");
        assert_eq!(
            xml_text("a\u{fffe}b\u{1}c\td\u{ffff}\u{fdd0}"),
            "a\u{fffd}b\u{fffd}c\td\u{fffd}\u{fffd}"
        );
        assert!(text.contains("prefers-color-scheme: dark"));
        assert_eq!(tick_step(105.0), 20.0);
    }
}

/// `ys` moved apart to at least `gap` each, in their order from the top,
/// the lowest staying where it is and the others going up.
fn spread(ys: &[f64], gap: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..ys.len()).collect();
    order.sort_by(|&a, &b| ys[b].total_cmp(&ys[a]));
    let mut out = ys.to_vec();
    for w in 1..order.len() {
        let (below, at) = (order[w - 1], order[w]);
        if out[below] - out[at] < gap {
            out[at] = out[below] - gap;
        }
    }
    out
}

#[cfg(test)]
mod spread_tests {
    #[test]
    fn labels_close_together_keep_a_line_apart() {
        let ys = super::spread(&[300.0, 304.0, 310.0, 100.0], 12.0);
        assert_eq!(ys, vec![286.0, 298.0, 310.0, 100.0]);
    }
}
