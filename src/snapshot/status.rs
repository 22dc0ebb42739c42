//! Where the served catalog came from and how its updates fare, said as a ClusterCatalog's
//! status says it.
//!
//! In: the first load (directory or image, resolved digest, unpack time), then every poll's
//! outcome ([`SourceStatus::served`], [`SourceStatus::unchanged`], [`SourceStatus::failed`]).
//! Out: [`SourceStatus::to_json`], catalogd's `status` shape: the `Serving` and `Progressing`
//! conditions with catalogd's reasons and messages (`Available`; `Succeeded`, `Retrying`,
//! `Blocked`), `resolvedSource` (`name@sha256:…`), `urls.base`, `lastUnpacked`, plus
//! `lastSuccessfulPoll`, which catalogd keeps in memory only. As in catalogd, a failed
//! update leaves `Serving` as it was: the last good catalog is still served.

use crate::snapshot::fetch::ImageInfo;
use fbc_image::reference::CatalogSource;
use std::sync::Mutex;
use std::time::SystemTime;

/// catalogd's messages, word for word.
const SUCCEEDED: &str = "Successfully unpacked and stored content from resolved source";
const AVAILABLE: &str = "Serving desired content from resolved source";

/// The status of the one catalog a server serves.
#[derive(Debug)]
pub struct SourceStatus {
    state: Mutex<State>,
}

/// One condition.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Condition {
    status: bool,
    reason: &'static str,
    message: String,
    since: SystemTime,
}

impl Condition {
    fn new(status: bool, reason: &'static str, message: String) -> Condition {
        Condition {
            status,
            reason,
            message,
            since: SystemTime::now(),
        }
    }

    /// Becomes `next`, keeping the transition time when status and reason stay.
    fn become_(&mut self, next: Condition) {
        let since = if (self.status, self.reason) == (next.status, next.reason) {
            self.since
        } else {
            next.since
        };
        *self = Condition { since, ..next };
    }

    fn json(&self, kind: &str) -> serde_json::Value {
        serde_json::json!({
            "type": kind,
            "status": if self.status { "True" } else { "False" },
            "reason": self.reason,
            "message": self.message,
            "lastTransitionTime": rfc3339(self.since),
        })
    }
}

#[derive(Debug)]
struct State {
    /// The image served, when the catalog is one.
    image: Option<ImageInfo>,
    /// Whether the source is polled.
    polled: bool,
    last_unpacked: Option<SystemTime>,
    last_successful_poll: Option<SystemTime>,
    serving: Condition,
    progressing: Condition,
}

impl SourceStatus {
    /// The status after the first load of a directory, or of `image` unpacked at `unpacked`.
    pub fn new(image: Option<ImageInfo>, unpacked: Option<SystemTime>, polled: bool) -> Self {
        SourceStatus {
            state: Mutex::new(State {
                last_successful_poll: image.is_some().then(SystemTime::now),
                image,
                polled,
                last_unpacked: unpacked,
                serving: Condition::new(true, "Available", AVAILABLE.to_owned()),
                progressing: Condition::new(true, "Succeeded", SUCCEEDED.to_owned()),
            }),
        }
    }

    /// A catalog whose first load has not succeeded yet: not `Serving`, `Progressing`.
    pub fn starting(source: &str) -> Self {
        SourceStatus {
            state: Mutex::new(State {
                last_successful_poll: None,
                image: None,
                polled: false,
                last_unpacked: None,
                serving: Condition::new(false, "Unavailable", format!("{source} is being loaded")),
                progressing: Condition::new(true, "Retrying", format!("loading {source}")),
            }),
        }
    }

    /// The first load succeeded: serving `image` (when it is one), unpacked at `unpacked`.
    pub fn loaded(&self, image: Option<ImageInfo>, unpacked: Option<SystemTime>, polled: bool) {
        self.with(|s| {
            s.last_successful_poll = image.is_some().then(SystemTime::now);
            s.image = image;
            s.polled = polled;
            s.last_unpacked = unpacked;
            s.serving
                .become_(Condition::new(true, "Available", AVAILABLE.to_owned()));
            s.progressing
                .become_(Condition::new(true, "Succeeded", SUCCEEDED.to_owned()));
        });
    }

