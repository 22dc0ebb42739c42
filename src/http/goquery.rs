//! Query strings as Go's `url.ParseQuery` reads them (what catalogd's
//! `r.URL.Query()` sees).
//!
//! In: the raw query. Out: [`Query`]: key → values in order. Pairs with a `;`, or
//! with a bad `%` escape in key or value, are dropped; empty pairs are skipped;
//! `+` is a space; a key without `=` has the value `""`. Written by hand because
//! `form_urlencoded` keeps bad escapes literally and treats `;` as text, so
//! `?schema=%zz` or `?a;b` would get a different answer from catalogd.

/// A parsed query string: byte keys and values, in the order given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query {
    pairs: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Query {
    /// Parses `raw` (without the `?`).
    pub fn parse(raw: &str) -> Query {
        let pairs = raw
            .split('&')
            .filter(|piece| !piece.is_empty() && !piece.contains(';'))
            .filter_map(|piece| {
                let (key, value) = piece.split_once('=').unwrap_or((piece, ""));
                Some((unescape(key)?, unescape(value)?))
            })
            .collect();
        Query { pairs }
    }

    /// Distinct keys, in first-seen order.
    pub fn keys(&self) -> impl Iterator<Item = &[u8]> {
        let mut seen = std::collections::HashSet::new();
        self.pairs
            .iter()
            .map(|(k, _)| k.as_slice())
            .filter(move |k| seen.insert(*k))
    }

    /// Every value of `key`, in order.
    pub fn values<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.pairs
            .iter()
            .filter(move |(k, _)| k == key.as_bytes())
            .map(|(_, v)| v.as_slice())
    }

    /// The first value of `key` (Go's `Values.Get`), if any.
    pub fn get(&self, key: &str) -> Option<&[u8]> {
        self.pairs
            .iter()
            .find(|(k, _)| k == key.as_bytes())
            .map(|(_, v)| v.as_slice())
    }
}

/// Go's `QueryUnescape`: `%XX` decoded, `+` a space; `None` on a bad escape.
/// By hand because the `percent-encoding` crate keeps a bad escape as it is and
/// leaves `+` alone, where Go refuses the whole value and reads a space.
fn unescape(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                let hi = (hex[0] as char).to_digit(16)?;
                let lo = (hex[1] as char).to_digit(16)?;
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(raw: &str) -> Vec<(String, String)> {
        Query::parse(raw)
            .pairs
            .into_iter()
            .map(|(k, v)| {
                (
                    String::from_utf8_lossy(&k).into_owned(),
                    String::from_utf8_lossy(&v).into_owned(),
                )
            })
            .collect()
    }

    #[test]
    fn go_url_parse_query() {
        let p = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            pairs("schema=x&&schema=y"),
            vec![p("schema", "x"), p("schema", "y")]
        );
        assert_eq!(pairs("a=1;b=2&c=3"), vec![p("c", "3")]);
        assert_eq!(pairs("a=%zz&b=%41%2f&c=%4"), vec![p("b", "A/")]);
        assert_eq!(
            pairs("a+b=c+d&e&=f"),
            vec![p("a b", "c d"), p("e", ""), p("", "f")]
        );
        assert_eq!(pairs("a=b=c"), vec![p("a", "b=c")]);
        assert_eq!(pairs(""), vec![]);
    }

    #[test]
    fn get_is_the_first_value_and_keys_are_distinct() {
        let q = Query::parse("name=a&package=p&name=b");
        assert_eq!(q.get("name"), Some(&b"a"[..]));
        assert_eq!(q.get("schema"), None);
        assert_eq!(
            q.keys().collect::<Vec<_>>(),
            vec![&b"name"[..], &b"package"[..]]
        );
    }
}
