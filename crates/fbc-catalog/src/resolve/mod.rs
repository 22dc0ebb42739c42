//! OLM v0 dependency resolution over a catalog's tables: "what would OLM
//! install for these subscriptions, next to these installed operators?", and
//! "why won't this resolve?".
//!
//! In: the [`crate::tables::Tables`] of one catalog and a [`request::Request`].
//! Out (as the resolver lands): the operators OLM v0.25 would install, or its
//! `constraints not satisfiable: …` answer. Built in steps, each module with its
//! tests:
//!
//! | module | in → out |
//! |---|---|
//! | [`request`] | request JSON → a checked [`request::Request`] with OLM's defaults |
//! | [`order`] | one channel's candidates → OLM v0's preference order, or its errors |
//! | [`gofmt`] | strings → Go's `%q`, as OLM's messages quote |
//!
//! Pure computation: no I/O, no network, no async.

pub mod gofmt;
pub mod order;
pub mod request;
