//! The character-level half of the Masterminds grammar: what the Go library's
//! four regular expressions accept, reproduced without a regex engine.
//!
//! In: a constraint string (or one `||`-separated part of it). Out: the string
//! with hyphen ranges rewritten, or the list of `(operator, version)` tokens of
//! a part, or `None` when the part is not a valid list of comparators.
//!
//! The Go library (v3.4+, constraints.go) works on bytes with these classes:
//! `N = [0-9|xX*]` for version numbers (the `|` is a literal bar: the class was
//! written as if it were an alternation), `I = [0-9A-Za-z-]` for prerelease and
//! build identifiers, and `\s = [\t\n\f\r ]`. A version token (`cvRegex`) is
//! `v? N+ (.N+)? (.N+)? (-I+(.I+)*)? (+I+(.I+)*)?`. Every part is greedy, and
//! for this pattern the greedy match is also the longest one, so one left-to-right
//! scan per token gives what Go's leftmost-first matcher gives.
//!
//! Everything here is linear in the input: the per-byte tables are filled right
//! to left once, after which the end of a version token starting anywhere is
//! found in constant time.

/// The operators of `ops` in constraints.go, empty one included.
const OPERATORS: [&str; 12] = [
    "", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^",
];

/// `\s` in Go's RE2: ASCII space, tab, LF, FF, CR (not VT).
pub(super) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// The version-number class `[0-9|x|X|\*]`.
fn is_num(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'|' | b'x' | b'X' | b'*')
}

/// The identifier class `[0-9A-Za-z\-]`.
fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// Bytes that can only be part of an operator.
fn is_op(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'>' | b'<' | b'~' | b'^')
}

/// One version token, as `cvRegex` splits it (all slices of the input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cv<'a> {
    /// The whole token, `v` prefix and build included.
    pub text: &'a str,
    /// The major part (`N+`).
    pub major: &'a str,
    /// The minor part without its dot.
    pub minor: Option<&'a str>,
    /// The patch part without its dot.
    pub patch: Option<&'a str>,
    /// The prerelease without its dash.
    pub pre: Option<&'a str>,
}

/// One comparator of a part: operator spelling and version token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Token<'a> {
    /// One of [`OPERATORS`].
    pub op: &'a str,
    /// The version token.
    pub cv: Cv<'a>,
}

/// Per-byte tables over one string; every `usize` is an end offset.
struct Scanner<'a> {
    s: &'a str,
    b: &'a [u8],
    /// End of the whitespace run starting here (itself if none).
    ws_end: Vec<usize>,
    /// End of the `N` run starting here (itself if none).
    num_end: Vec<usize>,
    /// End of the `I+(.I+)*` list starting here (itself if `b[i]` is not `I`).
    ident_end: Vec<usize>,
}

impl<'a> Scanner<'a> {
    fn new(s: &'a str) -> Self {
        let b = s.as_bytes();
        let n = b.len();
        let mut ws_end = vec![n; n + 1];
        let mut num_end = vec![n; n + 1];
        let mut ident_run = vec![n; n + 1];
        let mut ident_end = vec![n; n + 1];
        for i in (0..n).rev() {
            ws_end[i] = if is_ws(b[i]) { ws_end[i + 1] } else { i };
            num_end[i] = if is_num(b[i]) { num_end[i + 1] } else { i };
            ident_run[i] = if is_ident(b[i]) { ident_run[i + 1] } else { i };
            ident_end[i] = if is_ident(b[i]) {
                let j = ident_run[i];
                if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(|&c| is_ident(c)) {
                    ident_end[j + 1]
                } else {
                    j
                }
            } else {
                i
            };
        }
        Scanner {
            s,
            b,
            ws_end,
            num_end,
            ident_end,
        }
    }

    fn at(&self, i: usize) -> Option<u8> {
        self.b.get(i).copied()
    }

