//! Image references → their labels and layer files, pulled concurrently.
//!
//! In: the image references of one `render` (registry references and
//! `oci-layout:PATH[:TAG|@DIGEST]`), [`FetchOptions`] and a scratch directory. Out: per
//! distinct reference, in the order given, a [`PulledImage`] (labels and layers) or
//! the reason it could not be had; [`unpack`] then writes what the labels call for. At
//! most [`CONCURRENCY`] registry pulls run at once; each reference is pulled once however
//! often it is named; an image kept in the [`BundleCache`] costs one manifest request for
//! a tag and none for a digest.

use super::cache::{BundleCache, Cached};
use crate::snapshot::fetch::FetchOptions;
use fbc_image::layout;
use fbc_image::reference::CatalogSource;
use fbc_image::unpack::{self, LayerFile};
use fbc_pull::Puller;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Most registry pulls at once.
pub const CONCURRENCY: usize = 16;

/// One pulled image.
#[derive(Debug, Clone)]
pub struct PulledImage {
    /// What the reference named (none for an OCI layout: those are not cached).
    pub digest: Option<fbc_image::Digest>,
    /// Its config's labels.
    pub labels: BTreeMap<String, String>,
    /// Its layers, in manifest order (none when it was found in the cache).
    pub layers: Vec<LayerFile>,
    /// The cache's copy, when it was there.
    pub cached: Option<Cached>,
}

/// Pulls every reference of `refs` (each once) into `scratch`; the map is keyed by
/// the reference as given.
pub fn pull_all(
    refs: &[String],
    options: &FetchOptions,
    scratch: &Path,
    cache: Option<&BundleCache>,
) -> BTreeMap<String, Result<PulledImage, String>> {
    let mut out = BTreeMap::new();
    let mut registry_refs = Vec::new();
    for reference in refs {
        if out.contains_key(reference) || registry_refs.contains(reference) {
            continue;
        }
        match CatalogSource::parse(reference) {
            Ok(CatalogSource::Layout(layout_ref)) => {
                let image = layout::open(&layout_ref, &options.platform, &options.limits)
                    .map(|image| PulledImage {
                        digest: None,
                        labels: image.labels,
                        layers: image.layers,
                        cached: None,
                    })
                    .map_err(|e| e.to_string());
                out.insert(reference.clone(), image);
            }
            Ok(CatalogSource::Registry(_)) => registry_refs.push(reference.clone()),
            Ok(CatalogSource::Directory(_)) => {
                out.insert(reference.clone(), Err("no such file or directory".into()));
            }
            Err(e) => {
                out.insert(reference.clone(), Err(e.to_string()));
            }
        }
    }
    let (pullers, failed) = pullers(&registry_refs, options);
    out.extend(failed.into_iter().map(|(r, e)| (r, Err(e))));
    let scratch = scratch.to_owned();
    let cache = cache.cloned();
    out.extend(each_concurrently(pullers, CONCURRENCY, move |puller, i| {
        let dir = scratch.join(i.to_string());
        let cache = cache.clone();
        async move { pull_one(&puller, &dir, cache.as_ref()).await }
    }));
    out
}

/// What each registry reference of `refs` resolves to now (one `HEAD` for a tag, no
/// request for a digest), at most [`CONCURRENCY`] at once.
pub fn resolve_all(
    refs: &[String],
    options: &FetchOptions,
) -> BTreeMap<String, Result<String, String>> {
    let (pullers, failed) = pullers(refs, options);
    let mut out: BTreeMap<String, Result<String, String>> =
        failed.into_iter().map(|(r, e)| (r, Err(e))).collect();
    out.extend(each_concurrently(
        pullers,
        CONCURRENCY,
        |puller, _| async move {
            puller
                .resolve()
                .await
                .map(|d| d.to_string())
                .map_err(|e| e.to_string())
        },
    ));
    out
}

