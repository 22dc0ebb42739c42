//! The standard `process_*` metrics, read from `/proc/self` at each scrape
//! (Linux; elsewhere none are reported).

use super::labels::encode;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// The process collector.
#[derive(Debug)]
pub struct Process;

impl Collector for Process {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        #[cfg(target_os = "linux")]
        {
            if let Some(bytes) = resident_bytes() {
                let rss = ConstGauge::new(bytes as i64);
                encode(
                    &mut encoder,
                    "process_resident_memory_bytes",
                    "resident memory",
                    &rss,
                )?;
            }
            if let Some(seconds) = cpu_seconds() {
                let cpu = ConstCounter::new(seconds);
                encode(
                    &mut encoder,
                    "process_cpu_seconds",
                    "user and system CPU time",
                    &cpu,
                )?;
            }
            if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
                let open = ConstGauge::new(fds.count() as i64);
                encode(
                    &mut encoder,
                    "process_open_fds",
                    "open file descriptors",
                    &open,
                )?;
            }
            if let Some(max) = max_fds() {
                let max = ConstGauge::new(max as i64);
                encode(
                    &mut encoder,
                    "process_max_fds",
                    "the file descriptor limit",
                    &max,
                )?;
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = &mut encoder;
        Ok(())
    }
}

/// `VmRSS` of `/proc/self/status` (kB).
#[cfg(target_os = "linux")]
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Time on a CPU, the first field of `/proc/self/schedstat` (ns): user and
/// system time without the clock-tick rounding of `/proc/self/stat`.
#[cfg(target_os = "linux")]
fn cpu_seconds() -> Option<f64> {
    let schedstat = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let ns: u64 = schedstat.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

#[cfg(target_os = "linux")]
fn max_fds() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}
