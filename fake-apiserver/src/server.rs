//! The listening socket and its connections.
//!
//! Connections are served one by one with hyper rather than through
//! `axum::serve`, so that pausing can drop every open connection outright
//! (an API server going down mid-watch), close the listener (clients get
//! "connection refused") and later listen again on the same port.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use parking_lot::Mutex;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// One period of listening, from start or resume to pause.
struct Generation {
    shutdown: CancellationToken,
    tasks: TaskTracker,
}

/// Serves `router` on a fixed address until dropped.
pub(crate) struct HttpServer {
    address: SocketAddr,
    router: Router,
    /// Cancelled when the server is dropped; parent of every generation.
    root: CancellationToken,
    running: Mutex<Option<Generation>>,
}

/// Binds with `SO_REUSEADDR`, so the port can be bound again right after a
/// pause even while closed connections linger in TIME_WAIT.
pub(crate) fn bind(address: SocketAddr) -> io::Result<TcpListener> {
    let socket = if address.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(1024)
}

impl HttpServer {
    /// Starts serving on `listener`, whose address stays the server's address.
    pub fn start(listener: TcpListener, router: Router) -> io::Result<HttpServer> {
        let address = listener.local_addr()?;
        let server = HttpServer {
            address,
            router,
            root: CancellationToken::new(),
            running: Mutex::new(None),
        };
        *server.running.lock() = Some(server.spawn(listener));
        Ok(server)
    }

    fn spawn(&self, listener: TcpListener) -> Generation {
        let shutdown = self.root.child_token();
        let tasks = TaskTracker::new();
        tasks.spawn(accept_loop(
            listener,
            self.router.clone(),
            shutdown.clone(),
            tasks.clone(),
        ));
        Generation { shutdown, tasks }
    }

    /// Stops listening and drops every open connection; returns once all of
    /// them are closed.
    pub async fn pause(&self) {
        let generation = self.running.lock().take();
        if let Some(generation) = generation {
            generation.shutdown.cancel();
            generation.tasks.close();
            generation.tasks.wait().await;
        }
    }

    /// Listens again on the same address. Retries briefly in case the port is
    /// still held, then panics: a test cannot continue without its server.
    pub async fn resume(&self) {
        if self.running.lock().is_some() {
            return;
        }
        let mut attempt = 0;
        let listener = loop {
            match bind(self.address) {
                Ok(listener) => break listener,
                Err(error) if attempt < 50 => {
                    tracing::debug!(%error, "rebinding the fake API server's port; retrying");
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(error) => panic!(
                    "fake API server cannot listen on {} again: {error}",
                    self.address
                ),
            }
        };
        let mut running = self.running.lock();
        if running.is_none() {
            *running = Some(self.spawn(listener));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.root.cancel();
    }
}

async fn accept_loop(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    tasks: TaskTracker,
) {
    loop {
        tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tasks.spawn(serve_connection(stream, router.clone(), shutdown.clone()));
                }
                Err(error) => {
                    // Typically out of file descriptors: back off instead of spinning.
                    tracing::warn!(%error, "fake API server failed to accept a connection");
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            },
        }
    }
}

/// Serves one connection until it ends or the server pauses; dropping the
/// connection future on pause closes the socket without finishing responses.
async fn serve_connection(stream: TcpStream, router: Router, shutdown: CancellationToken) {
    let _ = stream.set_nodelay(true);
    let connection = hyper::server::conn::http1::Builder::new()
        .header_read_timeout(None)
        .serve_connection(TokioIo::new(stream), TowerToHyperService::new(router));
    tokio::select! {
        result = connection => {
            if let Err(error) = result {
                tracing::debug!(%error, "fake API server connection ended with an error");
            }
        }
        () = shutdown.cancelled() => {}
    }
}
