//! Writes a synthetic, valid file-based catalog (FBC) of realistic shape, for load
//! tests and benchmarks:
//!
//! ```sh
//! cargo run --release --example gen-catalog -- \
//!     --packages 200 --bundles-per-package 50 --object-bytes 50000 /tmp/big-catalog
//! target/release/fbc-registry validate /tmp/big-catalog
//! ```
//!
//! Each package `pkg-NNNN` gets its own directory with one `catalog.yaml` (YAML
//! documents, keys sorted as `opm render` writes them) or `catalog.json` (a stream of
//! pretty-printed JSON objects), holding:
//!
//! - an `olm.package` blob (default channel, description, a small SVG icon on some);
//! - 1–4 channels (`stable`, `fast`, `candidate`, `stable-v2`), each a contiguous run of
//!   the package's bundles, ordered by version, forming a valid upgrade graph: a
//!   `replaces` chain; sometimes `skips` of the entry before the previous one (third
//!   entry only), a "pulled" bundle (entry `i` replaces `i-2` and skips `i-1`), a tail
//!   that replaces/skips bundles outside the channel, and blang `skipRange`s;
//! - `M` bundles `pkg-NNNN.vX.Y.Z` with increasing versions, 1–3 provided kinds in group
//!   `pkgNNNN.example.com` (and `shared.example.com/v1 Common` on some packages), some
//!   with `olm.gvk.required` / `olm.package.required` on another package, 2–5 related
//!   images, some pinned by `@sha256:` digest.
//!
//! With `--object-bytes B > 0`, about half the packages carry their CSV as
//! `olm.bundle.object` properties (a CRD and a ClusterServiceVersion of about `B` bytes,
//! base64 of compact JSON) and the others as `olm.csv.metadata` with a description of
//! about `B/2` bytes; YAML output writes some `createdAt` annotations as unquoted YAML
//! timestamps. With `B = 0` every bundle has a small `olm.csv.metadata`.
//!
//! Output depends only on the arguments (`--seed`, default 1), not on thread
//! scheduling: every package draws from its own splitmix64 stream. `--format` only
//! changes the syntax of each file, not its content. A one-line summary goes to stderr.

use base64::Engine as _;
use clap::{Parser, ValueEnum};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Syntax of the generated files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Every package in `catalog.yaml`.
    Yaml,
    /// Every package in `catalog.json`.
    Json,
    /// About half of each, chosen per package.
    Mixed,
}

/// Generate a synthetic, valid OLM file-based catalog.
#[derive(Debug, Parser)]
#[command(name = "gen-catalog")]
struct Args {
    /// Number of packages (`pkg-0001` …).
    #[arg(long)]
    packages: usize,
    /// Bundles per package.
    #[arg(long)]
    bundles_per_package: usize,
    /// Approximate size of each bundle's CSV payload in bytes (0: small csv metadata only).
    #[arg(long, default_value_t = 0)]
    object_bytes: usize,
    /// Seed of the pseudo-random generator.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Syntax of the files.
    #[arg(long, value_enum, default_value_t = Format::Mixed)]
    format: Format,
    /// Write into OUT even if it is not empty: each package's catalog file is replaced,
    /// other files (e.g. packages of a larger earlier run) are left alone.
    #[arg(long)]
    force: bool,
    /// Output directory, created if missing.
    out: PathBuf,
}

// ---------------------------------------------------------------------------------
// Pseudo-random numbers: splitmix64.

struct Rng(u64);

impl Rng {
    /// A stream derived from several words (seed, stream id, index…).
    fn mix(parts: &[u64]) -> Rng {
        let mut r = Rng(0x243F_6A88_85A3_08D3);
        for p in parts {
            r.0 ^= *p;
            r.0 = r.next_u64();
        }
        r
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    /// `n` lowercase hex digits.
    fn hex(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n + 16);
        while s.len() < n {
            let _ = write!(s, "{:016x}", self.next_u64());
        }
        s.truncate(n);
        s
    }
}

// Stream ids for `Rng::mix`.
const S_PACKAGE: u64 = 1;
const S_KINDS: u64 = 2;
const S_FORMAT: u64 = 3;
const S_CORPUS: u64 = 4;

// ---------------------------------------------------------------------------------
// A tiny document tree, written as YAML or JSON without serde.

enum V<'a> {
    S(Cow<'a, str>),
    /// A timestamp: an unquoted YAML 1.1 timestamp, a string with `Z` in JSON.
    Ts(String),
    B(bool),
    I(i64),
    O(Vec<(&'a str, V<'a>)>),
    A(Vec<V<'a>>),
}

fn s<'a>(x: impl Into<Cow<'a, str>>) -> V<'a> {
    V::S(x.into())
}

