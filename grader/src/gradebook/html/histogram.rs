//! The spread of totals on the class page: an inline SVG histogram of the percent of the points graded
//! so far, the students with hand grades pending drawn apart (a light, dashed part of each bar, and
//! said so in words), with the class's statistics.

use std::fmt::Write as _;

use super::super::summary::{above_max, above_max_note, bin_label, pending_note, Distribution, BINS};
use super::super::Gradebook;
use super::escape;

/// Histogram geometry, in SVG user units.
pub(super) const WIDTH: f64 = 560.0;
pub(super) const HEIGHT: f64 = 260.0;
const LEFT: f64 = 52.0;
const RIGHT: f64 = 8.0;
pub(super) const TOP: f64 = 20.0;
pub(super) const BOTTOM: f64 = 52.0;

/// The histogram section.
pub(super) fn histogram(out: &mut String, book: &Gradebook) {
    let distribution = Distribution::of(book);
    let peak = distribution.peak();
    let plot_width = WIDTH - LEFT - RIGHT;
    let plot_height = HEIGHT - TOP - BOTTOM;
    let slot = plot_width / BINS as f64;
    let bottom = TOP + plot_height;
    let any_pending = distribution.pending.iter().any(|&n| n > 0);

    let described: Vec<String> = distribution
        .bins
        .iter()
        .zip(distribution.pending)
        .enumerate()
        .map(|(i, (&count, pending))| match pending {
            0 => format!("{}: {count}", bin_label(i)),
            _ => format!("{}: {count} ({pending} pending)", bin_label(i)),
        })
        .collect();
    let label = format!(
        "Histogram of totals as percent of the points graded so far, students per range: {}",
        described.join(", ")
    );

    out.push_str("<section id=\"totals\">\n<h2>Totals</h2>\n<figure>\n");
    let _ = writeln!(
        out,
        "<svg width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{}\">",
        escape(&label)
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&label));
    // Axes: the baseline, and the count axis with its two ends (0 and the peak).
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{bottom}\" x2=\"{}\" y2=\"{bottom}\"></line>",
        WIDTH - RIGHT
    );
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{bottom}\"></line>"
    );
    let _ =
        writeln!(out, "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">0</text>", LEFT - 6.0, bottom + 4.0);
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{peak}</text>",
        LEFT - 6.0,
        TOP + 4.0
    );
    for (i, &count) in distribution.bins.iter().enumerate() {
        let pending = distribution.pending[i];
        let full = count - pending;
        let full_height = plot_height * full as f64 / peak as f64;
        let pending_height = plot_height * pending as f64 / peak as f64;
        let x = LEFT + slot * i as f64 + slot * 0.1;
        let centre = LEFT + slot * (i as f64 + 0.5);
        let range = bin_label(i);
        let students = if count == 1 { "student" } else { "students" };
        let described = match pending {
            0 => format!("{range}: {count} {students}"),
            _ => format!("{range}: {count} {students}, {pending} with hand grades pending"),
        };
        // Graded in full at the bottom, pending on top: one bar per range, its parts told apart by
        // fill and a dashed outline.
        let _ = writeln!(
            out,
            "<rect class=\"hist-bar\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{full_height:.1}\"><title>{}</title></rect>",
            bottom - full_height,
            slot * 0.8,
            escape(&described)
        );
        if pending > 0 {
            let _ = writeln!(
                out,
                "<rect class=\"hist-pending\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{pending_height:.1}\"><title>{}</title></rect>",
                bottom - full_height - pending_height,
                slot * 0.8,
                escape(&described)
            );
        }
        let _ = writeln!(
            out,
            "<text x=\"{centre:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{count}</text>",
            bottom - full_height - pending_height - 4.0
        );
        // The range without its `%` (the axis's name says it): `90-100%` is wider than its bar.
        let _ = writeln!(
            out,
            "<text x=\"{centre:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 16.0,
            escape(range.trim_end_matches('%'))
        );
    }
    let _ = writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">Total, percent of the points graded so far</text>",
        LEFT + plot_width / 2.0,
        HEIGHT - 8.0
    );
    // The count axis's name, turned to run along it.
    let (cx, cy) = (14.0, TOP + plot_height / 2.0);
    let _ = writeln!(
        out,
        "<text x=\"{cx:.1}\" y=\"{cy:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 {cx:.1} {cy:.1})\">Students</text>"
    );
    out.push_str("</svg>\n<figcaption>");
    let mut caption = match distribution.stats {
        Some(s) => format!(
            "Mean {:.1}%, median {:.1}%, min {:.1}%, max {:.1}%, standard deviation {:.1}%.",
            s.mean, s.median, s.min, s.max, s.std_dev
        ),
        None => "No students.".to_owned(),
    };
    // Said where it applies, so nobody reads totals awaiting hand grades as failures.
    if let Some(note) = pending_note(book, &distribution) {
        caption.push(' ');
        caption.push_str(&note);
    }
    if let Some(note) = above_max_note(above_max(book)) {
        caption.push(' ');
        caption.push_str(&note);
    }
    out.push_str(&escape(&caption));
    if any_pending {
        out.push_str(
            "<br><span class=\"swatch swatch-graded\"></span>graded in full\
             <span class=\"swatch swatch-pending\"></span>hand grades pending",
        );
    }
    out.push_str("</figcaption>\n</figure>\n</section>\n");
}
