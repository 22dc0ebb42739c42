//! Diagnostics: every problem found in a catalog, as a typed value.
//!
//! In: the loader's [`LoadError`]s and the model's findings. Out: [`Diagnostic`]s
//! carrying where (file, document, line, column, byte offset), what (package,
//! channel, bundle, field), which [`Kind`] of problem and a message. They are
//! values end to end: the CLI prints them as text or as JSON objects, the server
//! logs them, and the termination log gets the first one.
//!
//! The text form reads `file: document 2 (line 14): package "p", bundle "b": message`,
//! leaving out whatever is not known.

use crate::source::limits::Limit;
use crate::source::{LoadError, Origin};
use std::fmt;
use std::sync::Arc;

/// What kind of problem a diagnostic reports (stable names, for tools).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A file or directory could not be read.
    Io,
    /// A path names a FIFO, socket or device instead of a file or directory.
    NotRegularFile,
    /// An `.indexignore` pattern does not compile.
    IgnorePattern,
    /// A character or byte the JSON or YAML specification does not allow.
    Encoding,
    /// JSON or YAML that is not well-formed.
    Syntax,
    /// A parsing limit was exceeded (see [`Diagnostic::limit`]).
    Limit,
    /// A document that is not an object, or whose `schema`/`package`/`name` is wrong.
    Envelope,
    /// A field of a known schema has the wrong type or shape.
    Decode,
    /// A name that refers to nothing (an unknown package, a missing bundle).
    Reference,
    /// The same package, channel, bundle or entry defined twice.
    Duplicate,
    /// A value that breaks a rule (a name, version, image reference, range).
    Invalid,
    /// An upgrade-graph rule: channel heads, replaces cycles, stranded bundles.
    Graph,
    /// The load did not finish within its deadline.
    Timeout,
    /// A defect of this program (a worker failed); please report it.
    Internal,
}

/// Where a problem was found; every part is optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// Path relative to the catalog root (or as given, for the root itself).
    pub file: Option<Arc<str>>,
    /// 1-based JSON value or YAML document number within the file.
    pub document: Option<usize>,
    /// 1-based line within the file.
    pub line: Option<usize>,
    /// 1-based column, when the parser reports one.
    pub column: Option<usize>,
    /// Byte offset within the file, when known exactly.
    pub offset: Option<u64>,
}

impl Location {
    /// A whole file.
    pub fn file(file: impl Into<Arc<str>>) -> Self {
        Location {
            file: Some(file.into()),
            ..Location::default()
        }
    }

    fn is_empty(&self) -> bool {
        self.file.is_none() && self.document.is_none() && self.line.is_none()
    }
}

impl From<&Origin> for Location {
    fn from(origin: &Origin) -> Self {
        Location {
            file: Some(origin.file.clone()),
            document: Some(origin.document),
            line: Some(origin.line),
            column: None,
            offset: None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(file) = &self.file {
            parts.push(file.to_string());
        }
        let mut position = Vec::new();
        if let Some(line) = self.line {
            position.push(format!("line {line}"));
        }
        if let Some(column) = self.column {
            position.push(format!("column {column}"));
        }
        if let Some(offset) = self.offset {
            position.push(format!("byte {offset}"));
        }
        match self.document {
            Some(d) if position.is_empty() => parts.push(format!("document {d}")),
            Some(d) => parts.push(format!("document {d} ({})", position.join(", "))),
            None if !position.is_empty() => parts.push(position.join(", ")),
            None => {}
        }
        f.write_str(&parts.join(": "))
    }
}

/// One problem with a catalog: where, which object, what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// What kind of problem.
    pub kind: Kind,
    /// Where it was found.
    pub location: Location,
    /// Package name, or empty.
    pub package: String,
    /// Channel name, or empty.
    pub channel: String,
    /// Bundle name, or empty.
    pub bundle: String,
    /// The field at fault (`defaultChannel`, `entries[2].skipRange`, …), when one is.
    pub field: Option<String>,
    /// The limit exceeded, for [`Kind::Limit`].
    pub limit: Option<Limit>,
    /// What is wrong.
    pub message: String,
    /// What to do about it, in plain words, when there is more to say than the
    /// message (which keeps opm's wording). Printed by `lint`, and in JSON.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// A diagnostic of `kind` at `location`.
    pub fn new(kind: Kind, location: Location, message: impl Into<String>) -> Self {
        Diagnostic {
            kind,
            location,
            package: String::new(),
            channel: String::new(),
            bundle: String::new(),
            field: None,
            limit: None,
            message: message.into(),
            hint: None,
        }
    }