fn sorted<'b, 'a>(kv: &'b [(&'a str, V<'a>)]) -> Vec<&'b (&'a str, V<'a>)> {
    let mut v: Vec<_> = kv.iter().collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, &c) in s.as_bytes().iter().enumerate() {
        let esc = match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{c:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

fn json_scalar(v: &V, out: &mut String) {
    match v {
        V::S(x) => json_str(out, x),
        V::Ts(t) => {
            out.push('"');
            out.push_str(t);
            out.push_str("Z\"");
        }
        V::B(b) => out.push_str(if *b { "true" } else { "false" }),
        V::I(n) => {
            let _ = write!(out, "{n}");
        }
        V::O(_) | V::A(_) => unreachable!("not a scalar"),
    }
}

/// Compact JSON with keys sorted, as Kubernetes manifests embedded in bundles are.
fn json_compact(v: &V, out: &mut String) {
    match v {
        V::O(kv) => {
            out.push('{');
            for (n, (k, v)) in sorted(kv).into_iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                json_str(out, k);
                out.push(':');
                json_compact(v, out);
            }
            out.push('}');
        }
        V::A(items) => {
            out.push('[');
            for (n, v) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                }
                json_compact(v, out);
            }
            out.push(']');
        }
        _ => json_scalar(v, out),
    }
}

fn pad(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

/// Pretty JSON, 4-space indent, keys in construction order (as `opm render -o json`).
fn json_pretty(v: &V, out: &mut String, ind: usize) {
    match v {
        V::O(kv) if !kv.is_empty() => {
            out.push_str("{\n");
            for (n, (k, v)) in kv.iter().enumerate() {
                pad(out, ind + 4);
                json_str(out, k);
                out.push_str(": ");
                json_pretty(v, out, ind + 4);
                out.push_str(if n + 1 < kv.len() { ",\n" } else { "\n" });
            }
            pad(out, ind);
            out.push('}');
        }
        V::A(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (n, v) in items.iter().enumerate() {
                pad(out, ind + 4);
                json_pretty(v, out, ind + 4);
                out.push_str(if n + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, ind);
            out.push(']');
        }
        V::O(_) => out.push_str("{}"),
        V::A(_) => out.push_str("[]"),
        _ => json_scalar(v, out),
    }
}

/// Whether `s` can be written as a plain YAML scalar and read back as the same string
/// (conservative: anything doubtful is quoted).
fn yaml_plain_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if !(first.is_ascii_alphanumeric() || first == b'/') || s.ends_with([' ', ':']) {
        return false;
    }
    if s.contains(": ") || s.contains(" #") {
        return false;
    }
    let ok_chars = s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || " ._/:@+=-()',;".contains(c)
            || (!c.is_ascii() && c.is_alphabetic())
    });
    if !ok_chars {
        return false;
    }
    const RESERVED: &[&str] = &["y", "n", "yes", "no", "on", "off", "true", "false", "null"];
    if RESERVED.iter().any(|r| s.eq_ignore_ascii_case(r)) {
        return false;
    }
    if first.is_ascii_digit() {
        // Only dotted versions with at least two dots (`1.2.3`) are unambiguous strings.
        let dots = b.iter().filter(|c| **c == b'.').count();
        return dots >= 2 && b.iter().all(|c| c.is_ascii_digit() || *c == b'.');
    }
    true
}

/// Whether `s` can be written as a YAML literal block scalar.
fn yaml_block_ok(s: &str) -> bool {
    !s.starts_with([' ', '\n'])
        && s.chars().all(|c| {
            c == '\n'
                || (c >= ' '
                    && c != '\u{7f}'
                    && !('\u{80}'..='\u{9f}').contains(&c)
                    && c != '\u{feff}')
        })
        && s.split('\n').all(|l| l.is_empty() || !l.trim().is_empty())
}

/// Writes a scalar and its line break; block content is indented by `ind`.
fn yaml_scalar(v: &V, out: &mut String, ind: usize) {
    match v {
        V::S(x) if x.contains('\n') && yaml_block_ok(x) => {
            let body = x.trim_end_matches('\n');
            let trailing = x.len() - body.len();
            out.push_str(match trailing {
                0 => "|-\n",
                1 => "|\n",
                _ => "|+\n",
            });
            for line in body.split('\n') {
                if !line.is_empty() {
                    pad(out, ind);
                    out.push_str(line);
                }
                out.push('\n');
            }
            for _ in 1..trailing {
                out.push('\n');
            }
            return;
        }
        V::S(x) if yaml_plain_ok(x) => out.push_str(x),
        V::Ts(t) => out.push_str(t),
        _ => json_scalar(v, out),
    }
    out.push('\n');
}

