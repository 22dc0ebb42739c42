//! Built images → a registry reference.
//!
//! In: a [`RegistryRef`] (its tag names the result), [`RegistryOptions`], and
//! [`BuiltImage`]s from `fbc_image::build` (one, or one per platform). Out: every layer,
//! config and manifest uploaded (blobs by digest, manifests by digest, the top one — the
//! image's manifest, or an index of several — under the tag), and the digest the tag now
//! names; or the first error, naming the blob or manifest. Credentials come from the
//! auth file as for pulls; a loopback or `--insecure-registry` registry is spoken to over
//! plain HTTP.

use crate::connect::{self, RegistryOptions};
use crate::error::{PullError, PullErrorKind};
use fbc_image::Digest;
use fbc_image::build::{BuiltImage, index, media};
use fbc_image::reference::RegistryRef;
use oci_client::Reference;
use oci_client::RegistryOperation;
use oci_client::secrets::RegistryAuth;

/// Pushes `images` to `target`; returns the digest its tag names.
pub async fn push(
    target: &RegistryRef,
    options: &RegistryOptions,
    images: &[BuiltImage],
) -> Result<Digest, PullError> {
    let shown = target.to_string();
    let fail = |kind: PullErrorKind| PullError {
        image: shown.clone(),
        kind,
    };
    let prepared = connect::prepare(options, &target.registry, &target.repository).map_err(fail)?;
    let clients = prepared.clients();
    let client = clients.plain.as_ref().unwrap_or(&clients.https);
    let tag = target.tag.clone().unwrap_or_else(|| "latest".to_owned());
    let base = Reference::with_tag(
        target.registry.clone(),
        target.repository.clone(),
        tag.clone(),
    );
    let from_oci = |what: &str, e| fail(PullErrorKind::from_oci(what, &target.registry, e));
    let auth: &RegistryAuth = &prepared.auth;
    client
        .auth(&base, auth, RegistryOperation::Push)
        .await
        .map_err(|e| from_oci("push authentication", e))?;
    for image in images {
        for blob in image.layers.iter().chain(std::iter::once(&image.config)) {
            let what = format!("blob {}", blob.digest);
            client
                .push_blob(&base, blob.data.clone(), &blob.digest.to_string())
                .await
                .map_err(|e| from_oci(&what, e))?;
        }
    }
    let manifest_type = media::MANIFEST.parse().map_err(|_| {
        fail(PullErrorKind::Registry {
            what: "media type".into(),
            reason: media::MANIFEST.into(),
        })
    })?;
    let top = match images {
        [one] => {
            client
                .push_manifest_raw(&base, one.manifest.data.clone(), manifest_type)
                .await
                .map_err(|e| from_oci(&format!("manifest {}", one.manifest.digest), e))?;
            one.manifest.digest.clone()
        }
        _ => {
            for image in images {
                let at = base.clone_with_digest(image.manifest.digest.to_string());
                client
                    .push_manifest_raw(&at, image.manifest.data.clone(), manifest_type.clone())
                    .await
                    .map_err(|e| from_oci(&format!("manifest {}", image.manifest.digest), e))?;
            }
            let index = index(images).map_err(|reason| {
                fail(PullErrorKind::Registry {
                    what: "index".into(),
                    reason,
                })
            })?;
            let index_type = media::INDEX.parse().map_err(|_| {
                fail(PullErrorKind::Registry {
                    what: "media type".into(),
                    reason: media::INDEX.into(),
                })
            })?;
            client
                .push_manifest_raw(&base, index.data.clone(), index_type)
                .await
                .map_err(|e| from_oci(&format!("index {}", index.digest), e))?;
            index.digest
        }
    };
    Ok(top)
}
