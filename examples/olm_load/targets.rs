//! Discovery: the targets of the point queries, from the server itself.

use fbc_registry::api;
use fbc_registry::api::registry_client::RegistryClient;
use tonic::transport::Channel;

// Targets of the point queries.

#[derive(Default)]
pub(crate) struct Targets {
    pub(crate) bundles: Vec<api::GetBundleRequest>,
    pub(crate) heads: Vec<api::GetBundleInChannelRequest>,
    pub(crate) replaces: Vec<api::GetReplacementRequest>,
    pub(crate) provides: Vec<api::GetDefaultProviderRequest>,
    pub(crate) dropped_replaces: usize,
    pub(crate) dropped_provides: usize,
    pub(crate) packages: usize,
}

pub(crate) async fn discover(
    client: &mut RegistryClient<Channel>,
    marker: Option<&str>,
) -> Result<Targets, String> {
    let mut t = Targets::default();
    let mut stream = client
        .list_bundles(api::ListBundlesRequest {})
        .await
        .map_err(|s| format!("ListBundles: {s}"))?
        .into_inner();
    let mut packages = Vec::new();
    let mut gvks = std::collections::BTreeSet::new();
    let mut replaces = Vec::new();
    while let Some(b) = stream
        .message()
        .await
        .map_err(|s| format!("ListBundles: {s}"))?
    {
        if Some(b.package_name.as_str()) == marker {
            continue;
        }
        if !packages.contains(&b.package_name) {
            packages.push(b.package_name.clone());
        }
        if !b.replaces.is_empty() {
            replaces.push(api::GetReplacementRequest {
                csv_name: b.replaces.clone(),
                pkg_name: b.package_name.clone(),
                channel_name: b.channel_name.clone(),
            });
        }
        for g in b.provided_apis {
            gvks.insert((g.group, g.version, g.kind, g.plural));
        }
        t.bundles.push(api::GetBundleRequest {
            pkg_name: b.package_name,
            channel_name: b.channel_name,
            csv_name: b.csv_name,
        });
    }
    t.packages = packages.len();
    for name in packages {
        let package = client
            .get_package(api::GetPackageRequest { name: name.clone() })
            .await
            .map_err(|s| format!("GetPackage {name:?}: {s}"))?
            .into_inner();
        for ch in package.channels {
            t.heads.push(api::GetBundleInChannelRequest {
                pkg_name: name.clone(),
                channel_name: ch.name,
            });
        }
    }
    for r in replaces {
        match client.get_bundle_that_replaces(r.clone()).await {
            Ok(_) => t.replaces.push(r),
            Err(_) => t.dropped_replaces += 1,
        }
    }
    for (group, version, kind, plural) in gvks {
        let r = api::GetDefaultProviderRequest {
            group,
            version,
            kind,
            plural,
        };
        match client.get_default_bundle_that_provides(r.clone()).await {
            Ok(_) => t.provides.push(r),
            Err(_) => t.dropped_provides += 1,
        }
    }
    if let Some(name) = marker {
        client
            .get_package(api::GetPackageRequest {
                name: name.to_owned(),
            })
            .await
            .map_err(|s| format!("--marker-package {name:?}: {s}"))?;
    }
    if t.bundles.is_empty() {
        return Err("the catalog lists no bundles".to_owned());
    }
    Ok(t)
}
