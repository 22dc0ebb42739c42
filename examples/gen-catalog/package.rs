//! One package: its versions, channels and dependency drawn from its own stream,
//! then its `olm.package`, `olm.channel` and `olm.bundle` documents written to its
//! catalog file.

use crate::args::Format;
use crate::bundle::bundle_doc;
use crate::channel::{check_channel, make_channel};
use crate::doc::{V, json_pretty, s, yaml_map};
use crate::plan::{CHANNEL_NAMES, Cfg, Pkg, pkg_group, pkg_kinds, pkg_name};
use crate::rng::{Rng, S_FORMAT, S_PACKAGE};
use crate::text::filler;
use base64::Engine as _;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write as _};

fn svg_icon(rng: &mut Rng, label: &str) -> String {
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\"><rect width=\"32\" \
         height=\"32\" rx=\"6\" fill=\"#{:06x}\"/><text x=\"16\" y=\"21\" font-size=\"11\" \
         text-anchor=\"middle\" fill=\"#fff\">{label}</text></svg>",
        rng.next_u64() & 0xff_ffff
    );
    base64::engine::general_purpose::STANDARD.encode(svg)
}

#[derive(Default, Clone, Copy)]
pub(crate) struct Stats {
    pub(crate) packages: usize,
    pub(crate) channels: usize,
    pub(crate) bundles: usize,
    pub(crate) entries: usize,
    pub(crate) bytes: u64,
}

impl Stats {
    pub(crate) fn add(&mut self, o: Stats) {
        self.packages += o.packages;
        self.channels += o.channels;
        self.bundles += o.bundles;
        self.entries += o.entries;
        self.bytes += o.bytes;
    }
}

