//! Catalog images from OCI registries.
//!
//! In: a [`RegistryRef`](fbc_image::reference::RegistryRef), [`RegistryOptions`] (credentials,
//! TLS, timeouts, retries), [`ImageLimits`](fbc_image::ImageLimits) and the wanted platform.
//! Out: the digest a reference resolves to ([`Puller::resolve`], one manifest request: what a
//! poll costs), or the image itself ([`Puller::fetch`]): its labels and its layers as files, each
//! checked against its descriptor's size and digest, ready for `fbc_image::unpack`.
//!
//! | module | in → out |
//! |---|---|
//! | [`credentials`] | docker `config.json` / pull-secret files → a registry's username and password |
//! | [`connect`] | [`RegistryOptions`] and a registry → an `oci_client` client (TLS on ring, plain HTTP only for loopback or `--insecure-registry`) |
//! | [`retry`] | a request → its answer, retried with backoff on 5xx, 429 and connection errors |
//! | [`pull`] | a reference → its digest, manifest, config and layer files |
//! | [`push`] | images built by `fbc_image::build` → a registry tag (blobs, manifests, a multi-platform index) |
//! | [`error`] | what went wrong, naming the image and the manifest or blob |
//!
//! The pulling is `oci_client`'s (auth challenges, bearer tokens, streamed blobs with digest
//! checks); this crate adds what a server needs around it: limits on every size, credentials
//! that never reach a log or an error, retries, and the platform rules `fbc_image` shares with
//! OCI layouts. `fbc_image` has no network code; this crate is the only one that does.

pub mod connect;
pub mod credentials;
pub mod error;
pub mod pull;
pub mod push;
pub mod retry;

pub use connect::RegistryOptions;
pub use error::{PullError, PullErrorKind};
pub use pull::{PulledImage, Puller, TopManifest};
