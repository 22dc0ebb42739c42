//! Writing HTML safely: escaping, URL path segments, safe link targets, and the
//! document shell every page shares.
//!
//! In: text from the catalog. Out: HTML fragments in which that text is data,
//! never markup; the shell links the stylesheet and script by their hashed names
//! ([`super::assets`]) and carries no inline script or style, as the CSP demands.

use super::assets;

/// `text` escaped for an HTML (or SVG) text node or a quoted attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Everything but RFC 3986's unreserved characters.
const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// `text` as one URL path segment or query value, percent-encoded.
pub fn encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, SEGMENT).to_string()
}

/// `url` if a link to it is safe to offer (`http`, `https`, `mailto`), else `None`.
pub fn safe_url(url: &str) -> Option<&str> {
    let url = url.trim();
    let scheme = url.split_once(':')?.0.to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https" | "mailto").then_some(url)
}

/// An `<a>` to `url` with `text`, or the text alone when the URL is not safe.
pub fn link(text: &str, url: &str) -> String {
    let label = if text.is_empty() { url } else { text };
    match safe_url(url) {
        Some(url) => format!(
            r#"<a href="{}" rel="noopener noreferrer nofollow">{}</a>"#,
            escape(url),
            escape(label)
        ),
        None => escape(label),
    }
}

/// A whole page: `title`, the catalog's name in the header, and `main`.
/// Which catalog a page shows, among the server's catalogs: with several, every
/// page offers the others (a picker of plain links, so it works without script)
/// and its own links keep `?catalog=NAME`.
#[derive(Clone, Copy, Debug)]
pub struct Site<'a> {
    /// The catalog shown.
    pub catalog: &'a str,
    /// Every catalog of the server, by name.
    pub catalogs: &'a [String],
}

impl<'a> Site<'a> {
    /// A server of one catalog.
    #[cfg(test)]
    pub fn one(catalog: &'a str) -> Site<'a> {
        Site {
            catalog,
            catalogs: &[],
        }
    }

    /// `?catalog=NAME` when the server has several catalogs, else nothing.
    pub fn suffix(&self) -> String {
        if self.catalogs.len() > 1 {
            format!("?catalog={}", encode(self.catalog))
        } else {
            String::new()
        }
    }

    /// The picker, when the server has several catalogs.
    fn picker(&self) -> String {
        if self.catalogs.len() < 2 {
            return String::new();
        }
        let mut out = String::from("<nav class=\"catalogs\" aria-label=\"Catalogs\">");
        for name in self.catalogs {
            let current = if name == self.catalog {
                " aria-current=\"page\""
            } else {
                ""
            };
            out.push_str(&format!(
                "<a href=\"/?catalog={}\"{current}>{}</a>",
                encode(name),
                escape(name)
            ));
        }
        out.push_str("</nav>\n");
        out
    }
}

/// The page shell around `main`, for `site`'s catalog.
pub fn document(title: &str, site: &Site<'_>, main: &str) -> String {
    let assets = assets::all();
    let catalog = site.catalog;
    format!(
        concat!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<title>{title}</title><link rel=\"stylesheet\" href=\"{css}\">",
            "<script src=\"{js}\" defer></script></head>\n",
            "<body data-catalog=\"{catalog}\"><header><a class=\"brand\" href=\"/{suffix}\">{catalog}</a>",
            "<span class=\"tagline\">file-based catalog · fbc-registry</span></header>\n{picker}",
            "<main>{main}</main></body></html>\n"
        ),
        title = escape(title),
        css = assets.css.path,
        js = assets.js.path,
        catalog = escape(catalog),
        suffix = site.suffix(),
        picker = site.picker(),
        main = main,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn encodes_path_segments() {
        assert_eq!(encode("a-b.c_d~e"), "a-b.c_d~e");
        assert_eq!(encode("../x y/é?"), "..%2Fx%20y%2F%C3%A9%3F");
    }

    #[test]
    fn only_web_and_mail_links_are_offered() {
        assert_eq!(
            link("docs", "https://a.example/?q=<x>"),
            r#"<a href="https://a.example/?q=&lt;x&gt;" rel="noopener noreferrer nofollow">docs</a>"#
        );
        assert_eq!(link("x", " JavaScript:alert(1)"), "x");
        assert_eq!(link("", "data:text/html,<b>"), "data:text/html,&lt;b&gt;");
        assert_eq!(link("x", "/relative"), "x");
        assert!(safe_url("MAILTO:a@b.example").is_some());
    }
}
