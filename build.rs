//! Compiles the protos without a system `protoc`:
//!
//! 1. protox parses `registry.proto`, `fbc/v1/graph.proto` and `fbc/v1/catalogs.proto` (with the
//!    well-known types and `fbc/v1/{common,cluster}.proto` they import) into one descriptor set, written to
//!    `$OUT_DIR/registry_descriptor.bin` for server reflection;
//! 2. tonic-prost-build generates `api`'s messages and clients (`api.rs`), and
//!    `fbc.v1`'s messages, client and server (`fbc.v1.rs`);
//! 3. tonic-build's manual builder generates the server stubs of `api.Registry`
//!    and `api.ExperimentalRegistry`, one method per RPC the descriptor lists, whose
//!    replies are pre-encoded byte chunks (`crate::grpc::wire::Reply`) written
//!    straight to the wire by `crate::grpc::wire::ReplyCodec`.

use std::path::PathBuf;
use tonic_build::manual::{Method, Service};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/registry.proto");
    println!("cargo:rerun-if-changed=proto/fbc/v1/graph.proto");
    println!("cargo:rerun-if-changed=proto/fbc/v1/catalogs.proto");
    println!("cargo:rerun-if-changed=proto/fbc/v1/cluster.proto");
    println!("cargo:rerun-if-changed=proto/fbc/v1/common.proto");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    let compile = |files: &[&str]| -> Result<_, Box<dyn std::error::Error>> {
        Ok(protox::Compiler::new(["proto"])?
            .include_imports(true)
            .open_files(files)?
            .file_descriptor_set())
    };
    let all = compile(&[
        "registry.proto",
        "fbc/v1/graph.proto",
        "fbc/v1/catalogs.proto",
    ])?;
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
        .compile_fds(compile(&["fbc/v1/graph.proto", "fbc/v1/catalogs.proto"])?)?;

    // The `api` services' stubs, one method per RPC of the descriptor (so the
    // proto is the one list of methods), each replying with pre-encoded chunks.
    let registry_proto = all
        .file
        .iter()
        .find(|f| f.name() == "registry.proto")
        .ok_or("registry.proto is not in the descriptor set")?;
    let services: Vec<Service> = registry_proto
        .service
        .iter()
        .map(|service| {
            let methods = service.method.iter().map(|m| {
                let input = m.input_type().trim_start_matches(".api.");
                let b = Method::builder()
                    .name(snake_case(m.name()))
                    .route_name(m.name())
                    .input_type(format!("crate::api::{input}"))
                    .output_type("crate::grpc::wire::Reply")
                    .codec_path("crate::grpc::wire::ReplyCodec");
                if m.server_streaming() {
                    b.server_streaming().build()
                } else {
                    b.build()
                }
            });
            methods
                .fold(
                    Service::builder().name(service.name()).package("api"),
                    |builder, method| builder.method(method),
                )
                .build()
        })
        .collect();
    std::fs::create_dir_all(out_dir.join("server"))?;
    tonic_build::manual::Builder::new()
        .build_client(false)
        .out_dir(out_dir.join("server"))
        .compile(&services);
    Ok(())
}

/// `GetChannelEntriesThatReplace` → `get_channel_entries_that_replace`, as
/// tonic names a method's Rust function.
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}
