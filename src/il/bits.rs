//! Dense bitset columns keyed by [`Eix`](super::Eix).
//!
//! The prefix flag byte of every EDG entry becomes one column per flag. Hot loops
//! (keep-in-IL marking) test and set bits here; PERF.md records why this is a plain dense
//! bitset and not roaring on that loop.

/// A growable dense bitset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// An empty set able to hold `n` bits without growing.
    pub fn with_len(n: usize) -> BitSet {
        BitSet {
            words: vec![0; n.div_ceil(64)],
        }
    }

    /// The set whose words are `words` (bit `i` is bit `i % 64` of word `i / 64`).
    pub fn from_words(words: Vec<u64>) -> BitSet {
        BitSet { words }
    }

    /// The words, as [`BitSet::from_words`] takes them.
    pub fn into_words(self) -> Vec<u64> {
        self.words
    }

    /// Makes room for bit `n - 1`.
    #[inline]
    pub fn grow(&mut self, n: usize) {
        let w = n.div_ceil(64);
        if w > self.words.len() {
            self.words.resize(w.max(self.words.len() * 2), 0);
        }
    }

    /// Whether bit `i` is set (bits past the end are clear).
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        match self.words.get(i >> 6) {
            Some(w) => (w >> (i & 63)) & 1 != 0,
            None => false,
        }
    }

    /// Sets bit `i` to `v`, growing as needed.
    #[inline]
    pub fn set(&mut self, i: usize, v: bool) {
        let w = match self.words.get_mut(i >> 6) {
            Some(w) => w,
            None => self.grow_for(i),
        };
        let m = 1u64 << (i & 63);
        *w = if v { *w | m } else { *w & !m };
    }

    /// Grows to hold bit `i` (out of line: the hot path finds the word in range).
    #[cold]
    #[inline(never)]
    fn grow_for(&mut self, i: usize) -> &mut u64 {
        self.grow(i + 1);
        &mut self.words[i >> 6]
    }

    /// Sets bit `i`; returns whether it was clear before. `i` must be in range.
    #[inline]
    pub fn insert(&mut self, i: usize) -> bool {
        let w = &mut self.words[i >> 6];
        let m = 1u64 << (i & 63);
        let was = *w & m;
        *w |= m;
        was == 0
    }

    /// Sets bit `i` when it is in range; whether this call set it (false past the end).
    #[inline(always)]
    pub fn insert_in_range(&mut self, i: usize) -> bool {
        match self.words.get_mut(i >> 6) {
            Some(w) => {
                let m = 1u64 << (i & 63);
                let was = *w & m;
                *w |= m;
                was == 0
            }
            None => false,
        }
    }

    /// `self |= other` (grows to fit).
    pub fn union_with(&mut self, other: &BitSet) {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Number of set bits.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Set bits in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }

    /// Sets bits `a..b`, a word at a time, growing exactly as [`BitSet::set`] of each
    /// bit in increasing order would (so the words equal theirs).
    pub fn set_range(&mut self, a: usize, b: usize) {
        let mut i = a;
        while i < b {
            let have = self.words.len() * 64;
            if i >= have {
                self.grow(i + 1);
                continue;
            }
            let j = b.min(have);
            let (wa, wb) = (i >> 6, (j - 1) >> 6);
            for w in wa..=wb {
                let lo = if w == wa { i & 63 } else { 0 };
                let hi = if w == wb { ((j - 1) & 63) + 1 } else { 64 };
                let m = if hi - lo == 64 {
                    u64::MAX
                } else {
                    ((1u64 << (hi - lo)) - 1) << lo
                };
                self.words[w] |= m;
            }
            i = j;
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// The raw words (for kernels that want them).
    pub fn words_mut(&mut self) -> &mut [u64] {
        &mut self.words
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn set_range_equals_setting_each_bit() {
        for (len, a, b) in [
            (0, 0, 1),
            (0, 3, 200),
            (64, 60, 70),
            (128, 0, 128),
            (5, 64, 64),
            (1, 1000, 1300),
        ] {
            let (mut x, mut y) = (super::BitSet::with_len(len), super::BitSet::with_len(len));
            x.set(1, true);
            y.set(1, true);
            x.set_range(a, b);
            for i in a..b {
                y.set(i, true);
            }
            assert_eq!(x, y, "{len} {a}..{b}");
        }
    }

    use super::*;

    #[test]
    fn set_get_iter_count() {
        let mut b = BitSet::default();
        b.set(3, true);
        b.set(130, true);
        assert!(b.get(3) && b.get(130) && !b.get(4) && !b.get(10_000));
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![3, 130]);
        assert!(!b.insert(3));
        assert!(b.insert(5));
        assert_eq!(b.count(), 3);
        b.set(3, false);
        assert_eq!(b.count(), 2);
    }
}
