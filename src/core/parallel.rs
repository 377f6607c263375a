//! Independent pieces of work spread over the machine's cores by rayon's
//! work stealing: a long piece (a policy that summarises) splits its own
//! work into pieces the idle cores take, so no core waits behind it.
//!
//! A piece must not block on something another piece may be computing
//! with parallel work (a `OnceLock` filled by `map`): a thread waiting
//! for its own pieces takes others meanwhile, and one of them could wait
//! on the very thread that is filling it. What pieces share is computed
//! outside any lock, or before the pieces start.

use rayon::prelude::*;

/// `work(0)`, …, `work(n - 1)`, on as many threads as there are cores,
/// their results in order. The pieces are begun in order, each thread
/// taking the next when it is done: pieces that repeat an earlier one's
/// work (a policy's summaries another policy asked for first) find it
/// done, rather than doing it beside it.
pub fn each<T: Send>(n: usize, work: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    let mut done: Vec<(usize, T)> = (0..n).par_bridge().map(|i| (i, work(i))).collect();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// `work` on each of `items`, in order, the items split among the cores.
pub fn map<I: Sync, T: Send>(items: &[I], work: impl Fn(&I) -> T + Sync + Send) -> Vec<T> {
    items.par_iter().map(work).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_piece_once_in_order() {
        let out = super::each(100, |i| i * 2);
        assert_eq!(out, (0..100).map(|i| i * 2).collect::<Vec<_>>());
        assert!(super::each(0, |i| i).is_empty());
        let items: Vec<usize> = (0..1000).collect();
        assert_eq!(super::map(&items, |i| i + 1), (1..1001).collect::<Vec<_>>());
    }
}
