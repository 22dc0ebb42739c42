//! A served connection, in plain text or TLS.
//!
//! In: an accepted, registered connection ([`ConnIo`]) and, with TLS, an
//! acceptor. Out: [`ServedIo`], which hyper and tonic read and write either way,
//! with the connection's [`ConnInfo`] for the admission layer. TLS handshakes
//! run on their own tasks, each within the handshake timeout, so a client that
//! stalls its handshake holds no accept loop.

use super::conn::{ConnInfo, ConnIo};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A connection as served.
pub enum ServedIo {
    /// Plain text.
    Plain(ConnIo),
    /// After a TLS handshake.
    Tls(Box<tokio_rustls::server::TlsStream<ConnIo>>),
}

impl ServedIo {
    /// The registered connection underneath.
    pub fn conn(&self) -> &ConnIo {
        match self {
            ServedIo::Plain(io) => io,
            ServedIo::Tls(stream) => stream.get_ref().0,
        }
    }

    /// `io` as served: as is, or after a TLS handshake within `timeout`
    /// (`None` when the handshake fails or takes too long; the connection closes).
    pub async fn accept(
        io: ConnIo,
        acceptor: Option<tokio_rustls::TlsAcceptor>,
        timeout: Duration,
    ) -> Option<ServedIo> {
        let Some(acceptor) = acceptor else {
            return Some(ServedIo::Plain(io));
        };
        match tokio::time::timeout(timeout, acceptor.accept(io)).await {
            Ok(Ok(stream)) => Some(ServedIo::Tls(Box::new(stream))),
            Ok(Err(error)) => {
                tracing::debug!(%error, "TLS handshake failed");
                None
            }
            Err(_) => {
                tracing::debug!("TLS handshake timed out");
                None
            }
        }
    }
}

impl tonic::transport::server::Connected for ServedIo {
    type ConnectInfo = ConnInfo;

    fn connect_info(&self) -> ConnInfo {
        self.conn().connect_info()
    }
}

macro_rules! delegate {
    ($self:ident, $io:ident => $call:expr) => {
        match $self.get_mut() {
            ServedIo::Plain($io) => {
                let $io = Pin::new($io);
                $call
            }
            ServedIo::Tls(stream) => {
                let $io = Pin::new(stream.as_mut());
                $call
            }
        }
    };
}

impl AsyncRead for ServedIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        delegate!(self, io => io.poll_read(cx, buf))
    }
}

impl AsyncWrite for ServedIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        delegate!(self, io => io.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        delegate!(self, io => io.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            ServedIo::Plain(io) => io.is_write_vectored(),
            ServedIo::Tls(stream) => stream.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        delegate!(self, io => io.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        delegate!(self, io => io.poll_shutdown(cx))
    }
}
