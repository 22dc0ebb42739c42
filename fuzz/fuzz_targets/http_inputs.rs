//! What an HTTP client controls besides the path: the query string, the `Range`
//! header and the conditional headers (the first byte chooses; for `Range`, the
//! next eight are the body's size). Holds: no panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 3 {
        0 => {
            if let Some(text) = fbc_fuzz::text(rest) {
                fbc_registry::fuzzing::http_query(text);
            }
        }
        1 => {
            if rest.len() >= 8 {
                let (size, header) = rest.split_at(8);
                let size = u64::from_le_bytes(size.try_into().unwrap_or_default());
                fbc_registry::fuzzing::range_header(header, size);
            }
        }
        _ => fbc_registry::fuzzing::conditional_headers(rest),
    }
});
