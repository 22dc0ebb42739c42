//! The HTTP routes, as one axum `Router`.
//!
//! In: the state of each family of routes. Out: the router the listener serves.
//! Paths no route matches get Go's mux answer (`404 page not found`); routes take
//! every method and answer 405 themselves, as catalogd's do, so the text matches.

use super::browser;
use super::catalogd::{self, ApiState};
use super::errors::{self, Reply};
use super::graph;
use super::graphql;
use super::icons;
use axum::Router;
use axum::extract::State;
use axum::routing::{MethodRouter, any};
use http::{HeaderMap, Method, Uri};
use std::future::Future;

/// Every route of the HTTP server; the browser's when `browser`.
pub fn router(api: ApiState, browser: bool) -> Router {
    let router = Router::new()
        .route("/catalogs/{catalog}/api/v1/all", route(catalogd::all))
        .route("/catalogs/{catalog}/api/v1/metas", route(catalogd::metas))
        .route("/catalogs/{catalog}/api/v1/graph", route(graph::graph))
        .route(
            "/catalogs/{catalog}/api/v1/successors",
            route(graph::successors),
        )
        .route(
            "/catalogs/{catalog}/api/v1/graphql",
            any(
                |State(state): State<ApiState>,
                 method: Method,
                 uri: Uri,
                 headers: HeaderMap,
                 body: axum::body::Body| {
                    graphql::graphql(state, method, uri, headers, body)
                },
            ),
        )
        .route(
            "/catalogs/{catalog}/api/v1/icons/{package}",
            route(icons::icon),
        )
        .fallback(|| async { errors::no_route() });
    let router = if browser {
        router
            .route("/", route(browser::home))
            .route("/packages/{package}", route(browser::package))
            .route("/assets/{file}", route(browser::asset))
    } else {
        router
    };
    router
        .layer(axum::middleware::from_fn(counted))
        .with_state(api)
}

/// Counts every answer for the metrics, by route template and status.
async fn counted(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let route = crate::metrics::http_route(
        request
            .extensions()
            .get::<axum::extract::MatchedPath>()
            .map(|p| p.as_str()),
    );
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    crate::metrics::http_answered(route, response.status().as_u16(), started.elapsed());
    response
}

/// A handler of (state, method, URI, headers) for every method of a route.
fn route<F, Fut>(handler: F) -> MethodRouter<ApiState>
where
    F: Fn(ApiState, Method, Uri, HeaderMap) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Reply> + Send + 'static,
{
    any(
        move |State(state): State<ApiState>, method: Method, uri: Uri, headers: HeaderMap| {
            handler(state, method, uri, headers)
        },
    )
}