fn yaml_map(kv: &[(&str, V)], out: &mut String, ind: usize, inline_first: bool) {
    for (n, (k, v)) in sorted(kv).into_iter().enumerate() {
        if n > 0 || !inline_first {
            pad(out, ind);
        }
        if yaml_plain_ok(k) {
            out.push_str(k);
        } else {
            json_str(out, k);
        }
        out.push(':');
        match v {
            V::O(m) if m.is_empty() => out.push_str(" {}\n"),
            V::O(m) => {
                out.push('\n');
                yaml_map(m, out, ind + 2, false);
            }
            V::A(items) if items.is_empty() => out.push_str(" []\n"),
            V::A(items) => {
                out.push('\n');
                yaml_seq(items, out, ind);
            }
            _ => {
                out.push(' ');
                yaml_scalar(v, out, ind + 2);
            }
        }
    }
}

fn yaml_seq(items: &[V], out: &mut String, ind: usize) {
    for it in items {
        pad(out, ind);
        out.push('-');
        match it {
            V::O(m) if m.is_empty() => out.push_str(" {}\n"),
            V::O(m) => {
                out.push(' ');
                yaml_map(m, out, ind + 2, true);
            }
            V::A(inner) if inner.is_empty() => out.push_str(" []\n"),
            V::A(inner) => {
                out.push('\n');
                yaml_seq(inner, out, ind + 2);
            }
            _ => {
                out.push(' ');
                yaml_scalar(it, out, ind + 2);
            }
        }
    }
}

// ---------------------------------------------------------------------------------
// Filler text for descriptions.

/// Common words (space-separated).
const WORDS: &str = "the the the a a of of to to and and in for with on each every its from when \
    operator cluster manages lifecycle resources upgrade upgrades backup restore \
    namespace controller reconciles custom resource deployment replicas storage \
    network policy metrics monitoring secure automatically configuration instance \
    scales workloads high availability certificate rotation webhook validation \
    status conditions reports events Kubernetes OpenShift API CRD Prometheus TLS \
    operand installs configures watches channel catalog bundle version supported \
    release features provides declarative stateful service endpoint secret volume \
    snapshot failover tenant quota alerts dashboard logging tracing sidecar image \
    registry mirror";
/// Words that need escaping or quoting somewhere (`|`-separated).
const ODD_WORDS: &str = "naïve|café|über-fast|—|→|✓|résumé|`kubectl get pods`|`oc apply -f`|\"quoted\"|\
    <b>bold</b>|R&D|50%|{braces}|[brackets]|#hash|key: value|C:\\path|100 % safe|\
    'single'";

struct Words {
    common: Vec<&'static str>,
    odd: Vec<&'static str>,
}

fn push_words(rng: &mut Rng, words: &Words, out: &mut String, n: usize, line_start: &mut usize) {
    let mut cap = true;
    for i in 0..n {
        let w = if rng.chance(3) {
            *rng.pick(&words.odd)
        } else {
            *rng.pick(&words.common)
        };
        if i > 0 {
            if out.len() - *line_start > 76 {
                out.push('\n');
                *line_start = out.len();
            } else {
                out.push(' ');
            }
        }
        if cap {
            let mut cs = w.chars();
            if let Some(c) = cs.next() {
                out.extend(c.to_uppercase());
                out.push_str(cs.as_str());
            }
            cap = false;
        } else {
            out.push_str(w);
        }
        if i + 1 < n && rng.chance(8) {
            out.push_str(if rng.chance(50) { "." } else { "," });
            cap = out.ends_with('.');
        }
    }
    out.push('.');
}

/// Markdown-ish paragraphs, headings and bullet lists; no line starts or ends with a space.
fn build_corpus(seed: u64, min_len: usize) -> String {
    let mut rng = Rng::mix(&[seed, S_CORPUS]);
    let words = Words {
        common: WORDS.split(' ').collect(),
        odd: ODD_WORDS.split('|').collect(),
    };
    let mut out = String::with_capacity(min_len + 4096);
    while out.len() < min_len {
        let mut line_start = out.len();
        match rng.below(10) {
            0 => {
                out.push_str("### ");
                let n = rng.range(2, 4);
                push_words(&mut rng, &words, &mut out, n, &mut line_start);
                out.pop();
                out.push_str("\n\n");
            }
            1 => {
                for _ in 0..rng.range(2, 4) {
                    out.push_str("- ");
                    line_start = out.len();
                    let n = rng.range(3, 9);
                    push_words(&mut rng, &words, &mut out, n, &mut line_start);
                    out.push('\n');
                }
                out.push('\n');
            }
            _ => {
                let n = rng.range(20, 70);
                push_words(&mut rng, &words, &mut out, n, &mut line_start);
                out.push_str("\n\n");
            }
        }
    }
    out
}

const CORPUS_WINDOW: usize = 64 * 1024;

