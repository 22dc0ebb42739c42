//! One call of an RPC on one of its targets, returning the reply's payload size
//! (a streaming reply is drained).

use crate::args::Rpc;
use crate::targets::Targets;
use fbc_registry::api;
use fbc_registry::api::registry_client::RegistryClient;
use prost::Message;
use tonic::transport::Channel;

/// Payload bytes of a drained stream.
async fn drain<M: Message + Default>(mut s: tonic::Streaming<M>) -> Result<u64, tonic::Status> {
    let mut bytes = 0;
    while let Some(m) = s.message().await? {
        bytes += m.encoded_len() as u64;
    }
    Ok(bytes)
}

fn pick<T: Clone>(v: &[T], i: usize) -> T {
    v[i % v.len()].clone()
}

/// One call of `rpc` on target `i`; returns the reply payload size.
pub(crate) async fn call(
    client: &mut RegistryClient<Channel>,
    rpc: Rpc,
    t: &Targets,
    i: usize,
) -> Result<u64, tonic::Status> {
    Ok(match rpc {
        Rpc::GetPackage => {
            let r = client.get_package(pick(&t.packages, i)).await?;
            r.get_ref().encoded_len() as u64
        }
        Rpc::GetBundleForChannel => {
            let r = client.get_bundle_for_channel(pick(&t.heads, i)).await?;
            r.get_ref().encoded_len() as u64
        }
        Rpc::GetBundle => {
            let r = client.get_bundle(pick(&t.bundles, i)).await?;
            r.get_ref().encoded_len() as u64
        }
        Rpc::GetBundleThatReplaces => {
            let r = client
                .get_bundle_that_replaces(pick(&t.replaces, i))
                .await?;
            r.get_ref().encoded_len() as u64
        }
        Rpc::GetChannelEntriesThatProvide => {
            let r = client
                .get_channel_entries_that_provide(pick(&t.provides, i))
                .await?;
            drain(r.into_inner()).await?
        }
        Rpc::ListBundles => {
            let r = client.list_bundles(api::ListBundlesRequest {}).await?;
            drain(r.into_inner()).await?
        }
    })
}
