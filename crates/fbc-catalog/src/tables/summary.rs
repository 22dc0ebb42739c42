//! A canonical text rendering of [`Tables`], to compare two tables (a cold load
//! and the same catalog read back from a cache) or pin them in a test.
//!
//! In: tables. Out: one line per row, in table order, with every field and a hash
//! of every byte string.

use super::{BundleRef, ChannelRef, Tables};
use std::fmt::Write;

fn hash(bytes: &[u8]) -> String {
    format!("{:016x}/{}", xxhash_rust::xxh3::xxh3_64(bytes), bytes.len())
}

/// Every row and derived index of `t`, one per line.
// Long by nature: one line format per table, in table order.
pub fn summary(t: &Tables) -> String {
    let mut out = String::new();
    for (pi, p) in t.packages().iter().enumerate() {
        let icon = p.icon.as_ref().map(|i| (hash(&i.data), &i.media_type));
        let _ = writeln!(
            out,
            "package {} default={} desc={} icon={icon:?} dep={:?} at {}",
            p.name,
            p.default_channel,
            hash(p.description.as_bytes()),
            p.deprecation,
            p.origin
        );
        for (ci, c) in p.channels.iter().enumerate() {
            let chain = t.chain(ChannelRef {
                package: pi as u32,
                channel: ci as u32,
            });
            let _ = writeln!(
                out,
                "  channel {} head={} chain={chain:?} dep={:?} at {} entries={:?}",
                c.name, c.head, c.deprecation, c.origin, c.entries
            );
        }
        for (bi, b) in p.bundles.iter().enumerate() {
            let r = BundleRef {
                package: pi as u32,
                bundle: bi as u32,
            };
            let objects: Vec<String> = b.objects.iter().map(|o| hash(o)).collect();
            let csv: Vec<String> = b
                .csv_pieces
                .iter()
                .map(|c| {
                    let (h, d, m, tail) = c.parts();
                    format!(
                        "{}+{:?}+{}+{}",
                        hash(h),
                        d.map(|d| hash(d)),
                        hash(m),
                        hash(tail)
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "  bundle {}/{} image={} version={} release={:?} dep={:?} at {} related={:?} objects={objects:?} csv_object={:?} csv={csv:?}",
                b.package,
                b.name,
                b.image,
                b.version_text,
                b.release,
                b.deprecation,
                b.origin,
                b.related_images,
                b.csv_object
            );
            for prop in &b.properties {
                let _ = writeln!(
                    out,
                    "    property {} {} {:?}",
                    prop.typ, prop.value_json, prop.parsed
                );
            }
            let _ = writeln!(out, "    requirements {:?}", t.requirements(r));
        }
    }
    for (gvk, providers) in t.all_providers() {
        let _ = writeln!(out, "provider {gvk:?} {providers:?}");
    }
    for c in t.custom() {
        let _ = writeln!(out, "custom {} {} {}", c.schema, c.package, hash(&c.json));
    }
    for m in t.metas().rows() {
        let _ = writeln!(
            out,
            "meta {} {} {} at {}",
            m.schema, m.package, m.name, m.origin
        );
    }
    out
}
