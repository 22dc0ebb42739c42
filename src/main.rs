//! The `fbc-registry` binary: parses the command line and runs it.

fn main() -> std::process::ExitCode {
    fbc_registry::cli::main()
}
