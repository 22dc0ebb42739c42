//! `serve --config FILE` and `serve --catalog NAME=SOURCE`: several catalogs in one process.
//!
//! In: `serve`'s flags. Out: [`crate::app::catalogs`] running until SIGTERM; exit 1 only
//! when the flags or the config file cannot be used or a server-wide listener cannot be
//! bound — a catalog that does not load is reported and retried, never fatal. With
//! `--cache-only`, every catalog is loaded once and its cache written, then exit (1 if
//! any catalog failed).

use super::{ServeArgs, fatal, shutdown_signal};
use crate::app::Listen;
use crate::app::catalogs::{self, CatalogDefaults, ManyConfig};
use std::path::PathBuf;
use std::process::ExitCode;

/// Serves every catalog the flags and the config file name.
pub(super) fn serve(args: &ServeArgs) -> ExitCode {
    if args.catalog_name.is_some() {
        return fatal(
            args,
            "--catalog-name names the one catalog of `serve DIR`; with --config or --catalog each catalog has its own name",
        );
    }
    if args.enforce_integrity() && args.cache_dir.is_empty() {
        return fatal(
            args,
            "--cache-dir must be specified with --cache-enforce-integrity",
        );
    }
    let config = many_config(args);
    let specs = match catalogs::read_specs(&config, &catalogs::taken_ports(&config)) {
        Ok(specs) => specs,
        Err(e) => return fatal(args, &e.to_string()),
    };
    if specs.is_empty() {
        tracing::warn!("no catalogs to serve yet; the config file is watched");
    }
    if args.cache_only {
        // Loads every catalog, writes each cache, and exits: 1 if any failed.
        return super::run_server(args, async {
            catalogs::build_caches(&specs, &config.defaults).await?;
            tracing::info!("--cache-only: done, exiting");
            Ok(())
        });
    }
    super::run_server(args, async {
        let handle = catalogs::serve_many(config, specs)
            .await
            .map_err(|e| e.to_string())?;
        handle.run_until(shutdown_signal()).await
    })
}

/// The server-wide settings and each catalog's defaults, from `serve`'s flags.
fn many_config(args: &ServeArgs) -> ManyConfig {
    ManyConfig {
        listen: args.port.map(Listen::AllInterfaces),
        transport: args.transport.limits(),
        http: args.http_addr.clone().zip(args.http_settings("")),
        metrics: args.metrics_addr.clone(),
        metrics_tls: args.metrics_tls,
        tls: args.tls_files(),
        defaults: CatalogDefaults {
            load: args.limits.load_options(),
            spill: args.memory.spill(),
            load_timeout: args.limits.load_timeout,
            fetch: args.limits.fetch_options(None),
            cache_dir: (!args.cache_dir.is_empty()).then(|| PathBuf::from(&args.cache_dir)),
            enforce_integrity: args.enforce_integrity(),
            watch: args.watch,
            reload_debounce: args.reload_debounce,
            poll_interval: args.poll_interval,
        },
        flagged: args.catalogs.clone(),
        file: args.config.clone(),
    }
}