/// About `len` bytes of whole lines of the corpus, from the start of a paragraph, ending
/// with exactly one line break.
fn filler<'c>(corpus: &'c str, rng: &mut Rng, len: usize) -> &'c str {
    let b = corpus.as_bytes();
    let mut start = rng.below(CORPUS_WINDOW);
    while start + 1 < b.len() && !(b[start] == b'\n' && b[start + 1] == b'\n') {
        start += 1;
    }
    start = (start + 2).min(b.len());
    let mut end = (start + len).min(b.len());
    while end < b.len() && b[end] != b'\n' {
        end += 1;
    }
    let text = &corpus[start..(end + 1).min(b.len())];
    let trimmed = text.trim_end_matches('\n');
    &text[..(trimmed.len() + 1).min(text.len())]
}

// ---------------------------------------------------------------------------------
// Catalog plan.

const KINDS: &[&str] = &[
    "Widget",
    "Gadget",
    "Backup",
    "Instance",
    "Database",
    "Gateway",
    "Cluster",
    "Pipeline",
    "Monitor",
    "Tenant",
    "Bucket",
    "Certificate",
    "Queue",
    "Cache",
];
const CHANNEL_NAMES: [&str; 4] = ["stable", "fast", "candidate", "stable-v2"];

struct Cfg {
    seed: u64,
    packages: usize,
    bundles: usize,
    object_bytes: usize,
    format: Format,
    corpus: String,
    out: PathBuf,
}

fn pkg_name(i: usize) -> String {
    format!("pkg-{i:04}")
}

fn pkg_group(i: usize) -> String {
    format!("pkg{i:04}.example.com")
}

/// The kinds a package provides (its own stream, so other packages can require them).
fn pkg_kinds(seed: u64, i: usize) -> Vec<&'static str> {
    let mut rng = Rng::mix(&[seed, S_KINDS, i as u64]);
    let n = rng.range(1, 3);
    let mut kinds: Vec<&'static str> = Vec::with_capacity(n);
    while kinds.len() < n {
        let k = *rng.pick(KINDS);
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    kinds
}

fn plural(kind: &str) -> String {
    format!("{}s", kind.to_ascii_lowercase())
}

struct Entry {
    bundle: usize,
    replaces: Option<String>,
    skips: Vec<String>,
    skip_range: Option<String>,
}

struct Channel {
    name: &'static str,
    entries: Vec<Entry>,
}

/// Builds a channel over bundles `start..end` (see the module docs for the patterns).
fn make_channel(
    rng: &mut Rng,
    name: &'static str,
    start: usize,
    end: usize,
    bnames: &[String],
    versions: &[(u64, u64, u64)],
) -> Channel {
    let mut entries = Vec::with_capacity(end - start);
    let mut prev_pulled = false;
    for b in start..end {
        let li = b - start;
        let mut e = Entry {
            bundle: b,
            replaces: None,
            skips: Vec::new(),
            skip_range: None,
        };
        let mut pulled = false;
        if li == 0 {
            // The tail may replace (and skip) bundles that are not in this channel.
            if b > 0 && rng.chance(60) {
                e.replaces = Some(bnames[b - 1].clone());
                if b > 1 && rng.chance(25) {
                    e.skips.push(bnames[b - 2].clone());
                }
            }
        } else if li >= 2 && !prev_pulled && rng.chance(8) {
            // Bundle b-1 was pulled: b replaces b-2 and skips b-1.
            e.replaces = Some(bnames[b - 2].clone());
            e.skips.push(bnames[b - 1].clone());
            pulled = true;
        } else {
            e.replaces = Some(bnames[b - 1].clone());
            // Skipping the previous-previous entry keeps the chain valid only when it is
            // the first entry (nothing below it can be stranded).
            if li == 2 && rng.chance(20) {
                e.skips.push(bnames[b - 2].clone());
            }
        }
        prev_pulled = pulled;
        if rng.chance(25) {
            let (x, y, z) = versions[b];
            if z > 0 {
                e.skip_range = Some(format!(">={x}.{y}.0 <{x}.{y}.{z}"));
            } else if b > 0 {
                let (px, py, pz) = versions[b - 1];
                e.skip_range = Some(format!(">={px}.{py}.{pz} <{x}.{y}.{z}"));
            }
        }
        entries.push(e);
    }
    Channel { name, entries }
}