    /// A diagnostic of `kind` about the blob read at `origin`, if known.
    pub fn at(kind: Kind, origin: Option<&Origin>, message: impl Into<String>) -> Self {
        Self::new(
            kind,
            origin.map(Location::from).unwrap_or_default(),
            message,
        )
    }

    /// Names the package.
    pub fn package(mut self, p: &str) -> Self {
        self.package = p.to_string();
        self
    }

    /// Names the channel.
    pub fn channel(mut self, c: &str) -> Self {
        self.channel = c.to_string();
        self
    }

    /// Names the bundle.
    pub fn bundle(mut self, b: &str) -> Self {
        self.bundle = b.to_string();
        self
    }

    /// Names the field at fault.
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: Option<String>) -> Self {
        self.hint = hint;
        self
    }

    /// Sets the kind.
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = kind;
        self
    }

    /// The subject, e.g. `package "p", bundle "b"`, or empty.
    fn subject(&self) -> String {
        let mut subject = Vec::new();
        if !self.package.is_empty() {
            subject.push(format!("package {:?}", self.package));
        }
        if !self.channel.is_empty() {
            subject.push(format!("channel {:?}", self.channel));
        }
        if !self.bundle.is_empty() {
            subject.push(format!("bundle {:?}", self.bundle));
        }
        subject.join(", ")
    }
}

