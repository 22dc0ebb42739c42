//! A [`DeclarativeConfig`] → the text `opm render` prints.
//!
//! In: a declarative config and an [`Output`] format. Out: opm's `declcfg.WriteJSON`
//! bytes (each blob indented by four spaces, HTML characters left alone, one newline
//! after each) or `declcfg.WriteYAML` bytes (each blob a `---` document, as
//! sigs.k8s.io/yaml writes it: [`super::go_yaml`]).
//!
//! Order (opm's `writeToEncoder`): package names sorted by bytes; for each, its
//! `olm.package` blobs in reading order, its channels by name, its bundles by name, its
//! other blobs by schema (stable), its deprecations in reading order; then the other
//! blobs with no package. Channels and bundles are sorted with Go's unstable sort
//! ([`super::go_sort`]), as opm sorts them.

use super::declcfg::{Bundle, Channel, DeclarativeConfig, Deprecation, Meta, Package, Property};
use super::indent::{compact, indent};
use crate::source::json::{Html, write_string};
use base64::Engine;
use std::collections::BTreeMap;

/// An output format of `render`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// `-o json`.
    Json,
    /// `-o yaml`.
    Yaml,
}

/// One blob, ready to be written.
enum Item<'a> {
    Package(&'a Package),
    Channel(&'a Channel),
    Bundle(&'a Bundle),
    Meta(&'a Meta),
    Deprecation(&'a Deprecation),
}

/// Writes `config` as `opm render -o json|yaml` would.
pub fn write(config: &DeclarativeConfig, output: Output) -> String {
    let mut out = String::new();
    for item in ordered(config) {
        let text = compact_json(&item);
        match output {
            Output::Json => {
                out.push_str(&indent(&text, "    "));
                out.push('\n');
            }
            Output::Yaml => {
                out.push_str("---\n");
                out.push_str(&super::go_yaml::json_to_yaml(&text));
            }
        }
    }
    out
}

fn ordered(config: &DeclarativeConfig) -> Vec<Item<'_>> {
    #[derive(Default)]
    struct Group<'a> {
        packages: Vec<&'a Package>,
        channels: Vec<&'a Channel>,
        bundles: Vec<&'a Bundle>,
        others: Vec<&'a Meta>,
        deprecations: Vec<&'a Deprecation>,
    }
    let mut groups: BTreeMap<&str, Group<'_>> = BTreeMap::new();
    for p in &config.packages {
        groups.entry(&p.name).or_default().packages.push(p);
    }
    for c in &config.channels {
        groups.entry(&c.package).or_default().channels.push(c);
    }
    for b in &config.bundles {
        groups.entry(&b.package).or_default().bundles.push(b);
    }
    for o in &config.others {
        groups.entry(&o.package).or_default().others.push(o);
    }
    for d in &config.deprecations {
        groups.entry(&d.package).or_default().deprecations.push(d);
    }
    let mut items = Vec::new();
    let mut unpackaged = Vec::new();
    for (name, mut group) in groups {
        if name.is_empty() {
            // Only the other blobs of no package are written (opm drops the rest).
            unpackaged = group.others;
            continue;
        }
        super::go_sort::slice(&mut group.channels, |a, b| a.name < b.name);
        super::go_sort::slice(&mut group.bundles, |a, b| a.name < b.name);
        group.others.sort_by(|a, b| a.schema.cmp(&b.schema));
        items.extend(group.packages.into_iter().map(Item::Package));
        items.extend(group.channels.into_iter().map(Item::Channel));
        items.extend(group.bundles.into_iter().map(Item::Bundle));
        items.extend(group.others.into_iter().map(Item::Meta));
        items.extend(group.deprecations.into_iter().map(Item::Deprecation));
    }
    items.extend(unpackaged.into_iter().map(Item::Meta));
    items
}

/// Go's `json.Encoder` (HTML left alone) of one blob, compact.
fn compact_json(item: &Item<'_>) -> String {
    let mut o = Obj::new();
    match item {
        Item::Package(p) => {
            o.str("schema", &p.schema).str("name", &p.name);
            o.str("defaultChannel", &p.default_channel);
            if let Some(icon) = &p.icon {
                let mut i = Obj::new();
                let data = base64::engine::general_purpose::STANDARD.encode(&icon.data);
                i.str("base64data", &data)
                    .str("mediatype", &icon.media_type);
                o.raw("icon", &i.finish());
            }
            if !p.description.is_empty() {
                o.str("description", &p.description);
            }
            o.properties(&p.properties);
        }
        Item::Channel(c) => {
            o.str("schema", &c.schema)
                .str("name", &c.name)
                .str("package", &c.package);
            let entries = c.entries.as_ref().map(|entries| {
                entries.iter().map(|e| {
                    let mut x = Obj::new();
                    x.str("name", &e.name);
                    if !e.replaces.is_empty() {
                        x.str("replaces", &e.replaces);
                    }
                    if !e.skips.is_empty() {
                        x.raw("skips", &string_array(&e.skips));
                    }
                    if !e.skip_range.is_empty() {
                        x.str("skipRange", &e.skip_range);
                    }
                    x.finish()
                })
            });
            o.raw("entries", &nullable_array(entries));
            o.properties(&c.properties);
        }
        Item::Bundle(b) => {
            o.str("schema", &b.schema)
                .str("name", &b.name)
                .str("package", &b.package);
            o.str("image", &b.image);
            o.properties(&b.properties);
            if !b.related_images.is_empty() {
                let images = b.related_images.iter().map(|r| {
                    let mut x = Obj::new();
                    x.str("name", &r.name).str("image", &r.image);
                    x.finish()
                });
                o.raw("relatedImages", &nullable_array(Some(images)));
            }
        }
        Item::Deprecation(d) => {
            o.str("schema", &d.schema).str("package", &d.package);
            let entries = d.entries.as_ref().map(|entries| {
                entries.iter().map(|e| {
                    let mut r = Obj::new();
                    r.str("schema", &e.reference.schema);
                    if !e.reference.name.is_empty() {
                        r.str("name", &e.reference.name);
                    }
                    let mut x = Obj::new();
                    x.raw("reference", &r.finish()).str("message", &e.message);
                    x.finish()
                })
            });
            o.raw("entries", &nullable_array(entries));
        }
        Item::Meta(m) => return m.blob.clone(),
    }
    o.finish()
}

fn string_array(items: &[String]) -> String {
    let mut out = String::from("[");
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(&mut out, s, Html::Literal);
    }
    out.push(']');
    out
}

fn nullable_array(items: Option<impl Iterator<Item = String>>) -> String {
    let Some(items) = items else {
        return "null".into();
    };
    let mut out = String::from("[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&item);
    }
    out.push(']');
    out
}

/// A JSON object written field by field, in the order of a Go struct.
struct Obj(String);

impl Obj {
    fn new() -> Obj {
        Obj(String::from("{"))
    }

    fn key(&mut self, name: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        write_string(&mut self.0, name, Html::Literal);
        self.0.push(':');
    }

    fn str(&mut self, name: &str, value: &str) -> &mut Obj {
        self.key(name);
        write_string(&mut self.0, value, Html::Literal);
        self
    }

    fn raw(&mut self, name: &str, json: &str) -> &mut Obj {
        self.key(name);
        self.0.push_str(json);
        self
    }

    fn properties(&mut self, properties: &[Property]) {
        if properties.is_empty() {
            return;
        }
        let items = properties.iter().map(|p| {
            let mut x = Obj::new();
            x.str("type", &p.typ).raw("value", &compact(&p.value));
            x.finish()
        });
        self.raw("properties", &nullable_array(Some(items)));
    }

    fn finish(mut self) -> String {
        self.0.push('}');
        self.0
    }
}
