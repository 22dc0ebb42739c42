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
use std::path::{Path, PathBuf};
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
    let mut registry = Vec::new();
    for (i, reference) in refs.iter().enumerate() {
        if out.contains_key(reference) || registry.iter().any(|(r, _, _)| r == reference) {
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
            Ok(CatalogSource::Registry(target)) => {
                // One client per registry: a sibling of an earlier puller of the same one.
                let made = registry
                    .iter()
                    .find_map(|(_, p, _): &(String, Puller, PathBuf)| p.sibling(&target))
                    .unwrap_or_else(|| {
                        Puller::new(
                            &target,
                            &options.registry,
                            options.limits,
                            options.platform.clone(),
                        )
                    });
                match made {
                    Ok(puller) => {
                        registry.push((reference.clone(), puller, scratch.join(i.to_string())))
                    }
                    Err(e) => {
                        out.insert(reference.clone(), Err(e.to_string()));
                    }
                }
            }
            Ok(CatalogSource::Directory(_)) => {
                out.insert(reference.clone(), Err("no such file or directory".into()));
            }
            Err(e) => {
                out.insert(reference.clone(), Err(e.to_string()));
            }
        }
    }
    if !registry.is_empty() {
        out.extend(pull_registry(registry, cache.cloned()));
    }
    out
}

fn pull_registry(
    jobs: Vec<(String, Puller, PathBuf)>,
    cache: Option<BundleCache>,
) -> Vec<(String, Result<PulledImage, String>)> {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            return jobs
                .into_iter()
                .map(|(r, _, _)| (r, Err(format!("starting the runtime for pulls: {e}"))))
                .collect();
        }
    };
    runtime.block_on(async move {
        let permits = Arc::new(tokio::sync::Semaphore::new(CONCURRENCY));
        let mut set = tokio::task::JoinSet::new();
        let count = jobs.len();
        for (index, (reference, puller, dir)) in jobs.into_iter().enumerate() {
            let permits = permits.clone();
            let cache = cache.clone();
            set.spawn(async move {
                let _permit = permits.acquire_owned().await;
                (
                    index,
                    reference,
                    pull_one(&puller, &dir, cache.as_ref()).await,
                )
            });
        }
        let mut done: Vec<Option<(String, Result<PulledImage, String>)>> = vec![None; count];
        while let Some(joined) = set.join_next().await {
            if let Ok((index, reference, result)) = joined {
                done[index] = Some((reference, result));
            }
        }
        done.into_iter().flatten().collect()
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