/// A puller per registry reference of `refs` (each once), one client per registry; the
/// references that are not registry references or whose credentials could not be read,
/// with why.
pub fn pullers(
    refs: &[String],
    options: &FetchOptions,
) -> (Vec<(String, Puller)>, BTreeMap<String, String>) {
    let mut made: Vec<(String, Puller)> = Vec::new();
    let mut failed = BTreeMap::new();
    for reference in refs {
        if made.iter().any(|(r, _)| r == reference) || failed.contains_key(reference) {
            continue;
        }
        let target = match CatalogSource::parse(reference) {
            Ok(CatalogSource::Registry(target)) => target,
            Ok(_) => {
                failed.insert(reference.clone(), "not a registry reference".to_string());
                continue;
            }
            Err(e) => {
                failed.insert(reference.clone(), e.to_string());
                continue;
            }
        };
        // One client per registry: a sibling of an earlier puller of the same one.
        let puller = made
            .iter()
            .find_map(|(_, p)| p.sibling(&target))
            .unwrap_or_else(|| {
                Puller::new(
                    &target,
                    &options.registry,
                    options.limits,
                    options.platform.clone(),
                )
            });
        match puller {
            Ok(puller) => made.push((reference.clone(), puller)),
            Err(e) => {
                failed.insert(reference.clone(), e.to_string());
            }
        }
    }
    (made, failed)
}

/// Runs `job` for each puller (with its position), at most `limit` at once, on a
/// runtime of its own; the answers in the order of `jobs`.
pub fn each_concurrently<T, F, Fut>(
    jobs: Vec<(String, Puller)>,
    limit: usize,
    job: F,
) -> Vec<(String, Result<T, String>)>
where
    T: Send + 'static,
    F: Fn(Puller, usize) -> Fut,
    Fut: std::future::Future<Output = Result<T, String>> + Send + 'static,
{
    if jobs.is_empty() {
        return Vec::new();
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            let why = format!("starting the runtime for registry requests: {e}");
            return jobs
                .into_iter()
                .map(|(r, _)| (r, Err(why.clone())))
                .collect();
        }
    };
    runtime.block_on(async move {
        let permits = Arc::new(tokio::sync::Semaphore::new(limit));
        let mut set = tokio::task::JoinSet::new();
        let mut names = Vec::with_capacity(jobs.len());
        for (index, (reference, puller)) in jobs.into_iter().enumerate() {
            let permits = permits.clone();
            let work = job(puller, index);
            names.push(reference);
            set.spawn(async move {
                let _permit = permits.acquire_owned().await;
                (index, work.await)
            });
        }
        let mut done: Vec<Option<Result<T, String>>> = (0..names.len()).map(|_| None).collect();
        while let Some(joined) = set.join_next().await {
            if let Ok((index, result)) = joined {
                done[index] = Some(result);
            }
        }
        names
            .into_iter()
            .zip(done)
            .map(|(name, result)| {
                (
                    name,
                    result.unwrap_or_else(|| Err("the request task failed".into())),
                )
            })
            .collect()
    })
}

async fn pull_one(
    puller: &Puller,
    dir: &Path,
    cache: Option<&BundleCache>,
) -> Result<PulledImage, String> {
    let top = puller.top_manifest().await.map_err(|e| e.to_string())?;
    if let Some(cached) = cache.and_then(|c| c.get(&top.digest)) {
        return Ok(PulledImage {
            digest: Some(top.digest),
            labels: cached.labels.clone(),
            layers: Vec::new(),
            cached: Some(cached),
        });
    }
    tokio::fs::create_dir_all(dir)
        .await
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    let image = puller
        .fetch_top(top, dir)
        .await
        .map_err(|e| e.to_string())?;
    Ok(PulledImage {
        digest: Some(image.digest),
        labels: image.labels,
        layers: image.layers,
        cached: None,
    })
}

/// Unpacks `root` of `image` (`/` for the whole image) into `target`.
pub fn unpack(
    reference: &str,
    image: &PulledImage,
    root: &str,
    target: &Path,
    options: &FetchOptions,
) -> Result<(), String> {
    std::fs::create_dir_all(target).map_err(|e| format!("{}: {e}", target.display()))?;
    unpack::unpack(reference, root, &image.layers, target, &options.limits)
        .map(|_| ())
        .map_err(|e| e.to_string())
}
