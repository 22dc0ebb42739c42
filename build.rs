//! Compiles the protos without a system `protoc`:
//!
//! 1. protox parses `registry.proto` and `fbc/v1/graph.proto` (with the
//!    well-known types they import) into one descriptor set, written to
//!    `$OUT_DIR/registry_descriptor.bin` for server reflection;
//! 2. tonic-prost-build generates `api`'s messages and clients (`api.rs`), and
//!    `fbc.v1`'s messages, client and server (`fbc.v1.rs`);
//! 3. tonic-build's manual builder generates `api.Registry`'s server stubs, whose
//!    replies are pre-encoded byte chunks (`crate::service::wire::Reply`) written
//!    straight to the wire by `crate::service::wire::ReplyCodec`.

use std::path::PathBuf;
use tonic_build::manual::{Method, Service};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/registry.proto");
    println!("cargo:rerun-if-changed=proto/fbc/v1/graph.proto");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let compile = |files: &[&str]| -> Result<_, Box<dyn std::error::Error>> {
        Ok(protox::Compiler::new(["proto"])?
            .include_imports(true)
            .open_files(files)?
            .file_descriptor_set())
    };
    let all = compile(&["registry.proto", "fbc/v1/graph.proto"])?;
    std::fs::write(
        out_dir.join("registry_descriptor.bin"),
        prost::Message::encode_to_vec(&all),
    )?;

    tonic_prost_build::configure()
        .build_server(false)
        .build_client(true)
        .compile_fds(compile(&["registry.proto"])?)?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds(compile(&["fbc/v1/graph.proto"])?)?;

    let method = |name: &str, route: &str, input: &str, streaming: bool| {
        let b = Method::builder()
            .name(name)
            .route_name(route)
            .input_type(format!("crate::api::{input}"))
            .output_type("crate::service::wire::Reply")
            .codec_path("crate::service::wire::ReplyCodec");
        if streaming {
            b.server_streaming().build()
        } else {
            b.build()
        }
    };
    let registry = Service::builder()
        .name("Registry")
        .package("api")
        .method(method(
            "list_packages",
            "ListPackages",
            "ListPackageRequest",
            true,
        ))
        .method(method(
            "get_package",
            "GetPackage",
            "GetPackageRequest",
            false,
        ))
        .method(method("get_bundle", "GetBundle", "GetBundleRequest", false))
        .method(method(
            "get_bundle_for_channel",
            "GetBundleForChannel",
            "GetBundleInChannelRequest",
            false,
        ))
        .method(method(
            "get_channel_entries_that_replace",
            "GetChannelEntriesThatReplace",
            "GetAllReplacementsRequest",
            true,
        ))
        .method(method(
            "get_bundle_that_replaces",
            "GetBundleThatReplaces",
            "GetReplacementRequest",
            false,
        ))
        .method(method(
            "get_channel_entries_that_provide",
            "GetChannelEntriesThatProvide",
            "GetAllProvidersRequest",
            true,
        ))
        .method(method(
            "get_latest_channel_entries_that_provide",
            "GetLatestChannelEntriesThatProvide",
            "GetLatestProvidersRequest",
            true,
        ))
        .method(method(
            "get_default_bundle_that_provides",
            "GetDefaultBundleThatProvides",
            "GetDefaultProviderRequest",
            false,
        ))
        .method(method(
            "list_bundles",
            "ListBundles",
            "ListBundlesRequest",
            true,
        ))
        .build();
    let experimental = Service::builder()
        .name("ExperimentalRegistry")
        .package("api")
        .method(method(
            "experimental_list_package_custom_schemas",
            "ExperimentalListPackageCustomSchemas",
            "ExperimentalListPackageCustomSchemasRequest",
            true,
        ))
        .build();
    std::fs::create_dir_all(out_dir.join("server"))?;
    tonic_build::manual::Builder::new()
        .build_client(false)
        .out_dir(out_dir.join("server"))
        .compile(&[registry, experimental]);
    Ok(())
}
