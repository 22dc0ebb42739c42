//! Files and directories a process makes for itself and that a kill can leave behind:
//! named after their owner, so a later process removes what dead ones left.
//!
//! In: a name's owner (this process's id and a time stamp), or a prefix in the system's
//! temporary directory. Out: [`Owner`] (whether a name's writer may still be at it), and
//! [`dir`], a scratch directory (`{prefix}{pid}.{nanos}-XXXXXX`) made after removing
//! those of processes that are gone — what `serve IMAGE` without `--cache-dir` and
//! `--filter` unpack into, which a SIGKILL would otherwise leave in `$TMPDIR` for good.

use std::path::Path;

/// Who made a temporary name: a process id and when (nanoseconds since the epoch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Owner {
    pub pid: u32,
    pub stamp: u128,
}

impl Owner {
    /// This process, now. The first call fixes the process's epoch, so every stamp of
    /// this process is at or after it.
    pub fn now() -> Owner {
        let _ = process_epoch();
        Owner {
            pid: std::process::id(),
            stamp: now_nanos(),
        }
    }

    /// Whether the owner may still be using its name: this process, when stamped since
    /// its epoch (an earlier process with the same id — a container's PID 1 restarted —
    /// stamped before); another process, while it exists (on Linux; elsewhere always,
    /// so nothing in use is removed).
    pub fn alive(self) -> bool {
        if self.pid == std::process::id() {
            return self.stamp >= process_epoch();
        }
        if cfg!(target_os = "linux") {
            Path::new("/proc").join(self.pid.to_string()).exists()
        } else {
            true
        }
    }
}

/// When this process first stamped a name, in nanoseconds since the epoch.
pub fn process_epoch() -> u128 {
    static EPOCH: std::sync::OnceLock<u128> = std::sync::OnceLock::new();
    *EPOCH.get_or_init(now_nanos)
}

fn now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default()
}

/// A new scratch directory `{prefix}{pid}.{nanos}-XXXXXX` in the system's temporary
/// directory, removed when dropped; first removes the ones of `prefix` whose owner is gone.
pub fn dir(prefix: &str) -> std::io::Result<tempfile::TempDir> {
    dir_in(&std::env::temp_dir(), prefix)
}

fn dir_in(parent: &Path, prefix: &str) -> std::io::Result<tempfile::TempDir> {
    remove_dead(parent, prefix);
    let owner = Owner::now();
    tempfile::Builder::new()
        .prefix(&format!("{prefix}{}.{}-", owner.pid, owner.stamp))
        .tempdir_in(parent)
}

/// Removes the scratch directories of `prefix` in `parent` whose owner is gone.
fn remove_dead(parent: &Path, prefix: &str) {
    sweep(parent, |name| owner_of(name, prefix), "a scratch directory");
}

/// Removes the entries of `dir` (files or directories) whose name `owner_of` reads an
/// owner from and whose owner is gone; `what` names them in the log. Best effort: what
/// cannot be listed or removed stays.
pub fn sweep(dir: &Path, owner_of: impl Fn(&str) -> Option<Owner>, what: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(owner) = name.to_str().and_then(&owner_of) else {
            continue;
        };
        if owner.alive() {
            continue;
        }
        let path = entry.path();
        let removed = match entry.file_type() {
            Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(&path),
            _ => std::fs::remove_file(&path),
        };
        match removed {
            Ok(()) => {
                tracing::info!(path = %path.display(), "removed {what} of a process that is gone")
            }
            Err(e) => tracing::debug!(
                path = %path.display(),
                error = %e,
                "cannot remove {what} of a process that is gone"
            ),
        }
    }
}

/// The owner in a scratch directory's name `{prefix}{pid}.{nanos}-XXXXXX`.
fn owner_of(name: &str, prefix: &str) -> Option<Owner> {
    let (stamped, _random) = name.strip_prefix(prefix)?.split_once('-')?;
    let (pid, stamp) = stamped.split_once('.')?;
    Some(Owner {
        pid: pid.parse().ok()?,
        stamp: stamp.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_scratch_dir_removes_those_of_dead_owners_only() {
        let parent = tempfile::tempdir().expect("tmp");
        let me = std::process::id();
        let fresh = process_epoch() + 1;
        let dead = [
            format!("p-{}.1-abc", u32::MAX - 1),
            // an earlier process that had this one's id
            format!("p-{me}.2-abc"),
        ];
        let kept = [
            // pid 1 runs; a scratch directory of this process in use
            "p-1.3-abc".to_owned(),
            format!("p-{me}.{fresh}-abc"),
            // not of this prefix, or not a stamped name
            format!("q-{}.1-abc", u32::MAX - 1),
            "p-unstamped".to_owned(),
        ];
        for name in dead.iter().chain(&kept) {
            std::fs::create_dir(parent.path().join(name)).expect("mkdir");
            std::fs::write(parent.path().join(name).join("f"), b"x").expect("write");
        }
        let made = dir_in(parent.path(), "p-").expect("scratch");
        let name = made
            .path()
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name");
        assert_eq!(owner_of(name, "p-").map(|o| o.pid), Some(me), "{name}");
        for name in &dead {
            assert!(!parent.path().join(name).exists(), "{name} stayed");
        }
        for name in &kept {
            assert!(parent.path().join(name).exists(), "{name} was removed");
        }
    }
}
