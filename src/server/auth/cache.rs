//! Review answers kept for a short while, bounded in number, and reviews
//! asked once however many requests want the same answer at the same time.
//!
//! A viewer's browser loading the page, a dashboard's panels all following
//! their links, or a burst of scripted requests with one token would each ask
//! the API server the same question; here the first asks, the others wait for
//! its answer, and the answer serves everyone until it expires. Allowed and
//! denied answers are kept alike (a denied one for less time, so a grant is
//! seen soon); a failed review is not kept, only shared with the requests
//! that waited for it.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};
use parking_lot::Mutex;

use super::reviews::ReviewError;

/// A review in flight, shared by every request that wants its answer.
type Pending<V> = Shared<BoxFuture<'static, Result<V, ReviewError>>>;

enum Slot<V> {
    Ready { value: V, until: Instant },
    Pending(Pending<V>),
}

/// Whether an answer came without a review of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Kept, or joined a review another request had asked for.
    Hit,
    /// This request's review.
    Miss,
}

impl Lookup {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Lookup::Hit => "hit",
            Lookup::Miss => "miss",
        }
    }
}

/// Answers by key, at most `capacity` of them.
pub(crate) struct Cache<K, V> {
    capacity: usize,
    /// How long an answer is kept: `positive` for a yes (authenticated,
    /// allowed), `negative` for a no.
    positive: Duration,
    negative: Duration,
    slots: Mutex<HashMap<K, Slot<V>>>,
}

/// An answer that is a yes or a no, kept for as long as that says.
pub(crate) trait Answer: Clone + Send + Sync + 'static {
    fn is_positive(&self) -> bool;
}

impl<K: Hash + Eq + Clone, V: Answer> Cache<K, V> {
    pub(crate) fn new(capacity: usize, positive: Duration, negative: Duration) -> Self {
        Cache {
            capacity: capacity.max(1),
            positive,
            negative,
            slots: Mutex::new(HashMap::new()),
        }
    }

    /// Answers kept or in flight.
    pub(crate) fn len(&self) -> usize {
        self.slots.lock().len()
    }

    /// The answer for `key`: kept, joined, or asked for with `review` (run
    /// as a task of its own, so a request that goes away does not cancel
    /// what others wait for).
    pub(crate) async fn get(
        &self,
        key: K,
        review: impl FnOnce() -> BoxFuture<'static, Result<V, ReviewError>>,
    ) -> (Result<V, ReviewError>, Lookup) {
        let (pending, lookup) = {
            let mut slots = self.slots.lock();
            let now = Instant::now();
            match slots.get(&key) {
                Some(Slot::Ready { value, until }) if now < *until => {
                    return (Ok(value.clone()), Lookup::Hit);
                }
                Some(Slot::Pending(pending)) => (pending.clone(), Lookup::Hit),
                _ => {
                    let task = tokio::spawn(review());
                    let pending: Pending<V> = async move {
                        task.await.unwrap_or_else(|_| {
                            Err(ReviewError::Other("the review task failed".into()))
                        })
                    }
                    .boxed()
                    .shared();
                    if !slots.contains_key(&key) {
                        make_room(&mut slots, self.capacity, now);
                    }
                    slots.insert(key.clone(), Slot::Pending(pending.clone()));
                    (pending, Lookup::Miss)
                }
            }
        };
        let result = pending.clone().await;
        let mut slots = self.slots.lock();
        // The first waiter back settles the slot, if it is still this review's.
        if let Some(Slot::Pending(held)) = slots.get(&key)
            && held.ptr_eq(&pending)
        {
            match &result {
                Ok(value) => {
                    let keep = if value.is_positive() {
                        self.positive
                    } else {
                        self.negative
                    };
                    slots.insert(
                        key,
                        Slot::Ready {
                            value: value.clone(),
                            until: Instant::now() + keep,
                        },
                    );
                }
                Err(_) => {
                    slots.remove(&key);
                }
            }
        }
        (result, lookup)
    }
}

