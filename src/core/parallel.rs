//! Independent pieces of work spread over the machine's cores: each
//! thread takes the next piece when it is done with one, so a few long
//! pieces (a policy that summarises) don't leave a core idle behind them.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `work(0)`, …, `work(n - 1)`, on as many threads as there are cores,
/// in order.
pub fn each<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |c| c.get())
        .min(n);
    if threads <= 1 {
        return (0..n).map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break mine;
                        }
                        mine.push((i, work(i)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_piece_once_in_order() {
        let out = super::each(100, |i| i * 2);
        assert_eq!(out, (0..100).map(|i| i * 2).collect::<Vec<_>>());
        assert!(super::each(0, |i| i).is_empty());
    }
}
