//! The `fbc-registry` binary: parses the command line and runs it.

/// mimalloc, asked to hand the pages a load frees back to the OS (see `collect`): a
/// load parses the whole catalog into temporary trees that are freed once the index
/// is built, and glibc's allocator kept most of that memory (resident memory after
/// startup was 3–4 times the index). Purging is not made immediate: re-faulting
/// purged pages cost two thirds of a large load's time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

// Option numbers from mimalloc 2's `mi_option_e` (not all are exported as constants).
const MI_OPTION_ARENA_EAGER_COMMIT: i32 = 1;
const MI_OPTION_ABANDONED_PAGE_PURGE: i32 = 11;

fn main() -> std::process::ExitCode {
    // SAFETY: mi_option_set only stores an integer in mimalloc's option table; it
    // is called before any thread is spawned and the values are in range.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(MI_OPTION_ABANDONED_PAGE_PURGE, 1);
    }
    fbc_registry::catalog::set_release_memory_hook(collect);
    fbc_registry::cli::main()
}

/// Returns the pages freed by a load to the OS.
fn collect() {
    // SAFETY: mi_collect has no preconditions; it only walks mimalloc's own heaps.
    unsafe { libmimalloc_sys::mi_collect(true) }
}
