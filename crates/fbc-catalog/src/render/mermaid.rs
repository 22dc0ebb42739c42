//! A config's channels → the Mermaid graph `opm alpha render-template -o mermaid` draws.
//!
//! In: a [`DeclarativeConfig`]. Out: opm's `MermaidWriter.WriteChannels` text (no
//! minimum edge, no package filter): `graph LR`, one subgraph per package (by name) and
//! per channel (by name), a node per entry and an edge per `replaces`, `skips` and entry
//! in the `skipRange`. Names are quoted as Go's `%q` quotes them. An entry whose version
//! is below 0.0.0 (a prerelease of 0.0.0) is left out, as opm leaves it out.

use super::declcfg::DeclarativeConfig;
use crate::version_range::blang;
use semver::Version;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Draws `config`'s channels.
pub fn channels(config: &DeclarativeConfig) -> String {
    let mut versions: BTreeMap<&str, Version> = BTreeMap::new();
    for bundle in &config.bundles {
        let version = bundle
            .package_version()
            .and_then(|v| Version::parse(&v).ok())
            .unwrap_or_else(|| Version::new(0, 0, 0));
        versions.entry(&bundle.name).or_insert(version);
    }
    let floor = Version::new(0, 0, 0);
    let version_of = |name: &str| versions.get(name).cloned().unwrap_or_else(|| floor.clone());
    let mut channels: Vec<_> = config.channels.iter().collect();
    super::go_sort::slice(&mut channels, |a, b| a.name < b.name);
    let mut packages: BTreeMap<&str, String> = BTreeMap::new();
    for c in channels {
        let entries = c.entries.as_deref().unwrap_or_default();
        if entries.is_empty() {
            continue;
        }
        let out = packages.entry(&c.package).or_default();
        let channel_id = format!("{}-{}", c.package, c.name);
        let _ = writeln!(out, "    %% channel {}", quote(&c.name));
        let _ = writeln!(out, "    subgraph {channel_id}[{}]", quote(&c.name));
        for e in entries {
            if version_of(&e.name).cmp_precedence(&floor).is_lt() {
                continue;
            }
            let entry_id = format!("{channel_id}-{}", e.name);
            let _ = writeln!(out, "      {entry_id}[{}]", quote(&e.name));
            if !e.replaces.is_empty() {
                let _ = writeln!(
                    out,
                    "      {channel_id}-{}[{}]-- replace --> {entry_id}[{}]",
                    e.replaces,
                    quote(&e.replaces),
                    quote(&e.name)
                );
            }
            for s in &e.skips {
                let _ = writeln!(
                    out,
                    "      {channel_id}-{s}[{}]-- skip --> {entry_id}[{}]",
                    quote(s),
                    quote(&e.name)
                );
            }
            if !e.skip_range.is_empty() {
                match blang::parse(&e.skip_range) {
                    Ok(range) => {
                        for other in entries {
                            if range.matches(&version_of(&other.name)) {
                                let _ = writeln!(
                                    out,
                                    "      {channel_id}-{}[{}]-- \"skipRange({})\" --> {entry_id}[{}]",
                                    other.name,
                                    quote(&other.name),
                                    e.skip_range,
                                    quote(&e.name)
                                );
                            }
                        }
                    }
                    Err(err) => eprintln!(
                        "warning: ignoring invalid SkipRange for package/edge {:?}/{:?}: {err}",
                        c.package, e.name
                    ),
                }
            }
        }
        out.push_str("    end\n");
    }
    let mut text = String::from("graph LR\n");
    for (name, body) in packages {
        let _ = writeln!(text, "  %% package {}", quote(name));
        let _ = writeln!(text, "  subgraph {}", quote(name));
        text.push_str(&body);
        text.push_str("  end\n");
    }
    text
}

/// Go's `%q` of a string: double quotes, `\"`, `\\`, and escapes for what is not printable.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
