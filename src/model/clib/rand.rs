//! glibc's `rand()` and `srand()`: the additive feedback generator `random()` uses with its
//! default 128-byte state (`TYPE_3`, the trinomial x³¹ + x³ + 1), as `stdlib/random_r.c`
//! writes it. `srand(seed)` fills 31 words by the Lehmer step
//! `state[i] = 16807 × state[i − 1] mod 2³¹ − 1` (seed 0 taken as 1), sets the front pointer
//! 3 words ahead of the rear one and discards 310 results. Each `rand()` then adds the rear
//! word into the front word (wrapping at 2³²), returns that sum shifted right by one (31 bits),
//! and moves both pointers one word on, cyclically. A program that never calls `srand` gets
//! the sequence of `srand(1)`.

/// Words of the state (`DEG_3`).
const DEGREE: usize = 31;
/// How far the front pointer runs ahead of the rear one (`SEP_3`).
const SEPARATION: usize = 3;

/// The largest value [`Rand::rand`] returns: glibc's `RAND_MAX`.
pub const RAND_MAX: i32 = 0x7fff_ffff;

/// glibc's generator behind `rand()`, in one state.
///
/// ```
/// use coalescing_lab::model::clib::rand::Rand;
/// // What `printf("%d", rand())` prints first in a program that never calls srand.
/// assert_eq!(Rand::default().rand(), 1804289383);
/// let mut r = Rand::seeded(42);
/// assert_eq!((r.rand(), r.rand()), (71876166, 708592740));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rand {
    state: [i32; DEGREE],
    front: usize,
    rear: usize,
}

impl Default for Rand {
    /// The state before any `srand`: glibc's `randtbl`, which is `srand(1)`'s.
    fn default() -> Rand {
        Rand::seeded(1)
    }
}

impl Rand {
    /// The state after `srand(seed)`.
    pub fn seeded(seed: u32) -> Rand {
        let seed = if seed == 0 { 1 } else { seed };
        let mut state = [0i32; DEGREE];
        // C's `int32_t word = seed`: the seed's bits.
        let mut word = seed as i32;
        state[0] = word;
        for slot in state.iter_mut().skip(1) {
            // 16807 × word mod (2³¹ − 1) without overflowing 31 bits (Schrage's method), with
            // C's division truncating toward zero, as `long int` does it.
            let (hi, lo) = (i64::from(word) / 127_773, i64::from(word) % 127_773);
            let mut w = 16_807 * lo - 2_836 * hi;
            if w < 0 {
                w += 2_147_483_647;
            }
            word = w as i32;
            *slot = word;
        }
        let mut r = Rand { state, front: SEPARATION, rear: 0 };
        for _ in 0..DEGREE * 10 {
            r.rand();
        }
        r
    }

    /// The next `rand()`: from 0 to [`RAND_MAX`].
    pub fn rand(&mut self) -> i32 {
        let sum = (self.state[self.front] as u32).wrapping_add(self.state[self.rear] as u32);
        self.state[self.front] = sum as i32;
        self.front = (self.front + 1) % DEGREE;
        self.rear = (self.rear + 1) % DEGREE;
        (sum >> 1) as i32
    }
}
