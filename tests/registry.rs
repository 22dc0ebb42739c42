//! Catalogs from a real registry: Debian's `docker-registry` (distribution 2.8.2) started on
//! loopback with its own config — plain, htpasswd basic auth, a bearer challenge, TLS from a
//! test CA — and images pushed by the tests. Through the real binary: `validate` and `serve`
//! of tag and digest references, credentials, refused images (each naming the image and why),
//! a digest altered in the registry's storage, platforms, zstd, whiteouts, hostile layers;
//! the image store across restarts with the registry gone; three catalogs in one process, one
//! of them an image; `render` of bundle images against opm's recorded output.
//!
//! A custom harness (see `support`): without `docker-registry` on the PATH every test here is
//! reported ignored, by name, with the reason; under CI (`.ci/run` installs it) they fail.

#[path = "registry/catalogs.rs"]
mod catalogs;
#[path = "registry/check_images.rs"]
mod check_images;
#[path = "registry/compose.rs"]
mod compose;
#[path = "registry/distribution.rs"]
mod distribution;
#[path = "registry/polls.rs"]
mod polls;
#[path = "integration/harness/process.rs"]
#[allow(dead_code)]
mod process;
#[path = "registry/publish.rs"]
mod publish;
#[path = "registry/pulls.rs"]
mod pulls;
#[path = "registry/render.rs"]
mod render;
mod support;

use libtest_mimic::Arguments;

fn main() {
    let args = Arguments::from_args();
    let registry = support::program_on_path(
        "docker-registry",
        "Debian's docker-registry, the registry these tests pull from",
    );
    let mut tests = pulls::TESTS.to_vec();
    tests.extend_from_slice(polls::TESTS);
    tests.extend_from_slice(catalogs::TESTS);
    tests.extend_from_slice(render::TESTS);
    tests.extend_from_slice(check_images::TESTS);
    tests.extend_from_slice(compose::TESTS);
    tests.extend_from_slice(publish::TESTS);
    let trials = support::trials(&registry, tests);
    libtest_mimic::run(&args, trials).exit();
}
