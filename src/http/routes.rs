//! The HTTP routes, as one axum `Router`.
//!
//! In: the state of each family of routes. Out: the router the listener serves,
//! and the metrics label of each route ([`label`]): [`paths`] is the one list
//! of route templates, which the routers mount and the labels are made from.
//! Paths no route matches get Go's mux answer (`404 page not found`); routes take
//! every method and answer 405 themselves, as catalogd's do, so the text matches.

use super::across;
use super::browser;
use super::catalogd::{self, ApiState};
use super::errors::{self, Reply};
use super::graph;
use super::graphql;
use super::icons;
use super::status;
use axum::Router;
use axum::extract::State;
use axum::routing::{MethodRouter, any};
use http::{HeaderMap, Method, Uri};
use std::future::Future;
use std::sync::LazyLock;

/// Every route template of the HTTP listeners.
pub(crate) mod paths {
    /// catalogd's `/all`.
    pub const ALL: &str = "/catalogs/{catalog}/api/v1/all";
    /// catalogd's `/metas`.
    pub const METAS: &str = "/catalogs/{catalog}/api/v1/metas";
    /// The upgrade graph (ours).
    pub const GRAPH: &str = "/catalogs/{catalog}/api/v1/graph";
    /// OLM v1's successors (ours).
    pub const SUCCESSORS: &str = "/catalogs/{catalog}/api/v1/successors";
    /// OLM v1 readiness (ours).
    pub const READINESS: &str = "/catalogs/{catalog}/api/v1/readiness";
    /// catalogd's GraphQL.
    pub const GRAPHQL: &str = "/catalogs/{catalog}/api/v1/graphql";
    /// Where the catalog came from and how its updates fare (catalogd's ClusterCatalog status).
    pub const STATUS: &str = "/catalogs/{catalog}/status";
    /// A package's icon.
    pub const ICON: &str = "/catalogs/{catalog}/api/v1/icons/{package}";
    /// The browser's home page.
    pub const HOME: &str = "/";
    /// The browser's package page.
    pub const PACKAGE: &str = "/packages/{package}";
    /// The browser's assets.
    pub const ASSET: &str = "/assets/{file}";
    /// Every catalog (ours).
    pub const CATALOGS: &str = "/api/v1/catalogs";
    /// Packages across catalogs (ours).
    pub const PACKAGES: &str = "/api/v1/packages";
    /// Which catalog provides a package (ours).
    pub const PROVIDERS: &str = "/api/v1/packages/{package}/providers";
    /// The metrics listener's one route.
    pub const METRICS: &str = "/metrics";
    /// All of them.
    pub const ALL_ROUTES: [&str; 15] = [
        ALL, METAS, GRAPH, SUCCESSORS, READINESS, GRAPHQL, STATUS, ICON, CATALOGS, PACKAGES,
        PROVIDERS, HOME, PACKAGE, ASSET, METRICS,
    ];
}

/// Every route of the HTTP server; the browser's when `browser`.
pub fn router(api: ApiState, browser: bool) -> Router {
    let router = Router::new()
        .route(paths::ALL, route(catalogd::all))
        .route(paths::METAS, route(catalogd::metas))
        .route(paths::GRAPH, route(graph::graph))
        .route(paths::SUCCESSORS, route(graph::successors))
        .route(paths::READINESS, route(graph::readiness))
        .route(
            paths::GRAPHQL,
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
        .route(paths::ICON, route(icons::icon))
        .route(paths::STATUS, route(status::status))
        .route(paths::CATALOGS, route(across::catalogs))
        .route(paths::PACKAGES, route(across::packages))
        .route(paths::PROVIDERS, route(across::providers))
        .fallback(|| async { errors::no_route() });
    let router = if browser {
        router
            .route(paths::HOME, route(browser::home))
            .route(paths::PACKAGE, route(browser::package))
            .route(paths::ASSET, route(browser::asset))
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
    let route = label(
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

/// Each template of [`paths::ALL_ROUTES`] and its label: `{param}` written
/// `:param` (braces inside label values trip simple parsers and shell tools).
static LABELS: LazyLock<Vec<(&'static str, String)>> = LazyLock::new(|| {
    paths::ALL_ROUTES
        .iter()
        .map(|t| (*t, t.replace('{', ":").replace('}', "")))
        .collect()
});

/// The metrics label of a matched route template (`None`: the fallback),
/// taken before the request is answered so nothing is copied per request: one
/// of [`paths`], or `other`.
pub fn label(template: Option<&str>) -> &'static str {
    template
        .and_then(|t| LABELS.iter().find(|(r, _)| *r == t))
        .map_or("other", |(_, label)| label.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_the_templates_and_bounded() {
        let route = label;
        assert_eq!(
            route(Some("/catalogs/{catalog}/api/v1/all")),
            "/catalogs/:catalog/api/v1/all"
        );
        assert_eq!(route(Some("/anything")), "other");
        assert_eq!(route(None), "other");
        assert_eq!(
            route(Some(paths::ICON)),
            "/catalogs/:catalog/api/v1/icons/:package"
        );
    }
}