    /// The first load failed and will be tried again: nothing is served yet.
    pub fn unavailable(&self, message: String) {
        self.with(|s| {
            s.serving.become_(Condition::new(
                false,
                "Unavailable",
                "the catalog has not loaded".to_owned(),
            ));
            s.progressing
                .become_(Condition::new(true, "Retrying", message));
        });
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> Option<T> {
        self.state.lock().ok().map(|mut state| f(&mut state))
    }

    /// A new image is served, unpacked at `unpacked`.
    pub fn served(&self, image: ImageInfo, unpacked: Option<SystemTime>) {
        self.with(|s| {
            s.image = Some(image);
            s.last_unpacked = unpacked.or(s.last_unpacked);
            s.last_successful_poll = Some(SystemTime::now());
            s.progressing
                .become_(Condition::new(true, "Succeeded", SUCCEEDED.to_owned()));
        });
    }

    /// A poll found the served digest.
    pub fn unchanged(&self) {
        self.with(|s| {
            s.last_successful_poll = Some(SystemTime::now());
            s.progressing
                .become_(Condition::new(true, "Succeeded", SUCCEEDED.to_owned()));
        });
    }

    /// An update failed: `Retrying` when trying again may help, `Blocked` when only a new
    /// image will. The served catalog stays, and so does `Serving`.
    pub fn failed(&self, message: String, retrying: bool) {
        self.with(|s| {
            let (status, reason) = if retrying {
                (true, "Retrying")
            } else {
                (false, "Blocked")
            };
            s.progressing
                .become_(Condition::new(status, reason, message));
        });
    }

    /// The status as catalogd's ClusterCatalog `status`, for the catalog `name`.
    pub fn to_json(&self, name: &str) -> serde_json::Value {
        self.with(|s| {
            let resolved = match &s.image {
                Some(image) => serde_json::json!({
                    "type": "Image",
                    "image": {"ref": resolved_ref(image)},
                }),
                None => serde_json::json!({"type": "Directory"}),
            };
            let mut status = serde_json::json!({
                "conditions": [s.serving.json("Serving"), s.progressing.json("Progressing")],
                "resolvedSource": resolved,
                "urls": {"base": format!("/catalogs/{name}")},
            });
            if let Some(at) = s.last_unpacked {
                status["lastUnpacked"] = rfc3339(at).into();
            }
            if s.polled
                && let Some(at) = s.last_successful_poll
            {
                status["lastSuccessfulPoll"] = rfc3339(at).into();
            }
            serde_json::json!({
                "name": name,
                "source": s.image.as_ref().map(|i| i.reference.clone()),
                "status": status,
            })
        })
        .unwrap_or(serde_json::Value::Null)
    }
}

/// The canonical reference of the served image: `registry/repository@sha256:…`, or
/// `oci-layout:PATH@sha256:…`.
pub fn resolved_ref(image: &ImageInfo) -> String {
    match CatalogSource::parse(&image.reference) {
        Ok(CatalogSource::Registry(r)) => {
            format!("{}/{}@{}", r.registry, r.repository, image.digest)
        }
        Ok(CatalogSource::Layout(l)) => {
            format!("oci-layout:{}@{}", l.path.display(), image.digest)
        }
        _ => format!("{}@{}", image.reference, image.digest),
    }
}

/// `at` in RFC 3339, whole seconds, UTC.
fn rfc3339(at: SystemTime) -> String {
    humantime::format_rfc3339_seconds(at).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(tag: &str, digest_of: &[u8]) -> ImageInfo {
        ImageInfo {
            reference: format!("quay.io/org/catalog:{tag}"),
            digest: fbc_image::Digest::of(digest_of),
            name: "catalog".into(),
        }
    }

    fn condition<'a>(json: &'a serde_json::Value, kind: &str) -> &'a serde_json::Value {
        json["status"]["conditions"]
            .as_array()
            .and_then(|all| all.iter().find(|c| c["type"] == kind))
            .unwrap_or(&serde_json::Value::Null)
    }

    #[test]
    fn conditions_follow_catalogds_reasons_and_serving_stays_on_failure() {
        let first = image("v1", b"a");
        let status = SourceStatus::new(Some(first.clone()), Some(SystemTime::UNIX_EPOCH), true);
        let json = status.to_json("catalog");
        assert_eq!(condition(&json, "Serving")["reason"], "Available");
        assert_eq!(condition(&json, "Progressing")["reason"], "Succeeded");
        assert_eq!(
            json["status"]["resolvedSource"]["image"]["ref"],
            format!("quay.io/org/catalog@{}", first.digest)
        );
        assert_eq!(json["status"]["lastUnpacked"], "1970-01-01T00:00:00Z");

        status.failed("connection refused".into(), true);
        let json = status.to_json("catalog");
        let progressing = condition(&json, "Progressing");
        assert_eq!(
            (&progressing["status"], &progressing["reason"]),
            (&"True".into(), &"Retrying".into())
        );
        assert_eq!(condition(&json, "Serving")["status"], "True");

        status.failed("the image's catalog is invalid".into(), false);
        let json = status.to_json("catalog");
        assert_eq!(condition(&json, "Progressing")["status"], "False");
        assert_eq!(condition(&json, "Progressing")["reason"], "Blocked");

        let second = image("v1", b"b");
        status.served(second.clone(), None);
        let json = status.to_json("catalog");
        assert_eq!(condition(&json, "Progressing")["reason"], "Succeeded");
        assert_eq!(
            json["status"]["resolvedSource"]["image"]["ref"],
            format!("quay.io/org/catalog@{}", second.digest)
        );
        assert_eq!(
            json["status"]["lastUnpacked"], "1970-01-01T00:00:00Z",
            "kept"
        );
    }

    #[test]
    fn a_directory_has_no_image_and_no_poll() {
        let json = SourceStatus::new(None, None, false).to_json("dir");
        assert_eq!(json["status"]["resolvedSource"]["type"], "Directory");
        assert!(json["status"].get("lastSuccessfulPoll").is_none());
        assert_eq!(json["status"]["urls"]["base"], "/catalogs/dir");
    }
}