/// The server's channel rules: one head, the replaces chain from it (stopping at a
/// skipped or absent bundle, no cycles), every entry on the chain or skipped.
fn check_channel(ch: &Channel, bnames: &[String]) -> Result<(), String> {
    let name = |e: &Entry| bnames[e.bundle].as_str();
    let mut incoming: HashSet<&str> = HashSet::new();
    let mut skipped: HashSet<&str> = HashSet::new();
    for e in &ch.entries {
        if let Some(r) = &e.replaces {
            incoming.insert(r);
        }
        for s in &e.skips {
            incoming.insert(s);
            skipped.insert(s);
        }
    }
    let heads: Vec<&Entry> = ch
        .entries
        .iter()
        .filter(|e| !incoming.contains(name(e)))
        .collect();
    let [head] = heads.as_slice() else {
        return Err(format!("{} channel heads", heads.len()));
    };
    let index: HashMap<&str, &Entry> = ch.entries.iter().map(|e| (name(e), e)).collect();
    let mut on_chain: HashSet<&str> = HashSet::new();
    let mut cur = Some(*head);
    while let Some(e) = cur {
        if !on_chain.insert(name(e)) {
            return Err("cycle".into());
        }
        cur = match &e.replaces {
            Some(r) if !skipped.contains(r.as_str()) => index.get(r.as_str()).copied(),
            _ => None,
        };
    }
    let stranded: Vec<&str> = ch
        .entries
        .iter()
        .map(name)
        .filter(|n| !on_chain.contains(n) && !skipped.contains(n))
        .collect();
    if stranded.is_empty() {
        Ok(())
    } else {
        Err(format!("stranded: {}", stranded.join(", ")))
    }
}

fn svg_icon(rng: &mut Rng, label: &str) -> String {
    let svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\"><rect width=\"32\" \
         height=\"32\" rx=\"6\" fill=\"#{:06x}\"/><text x=\"16\" y=\"21\" font-size=\"11\" \
         text-anchor=\"middle\" fill=\"#fff\">{label}</text></svg>",
        rng.next_u64() & 0xff_ffff
    );
    base64::engine::general_purpose::STANDARD.encode(svg)
}

fn timestamp(rng: &mut Rng) -> String {
    format!(
        "{}-{:02}-{:02}T{:02}:{:02}:{:02}",
        rng.range(2022, 2026),
        rng.range(1, 12),
        rng.range(1, 28),
        rng.below(24),
        rng.below(60),
        rng.below(60)
    )
}

#[derive(Default, Clone, Copy)]
struct Stats {
    packages: usize,
    channels: usize,
    bundles: usize,
    entries: usize,
    bytes: u64,
}

impl Stats {
    fn add(&mut self, o: Stats) {
        self.packages += o.packages;
        self.channels += o.channels;
        self.bundles += o.bundles;
        self.entries += o.entries;
        self.bytes += o.bytes;
    }
}

/// Everything about one package that its bundles need.
struct Pkg {
    name: String,
    group: String,
    display: String,
    kinds: Vec<&'static str>,
    shared: bool,
    objects: bool,
    max_ocp: bool,
    /// (package, group, kind, index of the first bundle that requires it, version range)
    dep: Option<(String, String, &'static str, usize, &'static str)>,
    maturity: &'static str,
}

/// `(type, supported)` of the four install modes.
fn install_modes(all_namespaces_only: bool) -> [(&'static str, bool); 4] {
    [
        "OwnNamespace",
        "SingleNamespace",
        "MultiNamespace",
        "AllNamespaces",
    ]
    .map(|t| {
        let supported = if all_namespaces_only {
            t == "AllNamespaces"
        } else {
            t != "MultiNamespace"
        };
        (t, supported)
    })
}

fn install_modes_v<'a>(all_namespaces_only: bool) -> V<'a> {
    V::A(
        install_modes(all_namespaces_only)
            .into_iter()
            .map(|(t, supported)| V::O(vec![("supported", V::B(supported)), ("type", s(t))]))
            .collect(),
    )
}

fn alm_examples(p: &Pkg, pretty: bool) -> String {
    let mut out = String::from("[");
    for (n, k) in p.kinds.iter().enumerate() {
        let item = V::O(vec![
            ("apiVersion", s(format!("{}/v1alpha1", p.group))),
            ("kind", s(*k)),
            (
                "metadata",
                V::O(vec![(
                    "name",
                    s(format!("{}-sample", k.to_ascii_lowercase())),
                )]),
            ),
            ("spec", V::O(vec![("size", V::I(n as i64 + 1))])),
        ]);
        if n > 0 {
            out.push(',');
        }
        if pretty {
            out.push_str("\n  ");
            let mut one = String::new();
            json_pretty(&item, &mut one, 0);
            out.push_str(&one.replace('\n', "\n  "));
        } else {
            json_compact(&item, &mut out);
        }
    }
    out.push_str(if pretty { "\n]" } else { "]" });
    out
}

fn crd_descriptions<'a>(p: &'a Pkg, rng: &mut Rng) -> V<'a> {
    V::A(
        p.kinds
            .iter()
            .map(|k| {
                let mut d = vec![
                    (
                        "description",
                        s(format!("{k} is the Schema for the {} API", plural(k))),
                    ),
                    ("displayName", s(*k)),
                    ("kind", s(*k)),
                    ("name", s(format!("{}.{}", plural(k), p.group))),
                    ("version", s("v1alpha1")),
                ];
                if rng.chance(50) {
                    d.push((
                        "specDescriptors",
                        V::A(vec![V::O(vec![
                            ("description", s("Number of replicas of the operand.")),
                            ("displayName", s("Size")),
                            ("path", s("size")),
                            (
                                "x-descriptors",
                                V::A(vec![s("urn:alm:descriptor:com.tectonic.ui:podCount")]),
                            ),
                        ])]),
                    ));
                    d.push((
                        "statusDescriptors",
                        V::A(vec![V::O(vec![
                            ("description", s("Conditions of the operand.")),
                            ("displayName", s("Conditions")),
                            ("path", s("conditions")),
                        ])]),
                    ));
                }
                V::O(d)
            })
            .collect(),
    )
}

