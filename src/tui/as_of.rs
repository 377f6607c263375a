//! "As of" (`t`): the session's requests, and the one the screen shows as
//! it was sent.

/// Time travel: the session's requests, and the one shown.
#[derive(Debug, Clone)]
pub struct AsOf {
    pub points: Vec<crate::core::ops::HistoryPoint>,
    pub current: usize,
    /// The curve drawn: (request, % of the usable window), at most
    /// `CURVE_POINTS` of them (the highest of each stretch), made once so a
    /// frame of a long session does not walk every request.
    pub curve: Vec<(f64, f64)>,
    /// Where compactions were appended, on the same scale.
    pub compaction_marks: Vec<(f64, f64)>,
    /// What the session was billed, when known.
    pub cost: Option<crate::core::ops::cost::SessionCost>,
    /// Where the prompt cache broke (a compaction, a new prompt, tools or
    /// model, an entry past its TTL), on the same scale.
    pub cache_breaks: Vec<(f64, f64)>,
}

/// Resolution of the drawn curve: more than any terminal is wide.
pub const CURVE_POINTS: usize = 600;

impl AsOf {
    pub fn new(points: Vec<crate::core::ops::HistoryPoint>) -> AsOf {
        let n = points.len();
        let stride = n.div_ceil(CURVE_POINTS).max(1);
        let mut curve = Vec::new();
        let mut compaction_marks = Vec::new();
        for (k, chunk) in points.chunks(stride).enumerate() {
            let x = (k * stride) as f64;
            let top = chunk.iter().map(AsOf::ratio).fold(0.0_f64, f64::max);
            curve.push((x, top));
            if chunk.iter().any(|p| !p.compactions_since.is_empty()) {
                compaction_marks.push((x, top));
            }
        }
        AsOf {
            current: n.saturating_sub(1),
            points,
            curve,
            compaction_marks,
            cost: None,
            cache_breaks: Vec::new(),
        }
    }

    /// With what each request was billed, marking where the cache broke.
    pub fn billed(mut self, cost: crate::core::ops::cost::SessionCost) -> AsOf {
        let stride = self.points.len().div_ceil(CURVE_POINTS).max(1);
        self.cache_breaks = cost
            .bills
            .chunks(stride)
            .zip(&self.curve)
            .filter(|(bills, _)| bills.iter().any(|b| b.broke.is_some()))
            .map(|(_, &point)| point)
            .collect();
        self.cost = Some(cost);
        self
    }

    /// The shown request's bill.
    pub fn bill(&self) -> Option<&crate::core::ops::Bill> {
        self.cost.as_ref()?.bills.get(self.current)
    }

    /// A request's context as a percentage of its usable window.
    pub fn ratio(p: &crate::core::ops::HistoryPoint) -> f64 {
        p.usable
            .map_or(0.0, |u| p.context as f64 / u.max(1) as f64 * 100.0)
    }

    pub fn point(&self) -> Option<&crate::core::ops::HistoryPoint> {
        self.points.get(self.current)
    }
}
