//! A resolution request (`fbc-registry resolve --request`, `fbc.v1.Graph/Resolve`)
//! parsed, then resolved against a small catalog with a deadline and a variable
//! cap. Holds: no panic, and the deadline holds.
#![no_main]
use fbc_catalog::resolve::{self, Limits, request};
use libfuzzer_sys::fuzz_target;
use std::time::{Duration, Instant};

fuzz_target!(|data: &[u8]| {
    let Some(text) = fbc_fuzz::text(data) else {
        return;
    };
    let Ok(req) = request::parse(text) else {
        return;
    };
    let limits = Limits {
        max_variables: 10_000,
        deadline: Some(Instant::now() + Duration::from_secs(1)),
    };
    let catalogs: Vec<_> = req.catalogs.iter().map(|_| fbc_fuzz::catalog()).collect();
    let _ = resolve::resolve(&catalogs, &req, &limits);
});