/// Builds and writes one package; `buf` is a reusable document buffer.
fn gen_package(cfg: &Cfg, i: usize, buf: &mut String) -> io::Result<Stats> {
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

fn gvk<'a>(ty: &'a str, group: &str, kind: &str, version: &str) -> V<'a> {
    V::O(vec![
        ("type", s(ty)),
        (
            "value",
            V::O(vec![
                ("group", s(group.to_string())),
                ("kind", s(kind.to_string())),
                ("version", s(version.to_string())),
            ]),
        ),
    ])
}

fn image(rng: &mut Rng, repo: &str, tag: &str, digest_percent: usize, keep_tag: bool) -> String {
    if rng.chance(digest_percent) {
        let hex = rng.hex(64);
        if keep_tag {
            format!("{repo}:{tag}@sha256:{hex}")
        } else {
            format!("{repo}@sha256:{hex}")
        }
    } else {
        format!("{repo}:{tag}")
    }
}

fn bundle_doc<'a>(
    cfg: &'a Cfg,
    p: &'a Pkg,
    b: usize,
    bname: &'a str,
    (x, y, z): (u64, u64, u64),
    rng: &mut Rng,
) -> V<'a> {
    let version = format!("{x}.{y}.{z}");
    let tag = format!("v{version}");
    let bundle_image = image(
        rng,
        &format!("quay.io/example/{}-bundle", p.name),
        &tag,
        30,
        true,
    );
    let operator_image = image(
        rng,
        &format!("quay.io/example/{}-operator", p.name),
        &tag,
        40,
        false,
    );

    let mut props = Vec::new();
    for (n, k) in p.kinds.iter().enumerate() {
        props.push(gvk("olm.gvk", &p.group, k, "v1alpha1"));
        if n == 0 && b >= cfg.bundles / 2 {
            props.push(gvk("olm.gvk", &p.group, k, "v1"));
        }
    }
    if p.shared {
        props.push(gvk("olm.gvk", "shared.example.com", "Common", "v1"));
    }
    props.push(V::O(vec![
        ("type", s("olm.package")),
        (
            "value",
            V::O(vec![
                ("packageName", s(p.name.as_str())),
                ("version", s(version.clone())),
            ]),
        ),
    ]));
    if let Some((dpkg, dgroup, dkind, from, range)) = &p.dep
        && b >= *from
    {
        {
            props.push(gvk("olm.gvk.required", dgroup, dkind, "v1alpha1"));
            props.push(V::O(vec![
                ("type", s("olm.package.required")),
                (
                    "value",
                    V::O(vec![
                        ("packageName", s(dpkg.as_str())),
                        ("versionRange", s(*range)),
                    ]),
                ),
            ]));
        }
    }
    if p.max_ocp {
        props.push(V::O(vec![
            ("type", s("olm.maxOpenShiftVersion")),
            ("value", s(*rng.pick(&["4.16", "4.18", "4.20"]))),
        ]));
    }

    let mut related = vec![
        V::O(vec![("name", s("")), ("image", s(bundle_image.clone()))]),
        V::O(vec![
            ("name", s("manager")),
            ("image", s(operator_image.clone())),
        ]),
    ];
    let extra = rng.range(0, 3);
    let candidates = [
        (
            "kube-rbac-proxy",
            "quay.io/example/kube-rbac-proxy".to_string(),
            "v0.16.0",
        ),
        (
            "webhook",
            format!("quay.io/example/{}-webhook", p.name),
            tag.as_str(),
        ),
        (
            "must-gather",
            format!("registry.example.com/{}/must-gather", p.name),
            tag.as_str(),
        ),
    ];
    for (nm, repo, t) in candidates.iter().take(extra) {
        related.push(V::O(vec![
            ("name", s(*nm)),
            ("image", s(image(rng, repo, t, 50, false))),
        ]));
    }

    let created = timestamp(rng);
    if p.objects {
        let b64 = &base64::engine::general_purpose::STANDARD;
        let objects = bundle_objects(
            cfg,
            p,
            bname,
            &version,
            &bundle_image,
            &operator_image,
            &created,
            rng,
        );
        for obj in objects {
            props.push(V::O(vec![
                ("type", s("olm.bundle.object")),
                ("value", V::O(vec![("data", s(b64.encode(obj)))])),
            ]));
        }
    } else {
        let (description, annotations) = if cfg.object_bytes == 0 {
            let d = format!("{} manages {} resources.", p.display, p.kinds.join(" and "));
            let ann = vec![
                ("capabilities", s("Basic Install")),
                ("containerImage", s(operator_image)),
                (
                    "createdAt",
                    if rng.chance(50) {
                        V::Ts(created)
                    } else {
                        s(format!("{created}Z"))
                    },
                ),
            ];
            (d, ann)
        } else {
            let text = filler(&cfg.corpus, rng, (cfg.object_bytes / 2).max(64));
            let d = format!("## About {}\n\n{text}", p.display);
            let ann = vec![
                ("alm-examples", s(alm_examples(p, true))),
                (
                    "capabilities",
                    s(*rng.pick(&["Basic Install", "Seamless Upgrades", "Full Lifecycle"])),
                ),
                ("categories", s("Developer Tools, Monitoring")),
                ("containerImage", s(operator_image)),
                (
                    "createdAt",
                    if rng.chance(50) {
                        V::Ts(created)
                    } else {
                        s(format!("{created}Z"))
                    },
                ),
                (
                    "operators.operatorframework.io/builder",
                    s("operator-sdk-v1.34.1"),
                ),
                (
                    "repository",
                    s(format!("https://github.com/example/{}", p.name)),
                ),
                ("support", s("Example Org")),
            ];
            (d, ann)
        };
        let mut meta = vec![
            ("annotations", V::O(annotations)),
            (
                "crdDescriptions",
                V::O(vec![("owned", crd_descriptions(p, rng))]),
            ),
            ("description", s(description)),
            ("displayName", s(p.display.as_str())),
            ("installModes", install_modes_v(rng.chance(50))),
            (
                "keywords",
                V::A(vec![s("example"), s(p.kinds[0].to_ascii_lowercase())]),
            ),
            ("maturity", s(p.maturity)),
            ("minKubeVersion", s(format!("1.{}.0", rng.range(24, 31)))),
            (
                "provider",
                V::O(vec![
                    ("name", s("Example Org")),
                    ("url", s("https://example.com")),
                ]),
            ),
        ];
        if rng.chance(30) {
            meta.push(("apiServiceDefinitions", V::O(vec![])));
        }
        if rng.chance(40) {
            meta.push((
                "links",
                V::A(vec![V::O(vec![
                    ("name", s("Documentation")),
                    ("url", s(format!("https://example.com/docs/{}", p.name))),
                ])]),
            ));
            meta.push((
                "maintainers",
                V::A(vec![V::O(vec![
                    ("email", s("operators@example.com")),
                    ("name", s("Example Maintainers")),
                ])]),
            ));
        }
        props.push(V::O(vec![
            ("type", s("olm.csv.metadata")),
            ("value", V::O(meta)),
        ]));
    }

    V::O(vec![
        ("schema", s("olm.bundle")),
        ("name", s(bname)),
        ("package", s(p.name.as_str())),
        ("image", s(bundle_image)),
        ("properties", V::A(props)),
        ("relatedImages", V::A(related)),
    ])
}

