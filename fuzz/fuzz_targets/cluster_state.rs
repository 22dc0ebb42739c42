//! Cluster state (`--cluster-state`, `ExplainUpgrade`, `CheckClusterUpgrade`) read
//! with limits, then explained and checked against a small catalog. Holds: no
//! panic; the resolution deadline holds.
#![no_main]
use fbc_catalog::cluster::openshift::MinorVersion;
use fbc_catalog::cluster::state::ClusterState;
use fbc_catalog::cluster::{explain, inventory, upgrade};
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

fuzz_target!(|data: &[u8]| {
    let Ok(state) = ClusterState::read("state.yaml", data, &fbc_fuzz::LIMITS) else {
        return;
    };
    let tables = fbc_fuzz::catalog();
    let _ = explain::explain_state(
        tables,
        &state,
        Some(Instant::now() + Duration::from_secs(1)),
    );
    let (installed, _) = inventory::from_state(tables, &state);
    let _ = upgrade::check(
        tables,
        &installed,
        MinorVersion {
            major: 4,
            minor: 17,
        },
    );
});
