//! What test binaries with a custom harness share: tests that need something the
//! machine may lack (the shared catalogs, a browser, `dot`) report themselves
//! **ignored, by name, with the reason**, instead of printing `ok` without running;
//! under CI (`CI` set to anything but `false`/`0`) a missing requirement fails them.
//! Built on libtest-mimic, which gives a custom harness libtest's output and flags.

#![allow(dead_code)]

use libtest_mimic::{Failed, Trial};
use std::path::PathBuf;

/// Whether this run is CI's.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A requirement of some tests: present (with a value), or absent (with the reason).
pub enum Requirement<T> {
    /// Available.
    Present(T),
    /// Not available here: the reason.
    Absent(String),
}

/// A directory named by an environment variable.
pub fn dir_from_env(var: &str, what: &str) -> Requirement<PathBuf> {
    match std::env::var_os(var) {
        Some(p) if PathBuf::from(&p).is_dir() => Requirement::Present(PathBuf::from(p)),
        Some(p) => Requirement::Absent(format!(
            "{var}={} is not a directory ({what})",
            PathBuf::from(p).display()
        )),
        None => Requirement::Absent(format!("{var} unset ({what})")),
    }
}

/// A program found on the PATH.
pub fn program_on_path(name: &str, what: &str) -> Requirement<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    });
    match found {
        Some(path) => Requirement::Present(path),
        None => Requirement::Absent(format!("{name} is not on the PATH ({what})")),
    }
}

/// A named test that takes the requirement's value.
pub type NamedTest<T> = (&'static str, fn(T) -> Result<(), Failed>);

/// Trials for `tests`, each given the requirement's value; when it is absent they
/// are ignored with the reason as their kind, or, under CI, fail with it.
pub fn trials<T: Clone + Send + 'static>(
    requirement: &Requirement<T>,
    tests: Vec<NamedTest<T>>,
) -> Vec<Trial> {
    tests
        .into_iter()
        .map(|(name, test)| match requirement {
            Requirement::Present(value) => {
                let value = value.clone();
                Trial::test(name, move || test(value))
            }
            Requirement::Absent(why) => {
                let why = why.clone();
                if in_ci() {
                    Trial::test(name, move || Err(format!("CI requires it: {why}").into()))
                } else {
                    let kind = format!("skipped: {why}");
                    Trial::test(name, move || Err(why.into()))
                        .with_ignored_flag(true)
                        .with_kind(kind)
                }
            }
        })
        .collect()
}

/// Runs an async test body on a fresh runtime.
pub fn block_on<F: std::future::Future<Output = ()>>(f: F) -> Result<(), Failed> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failed::from(format!("runtime: {e}")))?
        .block_on(f);
    Ok(())
}
