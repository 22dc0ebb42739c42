//! Package descriptions: untrusted markdown → HTML safe to put in a page.
//!
//! In: a description as a catalog wrote it (CommonMark with tables, often with raw
//! HTML). Out: HTML that runs nothing: pulldown-cmark renders it, ammonia keeps
//! only a whitelist of tags and attributes and only `http`, `https` and `mailto`
//! links (relative ones are dropped: they would point into this server). Images
//! become links to the image, because the page's Content-Security-Policy
//! (`img-src 'self' data:`) would block them anyway: the browser never fetches
//! from a host the catalog names, so reading a catalog stays private and offline.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use std::collections::HashSet;
use std::sync::LazyLock;

/// Longest description rendered; the rest is cut (real ones are under 64 KiB).
pub const MAX_MARKDOWN_BYTES: usize = 256 * 1024;

/// The sanitiser, configured once.
static CLEANER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut builder = ammonia::Builder::default();
    builder
        .rm_tags(["img"])
        .url_schemes(HashSet::from(["http", "https", "mailto"]))
        .url_relative(ammonia::UrlRelative::Deny)
        .link_rel(Some("noopener noreferrer nofollow"));
    builder
});

/// Renders `markdown` as sanitised HTML.
pub fn render(markdown: &str) -> String {
    let markdown = cut(markdown, MAX_MARKDOWN_BYTES);
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    });
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events);
    CLEANER.clean(&html).to_string()
}

/// `text` cut to at most `max` bytes, at a character boundary.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_commonmark_and_tables() {
        let html = render(
            "# Widgets\n\n*fast* [docs](https://acme.example/docs)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        );
        assert!(html.contains("<h1>Widgets</h1>"), "{html}");
        assert!(html.contains("<em>fast</em>"), "{html}");
        assert!(
            html.contains(
                r#"<a href="https://acme.example/docs" rel="noopener noreferrer nofollow">docs</a>"#
            ),
            "{html}"
        );
        assert!(html.contains("<table>"), "{html}");
    }

    #[test]
    fn nothing_runs() {
        let hostile = concat!(
            "<script>alert(1)</script>\n\n",
            "<img src=x onerror=alert(2)>\n\n",
            "[click](javascript:alert(3)) <a href=\"data:text/html,x\" onclick=\"alert(4)\">d</a>\n\n",
            "<iframe src=\"https://evil.example\"></iframe>\n\n<style>body{}</style>\n\n",
            "<p style=\"background:url(https://evil.example)\">styled</p>\n\n",
            "[rel](/catalogs/x/api/v1/all)",
        );
        let html = render(hostile);
        for banned in [
            "<script",
            "onerror",
            "javascript:",
            "onclick",
            "data:text",
            "<iframe",
            "<style",
            "style=",
            "<img",
            "/catalogs/",
        ] {
            assert!(!html.contains(banned), "{banned} in {html}");
        }
        assert!(html.contains("styled"), "{html}");
    }

    #[test]
    fn images_become_links() {
        let html = render("![logo](https://acme.example/logo.png)");
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains(r#"href="https://acme.example/logo.png""#),
            "{html}"
        );
        assert!(html.contains(">logo</a>"), "{html}");
    }

    #[test]
    fn long_descriptions_are_cut_on_a_character() {
        let long = "é".repeat(MAX_MARKDOWN_BYTES);
        let html = render(&long);
        assert!(html.len() < MAX_MARKDOWN_BYTES + 64);
        assert!(html.ends_with("é</p>\n"), "{}", &html[html.len() - 16..]);
    }
}
