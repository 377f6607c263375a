//! A sweep over the policies' thresholds: the same simulation at several
//! values of one setting (or of the soft/hard pair), to answer D50's open
//! question of which `trigger_ratio` works in practice.

use super::config::AutoConfig;
use super::run::Strategy;

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    Trigger,
    Soft,
    Hard,
    Recent,
    /// The soft and hard thresholds together.
    SoftHard,
    /// What a summary must take out to be bought (0: always bought).
    SummaryMinGain,
}

impl Knob {
    fn parse(key: &str) -> Option<Knob> {
        Some(match key {
            "trigger_ratio" | "trigger" => Knob::Trigger,
            "soft_ratio" | "soft" => Knob::Soft,
            "hard_ratio" | "hard" => Knob::Hard,
            "recent_ratio" | "recent" => Knob::Recent,
            "soft/hard" | "soft_ratio/hard_ratio" => Knob::SoftHard,
            "summary_min_gain" => Knob::SummaryMinGain,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Knob::Trigger => "trigger_ratio",
            Knob::Soft => "soft_ratio",
            Knob::Hard => "hard_ratio",
            Knob::Recent => "recent_ratio",
            Knob::SoftHard => "soft/hard",
            Knob::SummaryMinGain => "summary_min_gain",
        }
    }

    /// The strategies the setting changes.
    pub fn strategies(self) -> &'static [Strategy] {
        match self {
            Knob::Trigger => &[Strategy::Single],
            _ => &[Strategy::Staged],
        }
    }
}

/// A parsed `--sweep`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    pub knob: Knob,
    /// One value, or a soft/hard pair, per setting.
    pub values: Vec<(f64, Option<f64>)>,
}

impl Sweep {
    /// `trigger_ratio=0.5,0.6,0.75,0.9` or `soft/hard=0.5/0.8,0.6/0.9`.
    pub fn parse(spec: &str) -> Result<Sweep, String> {
        let (key, list) = spec.split_once('=').ok_or_else(|| {
            format!("`{spec}`: expected SETTING=V1,V2,… (for example trigger_ratio=0.5,0.75,0.9)")
        })?;
        let knob = Knob::parse(key.trim()).ok_or_else(|| {
            format!(
                "`{key}`: the settings a sweep varies are trigger_ratio, soft_ratio, hard_ratio, \
                 recent_ratio, soft/hard and summary_min_gain"
            )
        })?;
        // A share may be 0 (the rule off); a threshold may not.
        let zero = knob == Knob::SummaryMinGain;
        let ratio = |s: &str| -> Result<f64, String> {
            let v: f64 = s
                .trim()
                .parse()
                .map_err(|_| format!("`{s}` is not a number"))?;
            if (v > 0.0 || (zero && v == 0.0)) && v <= 1.0 {
                Ok(v)
            } else if zero {
                Err(format!("{v}: a share is from 0 to 1"))
            } else {
                Err(format!("{v}: a ratio is more than 0 and at most 1"))
            }
        };
        let mut values = Vec::new();
        for item in list.split(',').filter(|s| !s.trim().is_empty()) {
            if knob == Knob::SoftHard {
                let (soft, hard) = item
                    .split_once('/')
                    .ok_or_else(|| format!("`{item}`: soft/hard takes pairs such as 0.6/0.9"))?;
                let (soft, hard) = (ratio(soft)?, ratio(hard)?);
                if soft >= hard {
                    return Err(format!(
                        "{soft}/{hard}: the soft threshold is below the hard one"
                    ));
                }
                values.push((soft, Some(hard)));
            } else {
                values.push((ratio(item)?, None));
            }
        }
        if values.is_empty() {
            return Err(format!("`{spec}`: no values to sweep"));
        }
        Ok(Sweep { knob, values })
    }

    /// Each setting's label and the configuration it runs with.
    pub fn variants(&self, base: &AutoConfig) -> Vec<(String, AutoConfig)> {
        self.values
            .iter()
            .map(|&(v, pair)| {
                let mut c = base.clone();
                let label = match (self.knob, pair) {
                    (Knob::SoftHard, Some(h)) => {
                        c.soft_ratio = v;
                        c.hard_ratio = h;
                        format!("soft/hard={v}/{h}")
                    }
                    (knob, _) => {
                        match knob {
                            Knob::Trigger => c.trigger_ratio = v,
                            Knob::Soft => c.soft_ratio = v,
                            Knob::Hard => c.hard_ratio = v,
                            Knob::Recent => c.recent_ratio = v,
                            Knob::SummaryMinGain => c.summary_min_gain = v,
                            Knob::SoftHard => {}
                        }
                        format!("{}={v}", knob.name())
                    }
                };
                (label, c)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_setting_and_pairs_and_says_what_is_wrong() {
        let s = Sweep::parse("trigger_ratio=0.5,0.6,0.75,0.9").unwrap();
        assert_eq!(s.knob, Knob::Trigger);
        let v = s.variants(&AutoConfig::default());
        assert_eq!(v.len(), 4);
        assert_eq!(
            (v[2].0.as_str(), v[2].1.trigger_ratio),
            ("trigger_ratio=0.75", 0.75)
        );
        let p = Sweep::parse("soft/hard=0.5/0.8,0.6/0.9").unwrap();
        let v = p.variants(&AutoConfig::default());
        assert_eq!((v[1].1.soft_ratio, v[1].1.hard_ratio), (0.6, 0.9));
        assert_eq!(p.knob.strategies(), &[Strategy::Staged]);
        assert!(
            Sweep::parse("trigger_ratio=1.5")
                .unwrap_err()
                .contains("at most 1")
        );
        assert!(
            Sweep::parse("soft/hard=0.9/0.6")
                .unwrap_err()
                .contains("below")
        );
        assert!(
            Sweep::parse("window=1")
                .unwrap_err()
                .contains("trigger_ratio")
        );
        assert!(Sweep::parse("trigger_ratio").is_err());
        let g = Sweep::parse("summary_min_gain=0,0.1").unwrap();
        assert_eq!(
            g.variants(&AutoConfig::default())[0].1.summary_min_gain,
            0.0
        );
        assert!(Sweep::parse("trigger_ratio=0").is_err());
    }
}
