//! Values as people write them, in flags and in the `--config` file alike.
//!
//! In: text (`250ms`, `1h30m`, `64MiB`). Out: durations and byte counts, or a message
//! that says what was wrong and how to write it.

/// Parses a duration as people write them: `250ms`, `1.5s`, `2m`, `1h30m`
/// (humantime's grammar). A bare number is milliseconds, as earlier releases read it.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s
            .parse()
            .map(std::time::Duration::from_millis)
            .map_err(|e| format!("invalid duration {s:?}: {e}"));
    }
    humantime::parse_duration(s)
        .map_err(|e| format!("invalid duration {s:?}: {e} (write e.g. 250ms, 1.5s, 2m)"))
}

/// Parses a size such as `512MiB`, `64 MB` or `1048576` (bytes).
pub fn parse_size(s: &str) -> Result<u64, String> {
    s.trim()
        .parse::<bytesize::ByteSize>()
        .map(|b| b.as_u64())
        .map_err(|e| format!("invalid size {s:?}: {e} (write e.g. 64MiB, 1GB)"))
}
