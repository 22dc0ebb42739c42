//! Loads a catalog directory and prints its packages, channels and channel heads,
//! or every problem found.
//!
//! ```sh
//! cargo run -p fbc-catalog --example list-packages -- catalogs/example
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: list-packages CATALOG_DIR");
        return ExitCode::from(2);
    };
    let options = fbc_catalog::load::LoadOptions::default();
    match fbc_catalog::load::load_model(std::path::Path::new(&dir), &options) {
        Ok(loaded) => {
            println!("digest {}", loaded.digest);
            for package in &loaded.model.packages {
                println!(
                    "{} (default channel {})",
                    package.name, package.default_channel
                );
                for channel in &package.channels {
                    println!("  {}: head {}", channel.name, channel.head_entry().name);
                }
            }
            ExitCode::SUCCESS
        }
        Err(problems) => {
            for problem in &problems {
                eprintln!("{problem}");
            }
            ExitCode::FAILURE
        }
    }
}