/// Below `capacity` entries: the expired ones go first, then the one
/// closest to expiring (a review in flight only when nothing else is left).
fn make_room<K: Hash + Eq + Clone, V>(
    slots: &mut HashMap<K, Slot<V>>,
    capacity: usize,
    now: Instant,
) {
    if slots.len() < capacity {
        return;
    }
    slots.retain(|_, slot| !matches!(slot, Slot::Ready { until, .. } if *until <= now));
    while slots.len() >= capacity {
        let victim = slots
            .iter()
            .filter_map(|(k, slot)| match slot {
                Slot::Ready { until, .. } => Some((k, *until)),
                Slot::Pending(_) => None,
            })
            .min_by_key(|(_, until)| *until)
            .map(|(k, _)| k.clone())
            .or_else(|| slots.keys().next().cloned());
        match victim {
            Some(key) => {
                slots.remove(&key);
            }
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    impl Answer for bool {
        fn is_positive(&self) -> bool {
            *self
        }
    }

    /// A review that counts itself and answers `answer` once released.
    fn counted(
        asked: &Arc<AtomicUsize>,
        release: &Arc<tokio::sync::Notify>,
        answer: Result<bool, ReviewError>,
    ) -> impl FnOnce() -> BoxFuture<'static, Result<bool, ReviewError>> + use<> {
        let asked = asked.clone();
        let release = release.clone();
        move || {
            async move {
                asked.fetch_add(1, Ordering::SeqCst);
                release.notified().await;
                answer
            }
            .boxed()
        }
    }

    /// A thousand requests for one answer while its review is in flight
    /// make one review; later ones are answered from the cache.
    #[tokio::test]
    async fn concurrent_lookups_share_one_review() {
        let cache = Arc::new(Cache::new(
            8,
            Duration::from_secs(60),
            Duration::from_secs(1),
        ));
        let asked = Arc::new(AtomicUsize::new(0));
        let release = Arc::new(tokio::sync::Notify::new());
        let mut waiting = Vec::new();
        for _ in 0..1000 {
            let cache = cache.clone();
            let review = counted(&asked, &release, Ok(true));
            waiting.push(tokio::spawn(async move { cache.get("k", review).await }));
        }
        // Every lookup is parked on the one review before it answers.
        while asked.load(Ordering::SeqCst) == 0 {
            tokio::task::yield_now().await;
        }
        for _ in 0..50 {
            tokio::task::yield_now().await;
        }
        release.notify_one();
        let mut misses = 0;
        for task in waiting {
            let (answer, lookup) = task.await.unwrap();
            assert!(answer.unwrap());
            misses += usize::from(lookup == Lookup::Miss);
        }
        assert_eq!(asked.load(Ordering::SeqCst), 1);
        assert_eq!(misses, 1);
        let (answer, lookup) = cache.get("k", || unreachable_review()).await;
        assert_eq!((answer.unwrap(), lookup), (true, Lookup::Hit));
    }

    fn unreachable_review() -> BoxFuture<'static, Result<bool, ReviewError>> {
        async { Err(ReviewError::Other("must not be asked".into())) }.boxed()
    }

    /// A failed review is shared with its waiters but not kept: the next
    /// lookup asks again.
    #[tokio::test]
    async fn failures_are_not_kept() {
        let cache = Cache::new(8, Duration::from_secs(60), Duration::from_secs(60));
        let (answer, _) = cache
            .get("k", || {
                async { Err(ReviewError::Unreachable("down".into())) }.boxed()
            })
            .await;
        assert!(answer.is_err());
        assert_eq!(cache.len(), 0);
        let (answer, lookup) = cache.get("k", || async { Ok(false) }.boxed()).await;
        assert_eq!((answer.unwrap(), lookup), (false, Lookup::Miss));
    }

    /// A denied answer expires after its own (shorter) time.
    #[tokio::test]
    async fn answers_expire_after_their_time() {
        let cache = Cache::new(8, Duration::from_secs(60), Duration::ZERO);
        let _ = cache.get("no", || async { Ok(false) }.boxed()).await;
        let _ = cache.get("yes", || async { Ok(true) }.boxed()).await;
        let (_, lookup) = cache.get("no", || async { Ok(false) }.boxed()).await;
        assert_eq!(lookup, Lookup::Miss);
        let (_, lookup) = cache.get("yes", || unreachable_review()).await;
        assert_eq!(lookup, Lookup::Hit);
    }

    /// Past its capacity the cache drops the answer closest to expiring.
    #[tokio::test]
    async fn the_cache_stays_within_its_capacity() {
        let cache = Cache::new(3, Duration::from_secs(60), Duration::from_secs(5));
        for key in 0..10 {
            let _ = cache.get(key, || async { Ok(true) }.boxed()).await;
            assert!(cache.len() <= 3);
        }
        let _ = cache.get(100, || async { Ok(false) }.boxed()).await;
        let _ = cache.get(101, || async { Ok(true) }.boxed()).await;
        // The denied answer (5 s) went before the allowed ones (60 s).
        let (_, lookup) = cache.get(100, || async { Ok(false) }.boxed()).await;
        assert_eq!(lookup, Lookup::Miss);
        assert_eq!(cache.len(), 3);
    }
}