/// The first `shown` of `diagnostics` on one line, `; `-separated, with how many more
/// there are: for a message that must stay short (a status, a refusal, a CLI error).
pub fn first_few(diagnostics: &[Diagnostic], shown: usize) -> String {
    let mut text = diagnostics
        .iter()
        .take(shown)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    if diagnostics.len() > shown {
        text.push_str(&format!(" (and {} more)", diagnostics.len() - shown));
    }
    text
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.location.is_empty() {
            write!(f, "{}: ", self.location)?;
        }
        let subject = self.subject();
        if !subject.is_empty() {
            write!(f, "{subject}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// The JSON form: `kind`, `message`, then whatever else is known.
impl serde::Serialize for Diagnostic {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
        let l = &self.location;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", &self.kind)?;
        let optional: [(&str, Option<serde_json::Value>); 10] = [
            ("file", l.file.as_deref().map(Into::into)),
            ("document", l.document.map(Into::into)),
            ("line", l.line.map(Into::into)),
            ("column", l.column.map(Into::into)),
            ("offset", l.offset.map(Into::into)),
            ("package", non_empty(&self.package).map(Into::into)),
            ("channel", non_empty(&self.channel).map(Into::into)),
            ("bundle", non_empty(&self.bundle).map(Into::into)),
            ("field", self.field.clone().map(Into::into)),
            (
                "limit",
                self.limit.map(|l| serde_json::Value::from(l.flag())),
            ),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                map.serialize_entry(key, &value)?;
            }
        }
        map.serialize_entry("message", &self.message)?;
        if let Some(hint) = &self.hint {
            map.serialize_entry("hint", hint)?;
        }
        map.end()
    }
}

impl From<&LoadError> for Diagnostic {
    // Long by nature: one arm per load error, each naming its location fields.
    fn from(e: &LoadError) -> Self {
        match e {
            LoadError::Io { path, message } => {
                Diagnostic::new(Kind::Io, Location::file(path.as_str()), message)
            }
            LoadError::NotRegular { path, found } => Diagnostic::new(
                Kind::NotRegularFile,
                Location::file(path.as_str()),
                format!("not a regular file or directory ({found}); only regular files are read"),
            ),
            LoadError::IgnorePattern {
                path,
                line,
                message,
            } => Diagnostic::new(
                Kind::IgnorePattern,
                Location {
                    line: Some(*line),
                    ..Location::file(path.as_str())
                },
                format!("invalid ignore pattern: {message}"),
            ),
            LoadError::Json {
                file,
                document,
                line,
                column,
                message,
            } => Diagnostic::new(
                Kind::Syntax,
                Location {
                    document: Some(*document),
                    line: Some(*line),
                    column: Some(*column),
                    ..Location::file(file.as_str())
                },
                format!("invalid JSON: {message}"),
            ),
            LoadError::Yaml {
                file,
                document,
                line,
                message,
            } => Diagnostic::new(
                Kind::Syntax,
                Location {
                    document: Some(*document),
                    line: Some(*line),
                    ..Location::file(file.as_str())
                },
                format!("invalid YAML: {message}"),
            ),
            LoadError::ForbiddenCharacter {
                file,
                document,
                line,
                offset,
                message,
            } => Diagnostic::new(
                Kind::Encoding,
                Location {
                    document: *document,
                    line: Some(*line),
                    offset: Some(*offset),
                    ..Location::file(file.as_str())
                },
                message,
            ),
            LoadError::Limit {
                file,
                document,
                line,
                limit,
                message,
            } => Diagnostic {
                limit: Some(*limit),
                ..Diagnostic::new(
                    Kind::Limit,
                    Location {
                        document: *document,
                        line: *line,
                        ..Location::file(file.as_str())
                    },
                    message,
                )
            },
            LoadError::Separator { file, line, text } => Diagnostic::new(
                Kind::Syntax,
                Location {
                    line: Some(*line),
                    ..Location::file(file.as_str())
                },
                format!(
                    "invalid YAML document separator: {text:?} (only a comment may follow `---`)"
                ),
            ),
            LoadError::NotAnObject { origin, found } => Diagnostic::at(
                Kind::Envelope,
                Some(origin),
                format!("a catalog object must be a JSON object, found {found}"),
            ),
            LoadError::Envelope {
                origin,
                field,
                message,
            } => {
                let d = Diagnostic::at(Kind::Envelope, Some(origin), message);
                match field {
                    Some(field) => d.field(*field),
                    None => d,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin() -> Origin {
        Origin {
            file: Arc::from("p/catalog.yaml"),
            document: 2,
            line: 14,
        }
    }

    #[test]
    fn text_names_location_subject_and_message() {
        let d = Diagnostic::at(Kind::Invalid, Some(&origin()), "bad version")
            .package("p")
            .bundle("p.v1");
        assert_eq!(
            d.to_string(),
            "p/catalog.yaml: document 2 (line 14): package \"p\", bundle \"p.v1\": bad version"
        );
        assert_eq!(
            Diagnostic::at(Kind::Graph, None, "m")
                .package("p")
                .to_string(),
            "package \"p\": m"
        );
    }

    #[test]
    fn json_has_kind_and_message_and_only_known_parts() {
        let d = Diagnostic::at(Kind::Reference, Some(&origin()), "not found")
            .package("p")
            .field("defaultChannel");
        assert_eq!(
            serde_json::to_value(&d).expect("json"),
            serde_json::json!({"kind": "reference", "file": "p/catalog.yaml", "document": 2,
                "line": 14, "package": "p", "field": "defaultChannel", "message": "not found"})
        );
    }

    /// Converting a load error keeps its text: logs and tests read the same words.
    #[test]
    fn a_converted_load_error_reads_as_before() {
        let errors = [
            LoadError::Io {
                path: "a.yaml".into(),
                message: "Permission denied".into(),
            },
            LoadError::NotRegular {
                path: "pipe".into(),
                found: "a FIFO",
            },
            LoadError::IgnorePattern {
                path: ".indexignore".into(),
                line: 3,
                message: "bad".into(),
            },
            LoadError::Json {
                file: "a.json".into(),
                document: 1,
                line: 2,
                column: 3,
                message: "EOF".into(),
            },
            LoadError::Yaml {
                file: "a.yaml".into(),
                document: 4,
                line: 5,
                message: "bad".into(),
            },
            LoadError::ForbiddenCharacter {
                file: "a.yaml".into(),
                document: Some(1),
                line: 2,
                offset: 9,
                message: "invalid YAML: control character U+0000 is not allowed".into(),
            },
            LoadError::Limit {
                file: "a.yaml".into(),
                document: Some(1),
                line: Some(1),
                limit: Limit::Depth,
                message: "nesting deeper than 100 levels".into(),
            },
            LoadError::Separator {
                file: "a.yaml".into(),
                line: 7,
                text: "x".into(),
            },
            LoadError::NotAnObject {
                origin: origin(),
                found: "an array",
            },
            LoadError::Envelope {
                origin: origin(),
                field: Some("name"),
                message: "expected a string".into(),
            },
        ];
        for e in &errors {
            assert_eq!(Diagnostic::from(e).to_string(), e.to_string(), "{e:?}");
        }
    }
}