/// Builds and writes one package; `buf` is a reusable document buffer.
pub(crate) fn gen_package(cfg: &Cfg, i: usize, buf: &mut String) -> io::Result<Stats> {
    let mut rng = Rng::mix(&[cfg.seed, S_PACKAGE, i as u64]);
    let json = match cfg.format {
        Format::Yaml => false,
        Format::Json => true,
        Format::Mixed => Rng::mix(&[cfg.seed, S_FORMAT, i as u64]).chance(50),
    };
    let name = pkg_name(i);
    let m = cfg.bundles;

    // Versions, strictly increasing.
    let mut v = (rng.below(3) as u64, rng.below(6) as u64, 0u64);
    let mut versions = Vec::with_capacity(m);
    for k in 0..m {
        if k > 0 {
            let r = rng.below(100);
            if r < 60 {
                v.2 += 1;
            } else if r < 92 {
                v = (v.0, v.1 + 1, 0);
            } else {
                v = (v.0 + 1, 0, 0);
            }
        }
        versions.push(v);
    }
    let bnames: Vec<String> = versions
        .iter()
        .map(|(x, y, z)| format!("{name}.v{x}.{y}.{z}"))
        .collect();

    // Channels; together they cover every bundle.
    let k = match rng.below(100) {
        0..35 => 1,
        35..65 => 2,
        65..85 => 3,
        _ => 4,
    };
    let mut channels = Vec::with_capacity(k);
    let lag = if k >= 2 { rng.below(3).min(m - 1) } else { 0 };
    let stable_end = m - lag;
    let stable_start = if k >= 3 {
        rng.below(stable_end / 2 + 1)
    } else {
        0
    };
    channels.push(make_channel(
        &mut rng,
        CHANNEL_NAMES[0],
        stable_start,
        stable_end,
        &bnames,
        &versions,
    ));
    if k >= 2 {
        let hi = if k >= 3 { m - 1 } else { stable_end.min(m - 1) };
        let fast_start = rng.range(0, hi);
        channels.push(make_channel(
            &mut rng,
            CHANNEL_NAMES[1],
            fast_start,
            m,
            &bnames,
            &versions,
        ));
    }
    if k >= 3 {
        channels.push(make_channel(
            &mut rng,
            CHANNEL_NAMES[2],
            0,
            m,
            &bnames,
            &versions,
        ));
    }
    if k >= 4 {
        let start = rng.range(m / 2, m - 1);
        channels.push(make_channel(
            &mut rng,
            CHANNEL_NAMES[3],
            start,
            m,
            &bnames,
            &versions,
        ));
    }
    for ch in &channels {
        if let Err(e) = check_channel(ch, &bnames) {
            panic!("generator bug: {name} channel {}: {e}", ch.name);
        }
    }
    let default_channel = if k >= 2 && rng.chance(15) {
        "fast"
    } else {
        "stable"
    };

    let group = pkg_group(i);
    let dep = if cfg.packages > 1 && rng.chance(35) {
        let mut j = 1 + rng.below(cfg.packages - 1);
        if j >= i {
            j += 1;
        }
        let kind = pkg_kinds(cfg.seed, j)[0];
        let range = *rng.pick(&[">=0.1.0", ">=1.0.0 <3.0.0", ">=0.5.0 <2.0.0", "<4.0.0"]);
        Some((pkg_name(j), pkg_group(j), kind, rng.below(m), range))
    } else {
        None
    };
    let pkg = Pkg {
        display: format!("Pkg {i:04} Operator"),
        kinds: pkg_kinds(cfg.seed, i),
        shared: rng.chance(30),
        objects: cfg.object_bytes > 0 && rng.chance(50),
        max_ocp: rng.chance(15),
        maturity: ["alpha", "beta", "stable"][rng.below(3)],
        dep,
        group,
        name,
    };

    let dir = cfg.out.join(&pkg.name);
    fs::create_dir_all(&dir)?;
    let (file, other) = if json {
        ("catalog.json", "catalog.yaml")
    } else {
        ("catalog.yaml", "catalog.json")
    };
    // A previous run (--force) may have written this package in the other format.
    match fs::remove_file(dir.join(other)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let path = dir.join(file);
    let mut out = Out {
        w: BufWriter::with_capacity(1 << 20, File::create(&path)?),
        json,
        bytes: 0,
    };
    // olm.package
    let mut doc = vec![
        ("schema", s("olm.package")),
        ("name", s(pkg.name.as_str())),
        ("defaultChannel", s(default_channel)),
    ];
    if rng.chance(50) {
        doc.push((
            "icon",
            V::O(vec![
                ("base64data", s(svg_icon(&mut rng, &format!("{i:04}")))),
                ("mediatype", s("image/svg+xml")),
            ]),
        ));
    }
    if rng.chance(85) {
        let n = if cfg.object_bytes > 0 { 1200 } else { 200 };
        let text = filler(&cfg.corpus, &mut rng, n);
        doc.push((
            "description",
            s(format!(
                "## {}\n\n{} manages {}.\n\n{text}",
                pkg.display,
                pkg.name,
                pkg.kinds.join(", ")
            )),
        ));
    }
    out.emit(&V::O(doc), buf)?;

    // olm.channel, by name.
    channels.sort_by_key(|c| c.name);
    for ch in &channels {
        let entries = ch
            .entries
            .iter()
            .map(|e| {
                let mut o = vec![("name", s(bnames[e.bundle].as_str()))];
                if let Some(r) = &e.replaces {
                    o.push(("replaces", s(r.as_str())));
                }
                if !e.skips.is_empty() {
                    o.push((
                        "skips",
                        V::A(e.skips.iter().map(|x| s(x.as_str())).collect()),
                    ));
                }
                if let Some(r) = &e.skip_range {
                    o.push(("skipRange", s(r.as_str())));
                }
                V::O(o)
            })
            .collect();
        out.emit(
            &V::O(vec![
                ("schema", s("olm.channel")),
                ("package", s(pkg.name.as_str())),
                ("name", s(ch.name)),
                ("entries", V::A(entries)),
            ]),
            buf,
        )?;
    }

    // olm.bundle
    for b in 0..m {
        let doc = bundle_doc(cfg, &pkg, b, &bnames[b], versions[b], &mut rng);
        out.emit(&doc, buf)?;
    }
    out.w.flush()?;
    Ok(Stats {
        packages: 1,
        channels: channels.len(),
        bundles: m,
        entries: channels.iter().map(|c| c.entries.len()).sum(),
        bytes: out.bytes,
    })
}

/// One package's catalog file.
struct Out {
    w: BufWriter<File>,
    json: bool,
    bytes: u64,
}

impl Out {
    /// Writes one document (`buf` is scratch space).
    fn emit(&mut self, doc: &V, buf: &mut String) -> io::Result<()> {
        buf.clear();
        if self.json {
            json_pretty(doc, buf, 0);
            buf.push('\n');
        } else {
            buf.push_str("---\n");
            let V::O(kv) = doc else {
                unreachable!("documents are objects")
            };
            yaml_map(kv, buf, 0, false);
        }
        self.bytes += buf.len() as u64;
        self.w.write_all(buf.as_bytes())
    }
}