/// A CRD and a ClusterServiceVersion of about `cfg.object_bytes` bytes, as compact JSON
/// with sorted keys, like the manifests `opm render` puts into real catalogs.
#[allow(clippy::too_many_arguments)]
fn bundle_objects(
    cfg: &Cfg,
    p: &Pkg,
    bname: &str,
    version: &str,
    bundle_image: &str,
    operator_image: &str,
    created: &str,
    rng: &mut Rng,
) -> [String; 2] {
    use serde_json::json;
    let (group, app, k0) = (p.group.as_str(), p.name.as_str(), p.kinds[0]);
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{}.{group}", plural(k0))},
        "spec": {
            "group": group,
            "names": {
                "kind": k0,
                "listKind": format!("{k0}List"),
                "plural": plural(k0),
                "singular": k0.to_ascii_lowercase()
            },
            "scope": "Namespaced",
            "versions": [{
                "name": "v1alpha1",
                "schema": {"openAPIV3Schema": {
                    "properties": {
                        "spec": {
                            "properties": {"size": {"minimum": 1, "type": "integer"}},
                            "type": "object"
                        },
                        "status": {"type": "object"}
                    },
                    "type": "object"
                }},
                "served": true,
                "storage": true,
                "subresources": {"status": {}}
            }]
        }
    });
    let owned: Vec<_> = p
        .kinds
        .iter()
        .map(|k| {
            json!({
                "description": format!("{k} is the Schema for the {} API", plural(k)),
                "displayName": k,
                "kind": k,
                "name": format!("{}.{group}", plural(k)),
                "version": "v1alpha1"
            })
        })
        .collect();
    let install = json!({
        "spec": {
            "clusterPermissions": [{
                "rules": [{
                    "apiGroups": [group],
                    "resources": p.kinds.iter().map(|k| plural(k)).collect::<Vec<_>>(),
                    "verbs": ["*"]
                }],
                "serviceAccountName": app
            }],
            "deployments": [{
                "name": format!("{app}-controller-manager"),
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": {"app": app}},
                    "template": {
                        "metadata": {"labels": {"app": app}},
                        "spec": {
                            "containers": [{
                                "args": ["--leader-elect"],
                                "image": operator_image,
                                "name": "manager"
                            }],
                            "serviceAccountName": app
                        }
                    }
                }
            }]
        },
        "strategy": "deployment"
    });
    let install_modes: Vec<_> = install_modes(rng.chance(50))
        .into_iter()
        .map(|(t, supported)| json!({"supported": supported, "type": t}))
        .collect();
    let text = filler(
        &cfg.corpus,
        rng,
        cfg.object_bytes.saturating_sub(2500).max(64),
    );
    let csv = json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {
            "annotations": {
                "alm-examples": alm_examples(p, false),
                "capabilities": "Seamless Upgrades",
                "categories": "Developer Tools",
                "containerImage": operator_image,
                "createdAt": format!("{created}Z"),
                "repository": format!("https://github.com/example/{app}")
            },
            "name": bname
        },
        "spec": {
            "apiservicedefinitions": {},
            "customresourcedefinitions": {"owned": owned},
            "description": format!("## About {}\n\n{text}", p.display),
            "displayName": p.display,
            "install": install,
            "installModes": install_modes,
            "keywords": ["example", k0.to_ascii_lowercase()],
            "links": [{"name": "Documentation", "url": format!("https://example.com/docs/{app}")}],
            "maintainers": [{"email": "operators@example.com", "name": "Example Maintainers"}],
            "maturity": p.maturity,
            "minKubeVersion": format!("1.{}.0", rng.range(24, 31)),
            "provider": {"name": "Example Org", "url": "https://example.com"},
            "relatedImages": [{"image": bundle_image, "name": "bundle"}],
            "version": version
        }
    });
    [crd.to_string(), csv.to_string()]
}

