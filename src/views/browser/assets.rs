//! The browser's stylesheet and script, compiled into the binary.
//!
//! In: `assets/app.css` and `assets/app.js` beside this file. Out: each under a
//! name carrying a hash of its bytes (`/assets/app.<hash>.css`), so it can be
//! cached for a year and a new build is fetched at once. No framework, no CDN:
//! the pages work offline and the CSP allows scripts and styles from this server
//! only.

use std::sync::LazyLock;

/// One compiled-in file.
#[derive(Debug)]
pub struct Asset {
    /// Its URL path, with the content hash.
    pub path: String,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes.
    pub body: &'static [u8],
}

/// Every asset.
#[derive(Debug)]
pub struct Assets {
    /// The stylesheet.
    pub css: Asset,
    /// The script.
    pub js: Asset,
}

static ASSETS: LazyLock<Assets> = LazyLock::new(|| Assets {
    css: asset(
        "app",
        "css",
        "text/css; charset=utf-8",
        include_bytes!("assets/app.css"),
    ),
    js: asset(
        "app",
        "js",
        "text/javascript; charset=utf-8",
        include_bytes!("assets/app.js"),
    ),
});

/// The assets.
pub fn all() -> &'static Assets {
    &ASSETS
}

/// The asset at URL `path`, if any.
pub fn find(path: &str) -> Option<&'static Asset> {
    let assets = all();
    [&assets.css, &assets.js]
        .into_iter()
        .find(|a| a.path == path)
}

fn asset(stem: &str, ext: &str, content_type: &'static str, body: &'static [u8]) -> Asset {
    let hash = xxhash_rust::xxh3::xxh3_64(body);
    Asset {
        path: format!("/assets/{stem}.{hash:016x}.{ext}"),
        content_type,
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_content_hash() {
        let assets = all();
        assert!(assets.css.path.starts_with("/assets/app."));
        assert!(assets.css.path.ends_with(".css"));
        assert_eq!(assets.css.path.len(), "/assets/app..css".len() + 16);
        assert!(find(&assets.js.path).is_some());
        assert!(find("/assets/app.js").is_none());
    }
}
