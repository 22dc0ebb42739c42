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
    fbc_registry::cli::main()
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