// ---------------------------------------------------------------------------------

fn prepare_out(out: &Path, force: bool) -> Result<(), String> {
    match fs::read_dir(out) {
        Ok(mut rd) => {
            if rd.next().is_some() && !force {
                return Err(format!(
                    "{} is not empty (use --force to write into it anyway)",
                    out.display()
                ));
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(out).map_err(|e| format!("create {}: {e}", out.display()))
        }
        Err(e) => Err(format!("{}: {e}", out.display())),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.packages == 0 || args.bundles_per_package == 0 {
        eprintln!("gen-catalog: --packages and --bundles-per-package must be at least 1");
        return ExitCode::from(2);
    }
    if let Err(e) = prepare_out(&args.out, args.force) {
        eprintln!("gen-catalog: {e}");
        return ExitCode::from(2);
    }
    let started = Instant::now();
    let cfg = Cfg {
        seed: args.seed,
        packages: args.packages,
        bundles: args.bundles_per_package,
        object_bytes: args.object_bytes,
        format: args.format,
        corpus: build_corpus(
            args.seed,
            CORPUS_WINDOW + args.object_bytes.max(4096) + 8192,
        ),
        out: args.out.clone(),
    };
    let next = AtomicUsize::new(1);
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(4)
        .min(args.packages);
    let results: Vec<io::Result<Stats>> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                sc.spawn(|| {
                    let mut st = Stats::default();
                    let mut buf = String::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i > cfg.packages {
                            return Ok(st);
                        }
                        st.add(gen_package(&cfg, i, &mut buf)?);
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("worker panicked"))
            .collect()
    });
    let mut total = Stats::default();
    for r in results {
        match r {
            Ok(st) => total.add(st),
            Err(e) => {
                eprintln!("gen-catalog: {}: {e}", args.out.display());
                return ExitCode::FAILURE;
            }
        }
    }
    eprintln!(
        "gen-catalog: {} packages, {} channels, {} bundles, {} channel entries, {} bytes \
         ({:.1} MiB) written to {} in {:.2}s",
        total.packages,
        total.channels,
        total.bundles,
        total.entries,
        total.bytes,
        total.bytes as f64 / (1024.0 * 1024.0),
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}
