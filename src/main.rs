//! The `fbc-registry` binary: parses the command line and runs it.

/// mimalloc, asked to hand the pages a load frees back to the OS (see `collect`): a
/// load parses the catalog into temporary trees that are freed once the index is
/// built, and glibc's allocator kept most of that memory (resident memory after
/// startup was 3–4 times the index).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Option numbers of mimalloc 3's `mi_option_e` (libmimalloc-sys exports only some
/// as constants). They differ from mimalloc 2's, hence the version check in `main`.
const MI_OPTION_PURGE_DELAY: i32 = 15;
const MI_OPTION_ALLOW_THP: i32 = 43;

fn main() -> std::process::ExitCode {
    // No transparent huge pages: a 2 MiB page stays resident when any byte of it is
    // touched, which added 10 MB to a 30 MB process (mimalloc advises its memory for
    // huge pages before `main` runs, so the option below comes too late for that).
    // It costs large catalogs more page faults at load (see docs/performance.md).
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments and only sets a flag of
    // this process; failure is harmless (huge pages stay allowed).
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
    // SAFETY: mi_version and mi_option_set only read and store integers in
    // mimalloc's tables; they run before any thread is spawned, with values in range.
    unsafe {
        if (300..400).contains(&libmimalloc_sys::mi_version()) {
            libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0);
            // Freed pages are returned after 100 ms instead of 10: a load frees and
            // re-allocates memory all along, and re-faulting purged pages is costly.
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 100);
        }
    }
    fbc_registry::catalog::set_release_memory_hook(collect);
    fbc_registry::cli::main()
}

/// Returns the pages freed by a load to the OS.
fn collect() {
    // SAFETY: mi_collect has no preconditions; it only walks mimalloc's own heaps.
    unsafe { libmimalloc_sys::mi_collect(true) }
}
