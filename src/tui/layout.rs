//! Where everything sits on the screen, as a function of its size (shared
//! by drawing and by mouse hit-testing).

use ratatui::layout::Rect;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Screen {
    pub header: Rect,
    pub gauge: Rect,
    pub raw: Rect,
    pub projected: Rect,
    pub list: Rect,
    pub status: Rect,
    pub footer: Rect,
}

/// Lines of the compaction list for `list_len` entries at `height`.
fn list_height(height: u16, list_len: usize) -> u16 {
    if list_len == 0 {
        return 0;
    }
    let cap = if height >= 40 {
        8
    } else if height >= 30 {
        5
    } else {
        3
    };
    1 + (list_len as u16).min(cap)
}

pub fn screen(width: u16, height: u16, list_len: usize) -> Screen {
    screen_with(width, height, list_len, 0)
}

/// Lines of the context curve above the panes in "as of" mode.
pub fn curve_height(height: u16) -> u16 {
    if height >= 30 {
        7
    } else if height >= 20 {
        4
    } else {
        0
    }
}

/// `screen`, with `curve` lines for the context curve under the gauge.
pub fn screen_with(width: u16, height: u16, list_len: usize, curve: u16) -> Screen {
    let gauge_h = if height >= 22 { 3 } else { 2 } + curve;
    let list_h = list_height(height, list_len);
    let fixed = 1 + gauge_h + list_h + 1 + 1;
    let panes_h = height.saturating_sub(fixed);
    let mut y = 0;
    let mut take = |h: u16| {
        let r = Rect::new(0, y, width, h);
        y += h;
        r
    };
    let header = take(1);
    let gauge = take(gauge_h);
    let panes = take(panes_h);
    let list = take(list_h);
    let status = take(1);
    let footer = take(1);
    let left = width / 2;
    Screen {
        header,
        gauge,
        raw: Rect::new(0, panes.y, left, panes.height),
        projected: Rect::new(left, panes.y, width - left, panes.height),
        list,
        status,
        footer,
    }
}

/// Rows of events a pane shows (below its title line).
pub fn pane_rows(width: u16, height: u16, list_len: usize, curve: u16) -> usize {
    screen_with(width, height, list_len, curve)
        .raw
        .height
        .saturating_sub(1) as usize
}

/// What a mouse position points at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// A pane, with the row line under the title.
    Raw(usize),
    Projected(usize),
    /// The compaction list, with its entry line.
    List(usize),
    Other,
}

pub fn hit_test(width: u16, height: u16, list_len: usize, curve: u16, x: u16, y: u16) -> Area {
    let s = screen_with(width, height, list_len, curve);
    let inside = |r: Rect| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;
    if inside(s.raw) && y > s.raw.y {
        Area::Raw((y - s.raw.y - 1) as usize)
    } else if inside(s.projected) && y > s.projected.y {
        Area::Projected((y - s.projected.y - 1) as usize)
    } else if inside(s.list) && y > s.list.y {
        Area::List((y - s.list.y - 1) as usize)
    } else {
        Area::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_fits_at_80_by_24() {
        let s = screen(80, 24, 2);
        let total = s.header.height
            + s.gauge.height
            + s.raw.height
            + s.list.height
            + s.status.height
            + s.footer.height;
        assert_eq!(total, 24);
        assert!(s.raw.height >= 10, "{s:?}");
        assert_eq!(s.raw.width + s.projected.width, 80);
    }

    #[test]
    fn clicks_map_to_rows() {
        let s = screen(100, 30, 0);
        assert_eq!(hit_test(100, 30, 0, 0, 5, s.raw.y + 3), Area::Raw(2));
        assert_eq!(
            hit_test(100, 30, 0, 0, 60, s.projected.y + 1),
            Area::Projected(0)
        );
        assert_eq!(hit_test(100, 30, 0, 0, 5, 0), Area::Other);
    }
}
