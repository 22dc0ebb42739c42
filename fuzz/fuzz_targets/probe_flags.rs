//! `grpc_health_probe`'s command line in Go's flag syntax (arguments split at NUL
//! bytes). Holds: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(text) = fbc_fuzz::text(data) else {
        return;
    };
    let args: Vec<String> = text.split('\0').map(str::to_owned).collect();
    fbc_registry::fuzzing::probe_flags(&args);
});