    /// The greedy `cvRegex` match starting exactly at `start`, if any.
    fn version_at(&self, start: usize) -> Option<(Cv<'a>, usize)> {
        let mut i = start;
        if self.at(i) == Some(b'v') {
            i += 1;
        }
        let major_end = *self.num_end.get(i)?;
        if major_end == i {
            return None;
        }
        let major = &self.s[i..major_end];
        i = major_end;
        let mut parts: [Option<&'a str>; 2] = [None, None];
        for part in &mut parts {
            if self.at(i) == Some(b'.') && self.at(i + 1).is_some_and(is_num) {
                let end = self.num_end[i + 1];
                *part = Some(&self.s[i + 1..end]);
                i = end;
            } else {
                break;
            }
        }
        let mut pre = None;
        if self.at(i) == Some(b'-') && self.at(i + 1).is_some_and(is_ident) {
            let end = self.ident_end[i + 1];
            pre = Some(&self.s[i + 1..end]);
            i = end;
        }
        if self.at(i) == Some(b'+') && self.at(i + 1).is_some_and(is_ident) {
            i = self.ident_end[i + 1];
        }
        let cv = Cv {
            text: &self.s[start..i],
            major,
            minor: parts[0],
            patch: parts[1],
            pre,
        };
        Some((cv, i))
    }

    /// `\s*(cv)\s+-\s+(cv)\s*` with its version tokens starting at `p`
    /// (the leading whitespace is the caller's business): end offset and the
    /// two version texts.
    fn hyphen_range_at(&self, p: usize) -> Option<(usize, &'a str, &'a str)> {
        let (low, low_end) = self.version_at(p)?;
        let dash = self.ws_end[low_end];
        if dash == low_end || self.at(dash) != Some(b'-') {
            return None;
        }
        let high_start = self.ws_end[dash + 1];
        if high_start == dash + 1 {
            return None;
        }
        let (high, high_end) = self.version_at(high_start)?;
        Some((self.ws_end[high_end], low.text, high.text))
    }
}

/// `rewriteRange`: every hyphen range `A - B` (spaces required) becomes
/// `>= A, <= B` followed by `suffix` (v3.4+ appends a space, v3.2 did not: with
/// it `1 - 2 <3` is valid), found left to right without overlap
/// in the original string, each replacing the *first* occurrence of its matched
/// text in the string rewritten so far, exactly as Go's `strings.Replace(o, m, t, 1)`.
pub(super) fn rewrite_range(s: &str, suffix: &str) -> String {
    let sc = Scanner::new(s);
    let n = s.len();
    let mut found: Vec<(usize, usize, &str, &str)> = Vec::new();
    let mut start = 0usize;
    while start < n {
        // Leftmost match at or after `start`: a match beginning at `s0` has its
        // first version at the end of the whitespace run from `s0`.
        let mut s0 = start;
        let mut hit = None;
        while s0 < n {
            let p = sc.ws_end[s0];
            if let Some((end, low, high)) = sc.hyphen_range_at(p) {
                hit = Some((s0, end, low, high));
                break;
            }
            // Every start inside this whitespace run tries the same `p`.
            s0 = p.max(s0) + 1;
        }
        match hit {
            Some((s0, end, low, high)) => {
                found.push((s0, end, low, high));
                start = end;
            }
            None => break,
        }
    }
    let mut out = s.to_string();
    for (s0, end, low, high) in found {
        let replacement = format!(">= {low}, <= {high}{suffix}");
        out = out.replacen(&s[s0..end], &replacement, 1);
    }
    out
}

/// Splits one `||` part into its comparators, or `None` when
/// `validConstraintRegex` rejects it:
/// `^\s*OP\s*CV\s*((\s+|,\s*)OP\s*CV\s*)*$`.
///
/// The tokens are the ones `findConstraintRegex` then extracts: operator bytes
/// and version bytes are disjoint from each other and from the separators, so
/// the valid parse is unique and the unanchored search finds the same pieces.
pub(super) fn tokenize(part: &str) -> Option<Vec<Token<'_>>> {
    let sc = Scanner::new(part);
    let n = part.len();
    let mut tokens = Vec::new();
    let mut i = sc.ws_end[0];
    loop {
        let op_start = i;
        while sc.at(i).is_some_and(is_op) {
            i += 1;
        }
        let op = &part[op_start..i];
        if !OPERATORS.contains(&op) {
            return None;
        }
        i = sc.ws_end[i];
        let (cv, end) = sc.version_at(i)?;
        tokens.push(Token { op, cv });
        let after = sc.ws_end[end];
        if after == n {
            return Some(tokens);
        }
        if sc.at(after) == Some(b',') {
            i = sc.ws_end[after + 1];
        } else if after > end {
            i = after;
        } else {
            return None;
        }
    }
}
