//! The state every request handler and the scenario API share.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use crate::access::Access;
use crate::faults::Faults;
use crate::http::RequestRecord;
use crate::store::Store;

/// How often watches that allow bookmarks get one, unless a test changes it.
const DEFAULT_BOOKMARK_INTERVAL: Duration = Duration::from_secs(2);

pub(crate) struct Shared {
    pub store: Arc<Store>,
    pub faults: Faults,
    /// Tokens and rules for the review APIs, and their counters.
    pub access: Access,
    pub requests: Mutex<Vec<RequestRecord>>,
    /// Where the server listens; stable across pause and resume.
    pub address: SocketAddr,
    bookmark_interval: Mutex<Duration>,
}

impl Shared {
    pub fn new(address: SocketAddr) -> Shared {
        Shared {
            store: Store::new(),
            faults: Faults::default(),
            access: Access::default(),
            requests: Mutex::new(Vec::new()),
            address,
            bookmark_interval: Mutex::new(DEFAULT_BOOKMARK_INTERVAL),
        }
    }

    pub fn bookmark_interval(&self) -> Duration {
        *self.bookmark_interval.lock()
    }

    pub fn set_bookmark_interval(&self, every: Duration) {
        *self.bookmark_interval.lock() = every;
    }
}
