//! A GraphQL query through catalogd's caps before it may run. Holds: no panic,
//! time bounded (the caps are checked on the parsed document).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = fbc_fuzz::text(data) {
        fbc_registry::fuzzing::graphql_query(text);
    }
});
