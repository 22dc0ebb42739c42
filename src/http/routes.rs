//! The HTTP routes, as one axum `Router`.
//!
//! In: the state of each family of routes. Out: the router the listener serves.
//! Paths no route matches get Go's mux answer (`404 page not found`); routes take
//! every method and answer 405 themselves, as catalogd's do, so the text matches.

use super::catalogd::{self, ApiState};
use super::errors;
use super::graph;
use super::icons;
use axum::Router;
use axum::extract::State;
use axum::routing::any;
use http::{HeaderMap, Method, Uri};

/// Every route of the HTTP server.
pub fn router(api: ApiState) -> Router {
    Router::new()
        .route(
            "/catalogs/{catalog}/api/v1/all",
            any(
                |State(s): State<ApiState>, method: Method, uri: Uri, headers: HeaderMap| {
                    catalogd::all(s, method, uri, headers)
                },
            ),
        )
        .route(
            "/catalogs/{catalog}/api/v1/metas",
            any(
                |State(s): State<ApiState>, method: Method, uri: Uri, headers: HeaderMap| {
                    catalogd::metas(s, method, uri, headers)
                },
            ),
        )
        .route(
            "/catalogs/{catalog}/api/v1/graph",
            any(
                |State(s): State<ApiState>, method: Method, uri: Uri, headers: HeaderMap| {
                    graph::graph(s, method, uri, headers)
                },
            ),
        )
        .route(
            "/catalogs/{catalog}/api/v1/successors",
            any(
                |State(s): State<ApiState>, method: Method, uri: Uri, headers: HeaderMap| {
                    graph::successors(s, method, uri, headers)
                },
            ),
        )
        .route(
            "/catalogs/{catalog}/api/v1/icons/{package}",
            any(
                |State(s): State<ApiState>, method: Method, uri: Uri, headers: HeaderMap| {
                    icons::icon(s, method, uri, headers)
                },
            ),
        )
        .fallback(|| async { errors::no_route() })
        .with_state(api)
}
