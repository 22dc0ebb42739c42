//! The `fbc-registry` binary: parses the command line and runs it.

/// mimalloc, asked to hand the pages a load frees back to the OS (see `collect`): a
/// load parses the catalog into temporary trees that are freed once the index is
/// built, and glibc's allocator kept most of that memory (resident memory after
/// startup was 3–4 times the index).
#[cfg(not(feature = "system-allocator"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[allow(
    unsafe_code,
    reason = "prctl: the one process-wide switch for huge pages"
)]
fn main() -> std::process::ExitCode {
    // No transparent huge pages: a 2 MiB page stays resident when any byte of it is
    // touched, which added 10 MB to a 30 MB process. mimalloc advises its arena for
    // huge pages before `main` runs, so this has to be the process-wide switch.
    // It costs large catalogs more page faults at load (see docs/performance.md).
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments and only sets a flag of
    // this process; failure is harmless (huge pages stay allowed).
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    fbc_registry::snapshot::load::set_release_memory_hook(collect);
    #[cfg(all(target_os = "linux", not(feature = "system-allocator")))]
    if serves() {
        fbc_registry::snapshot::load::set_loading_hook(purge_at_once);
    } else {
        purge_at_exit();
    }
    fbc_registry::cli::main()
}

/// Whether this process serves (`serve`, also as `opm serve`): the others are one-shot
/// commands that end soon after their work.
#[cfg(all(target_os = "linux", not(feature = "system-allocator")))]
fn serves() -> bool {
    std::env::args_os().nth(1).is_some_and(|a| a == "serve")
}

/// A one-shot command (`validate`, `filter`, `diff`, …) keeps the pages it frees for
/// reuse instead of handing each back at once: the process ends soon and returns all
/// of them then. Handing back was 7 % of a large filter's time (madvise per free).
#[cfg(all(target_os = "linux", not(feature = "system-allocator")))]
#[allow(
    unsafe_code,
    reason = "mimalloc's options are set through a C function"
)]
fn purge_at_exit() {
    const ONE_SHOT_DELAY_MS: std::ffi::c_long = 1000;
    // SAFETY: as in `tune_allocator`; purge_delay is read at each purge.
    unsafe { libmimalloc_sys::mi_option_set(mi_option::PURGE_DELAY, ONE_SHOT_DELAY_MS) }
}

/// mimalloc's options, by their numbers in its `mimalloc.h` (the same in v2 and v3;
/// `libmimalloc-sys` names only some of them).
#[cfg(all(target_os = "linux", not(feature = "system-allocator")))]
mod mi_option {
    /// Commit arena memory up front (default 2: on systems that overcommit).
    pub const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    /// Milliseconds before freed pages are handed back (default 10; arenas ×10).
    pub const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
}

/// Run before `main` (an `.init_array` entry): the Rust runtime's first allocation
/// reserves mimalloc's first arena, and an arena's commit policy is fixed then.
#[cfg(all(target_os = "linux", not(feature = "system-allocator")))]
#[allow(unsafe_code, reason = "a constructor entry is a link section")]
#[used]
#[unsafe(link_section = ".init_array")]
static TUNE_ALLOCATOR: extern "C" fn() = tune_allocator;

/// Arena memory is committed as it is used (community-v4.16: cold peak −3 MiB,
/// resting −1.7 MiB), and until the first load ends (see [`purge_at_once`]) freed
/// pages go back to the OS at once.
#[cfg(all(target_os = "linux", not(feature = "system-allocator")))]
#[allow(
    unsafe_code,
    reason = "mimalloc's options are set through a C function"
)]
extern "C" fn tune_allocator() {
    // SAFETY: mi_option_set takes an option number and a value and only stores
    // them; both numbers are options of the linked mimalloc.
    unsafe {
        libmimalloc_sys::mi_option_set(mi_option::PURGE_DELAY, 0);
        libmimalloc_sys::mi_option_set(mi_option::ARENA_EAGER_COMMIT, 0);
    }
}

/// While a cold load runs, freed pages go back to the OS at once instead of 10–100
/// ms later: a load frees each file's parse trees while it parses the next, and with
/// the delay they were all still resident — community-v4.16's cold peak was 66 MiB,
/// 47 MiB with this (see docs/performance.md, "Memory"). While serving, the default
/// delay, so that replies do not hand pages back call by call.
#[cfg(all(target_os = "linux", not(feature = "system-allocator")))]
#[allow(
    unsafe_code,
    reason = "mimalloc's options are set through a C function"
)]
fn purge_at_once(loading: bool) {
    const SERVING_DELAY_MS: std::ffi::c_long = 10;
    let delay = if loading { 0 } else { SERVING_DELAY_MS };
    // SAFETY: as in `tune_allocator`; purge_delay is read at each purge.
    unsafe { libmimalloc_sys::mi_option_set(mi_option::PURGE_DELAY, delay) }
    if !loading {
        fbc_registry::snapshot::mapped::forget_code_pages();
    }
}

/// Returns the pages freed by a load to the OS.
#[allow(unsafe_code, reason = "mimalloc's collect is a C function")]
fn collect() {
    #[cfg(not(feature = "system-allocator"))]
    // SAFETY: mi_collect has no preconditions; it only walks mimalloc's own heaps.
    unsafe {
        libmimalloc_sys::mi_collect(true)
    }
}
