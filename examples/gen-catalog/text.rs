//! Filler text for descriptions: a corpus of Markdown-ish paragraphs, headings
//! and bullet lists built once from the seed, and windows of whole lines from it.

use crate::rng::{Rng, S_CORPUS};

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
pub(crate) fn build_corpus(seed: u64, min_len: usize) -> String {
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

pub(crate) const CORPUS_WINDOW: usize = 64 * 1024;

/// About `len` bytes of whole lines of the corpus, from the start of a paragraph, ending
/// with exactly one line break.
pub(crate) fn filler<'c>(corpus: &'c str, rng: &mut Rng, len: usize) -> &'c str {
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
