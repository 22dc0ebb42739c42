//! Discovery: the [`Targets`] of each RPC, read from the server itself
//! (ListPackages, GetPackage of each package, one ListBundles).

use crate::args::Rpc;
use fbc_registry::api;
use fbc_registry::api::registry_client::RegistryClient;
use std::collections::BTreeSet;
use tonic::transport::Channel;

#[derive(Default)]
pub(crate) struct Targets {
    pub(crate) packages: Vec<api::GetPackageRequest>,
    pub(crate) heads: Vec<api::GetBundleInChannelRequest>,
    pub(crate) bundles: Vec<api::GetBundleRequest>,
    pub(crate) replaces: Vec<api::GetReplacementRequest>,
    pub(crate) provides: Vec<api::GetAllProvidersRequest>,
}

impl Targets {
    pub(crate) fn count(&self, rpc: Rpc) -> usize {
        match rpc {
            Rpc::GetPackage => self.packages.len(),
            Rpc::GetBundleForChannel => self.heads.len(),
            Rpc::GetBundle => self.bundles.len(),
            Rpc::GetBundleThatReplaces => self.replaces.len(),
            Rpc::GetChannelEntriesThatProvide => self.provides.len(),
            Rpc::ListBundles => 1,
        }
    }
}

pub(crate) async fn discover(client: &mut RegistryClient<Channel>) -> Result<Targets, String> {
    let mut t = Targets::default();
    let mut names = client
        .list_packages(api::ListPackageRequest {})
        .await
        .map_err(|s| format!("ListPackages: {s}"))?
        .into_inner();
    while let Some(p) = names
        .message()
        .await
        .map_err(|s| format!("ListPackages: {s}"))?
    {
        t.packages.push(api::GetPackageRequest { name: p.name });
    }
    for p in &t.packages {
        let package = client
            .get_package(p.clone())
            .await
            .map_err(|s| format!("GetPackage {:?}: {s}", p.name))?
            .into_inner();
        for ch in package.channels {
            t.heads.push(api::GetBundleInChannelRequest {
                pkg_name: p.name.clone(),
                channel_name: ch.name,
            });
        }
    }
    let mut bundles = client
        .list_bundles(api::ListBundlesRequest {})
        .await
        .map_err(|s| format!("ListBundles: {s}"))?
        .into_inner();
    let mut gvks = BTreeSet::new();
    while let Some(b) = bundles
        .message()
        .await
        .map_err(|s| format!("ListBundles: {s}"))?
    {
        if !b.replaces.is_empty() {
            t.replaces.push(api::GetReplacementRequest {
                csv_name: b.replaces,
                pkg_name: b.package_name.clone(),
                channel_name: b.channel_name.clone(),
            });
        }
        for g in b.provided_apis {
            gvks.insert((g.group, g.version, g.kind));
        }
        t.bundles.push(api::GetBundleRequest {
            pkg_name: b.package_name,
            channel_name: b.channel_name,
            csv_name: b.csv_name,
        });
    }
    t.provides = gvks
        .into_iter()
        .map(|(group, version, kind)| api::GetAllProvidersRequest {
            group,
            version,
            kind,
            plural: String::new(),
        })
        .collect();
    Ok(t)
}
