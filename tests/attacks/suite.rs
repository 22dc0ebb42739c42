//! The attack trials: each attack against a fresh server, on each wire, with what the
//! server must do about it.

use crate::frames::*;
use crate::h2::{self, Attacked, Sustained};
use crate::http1;
use crate::probe::{self, Report};
use crate::target::{Target, Wire};
use crate::tls;
use libtest_mimic::{Failed, Trial};
use std::sync::Arc;
use std::time::Duration;

const MIB: u64 = 1 << 20;

/// The stall timeout the servers under attack run with.
const STALL: Duration = Duration::from_secs(2);

type Check = fn(Wire) -> Result<(), String>;

/// Every trial, named `LISTENER::ATTACK::WIRE`.
pub fn trials() -> Vec<Trial> {
    let attacks: &[(&str, Check, &[Wire])] = &[
        ("grpc::rapid_reset", rapid_reset, &Wire::BOTH),
        ("grpc::made_you_reset", made_you_reset, &Wire::BOTH),
        ("grpc::continuation_flood", continuation_flood, &Wire::BOTH),
        ("grpc::hpack_bomb", hpack_bomb, &Wire::BOTH),
        ("grpc::settings_flood", settings_flood, &Wire::BOTH),
        ("grpc::ping_flood", ping_flood, &Wire::BOTH),
        ("grpc::zero_window", zero_window, &Wire::BOTH),
        (
            "grpc::window_update_abuse",
            window_update_abuse,
            &Wire::BOTH,
        ),
        ("grpc::unread_streams", unread_streams, &Wire::BOTH),
        ("grpc::oversized_headers", oversized_headers, &Wire::BOTH),
        ("http::slowloris", slowloris, &Wire::BOTH),
        ("http::slow_post", slow_post, &Wire::BOTH),
        ("http::endless_headers", endless_headers, &Wire::BOTH),
        (
            "grpc::tls_handshake_flood",
            grpc_handshake_flood,
            &[Wire::Tls],
        ),
        (
            "http::tls_handshake_flood",
            http_handshake_flood,
            &[Wire::Tls],
        ),
    ];
    attacks
        .iter()
        .flat_map(|(name, check, wires)| {
            wires.iter().map(move |wire| {
                let (check, wire) = (*check, *wire);
                Trial::test(format!("{name}::{}", wire.name()), move || {
                    check(wire).map_err(Failed::from)
                })
            })
        })
        .collect()
}

fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(f)
}

/// Starts a server on `wire`, runs `attack` with the probes beside it.
fn attack<T: std::fmt::Debug, F>(wire: Wire, attack: impl FnOnce(Arc<Target>) -> F) -> Report<T>
where
    F: std::future::Future<Output = T>,
{
    let stall = format!("--stall-timeout={}s", STALL.as_secs());
    let target = Arc::new(Target::start(wire, &[&stall]));
    block_on(probe::run(&target, attack(target.clone())))
}

fn goaway(a: &Attacked, code: u32) -> Result<(), String> {
    if !a.seen.goaway.contains(&code) {
        return Err(format!("expected GOAWAY {code:#x}, saw {:?}", a.seen));
    }
    if a.closed_after.is_none() {
        return Err("the connection was not closed after its GOAWAY".into());
    }
    Ok(())
}

fn both(a: Result<(), String>, b: Result<(), String>) -> Result<(), String> {
    match (a, b) {
        (Ok(()), Ok(())) => Ok(()),
        (Err(a), Ok(())) | (Ok(()), Err(a)) => Err(a),
        (Err(a), Err(b)) => Err(format!("{a}; {b}")),
    }
}

/// How long an attack that the server ends at once is repeated, connection after
/// connection.
const SUSTAIN: Duration = Duration::from_secs(3);

/// Runs `one` connection after connection for [`SUSTAIN`], then checks each.
fn sustained<F>(
    wire: Wire,
    one: fn(Arc<Target>) -> F,
    each: impl Fn(&Attacked) -> Result<(), String>,
) -> Result<(), String>
where
    F: std::future::Future<Output = Attacked>,
{
    let r = attack(wire, |t| Sustained::run(SUSTAIN, move || one(t.clone())));
    let per = r.cpu().as_secs_f64() * 1e3 / r.attack.0.len() as f64;
    let streams: u64 = r.attack.0.iter().map(|a| u64::from(a.streams)).sum();
    let sent: u64 = r.attack.0.iter().map(|a| a.sent).sum();
    println!(
        "{} connections, {streams} streams, {} KiB written; server CPU {per:.2} ms per connection",
        r.attack.0.len(),
        sent / 1024
    );
    // a sustained attack may keep one core busy (the attacker has the other), no more
    both(
        r.attack.each(each),
        r.check(32 * MIB, SUSTAIN + Duration::from_secs(1)),
    )
}

fn rapid_reset(wire: Wire) -> Result<(), String> {
    sustained(
        wire,
        |t| async move { h2::rapid_reset(&t).await },
        |a| goaway(a, ENHANCE_YOUR_CALM),
    )
}

/// The connection was closed within `within` of the attack's start.
fn closed_within(a: &Attacked, within: Duration) -> Result<(), String> {
    match a.closed_after {
        Some(after) if after <= within => Ok(()),
        _ => Err(format!(
            "the connection was not closed within {within:?}: {a:?}"
        )),
    }
}

fn made_you_reset(wire: Wire) -> Result<(), String> {
    // past 1024 streams the server had to reset (hyper's limit, set explicitly)
    sustained(
        wire,
        |t| async move { h2::made_you_reset(&t).await },
        |a| goaway(a, ENHANCE_YOUR_CALM),
    )
}

fn continuation_flood(wire: Wire) -> Result<(), String> {
    // h2 stops buffering a header block at the header list limit (16 KiB): FRAME_SIZE_ERROR
    sustained(
        wire,
        |t| async move { h2::continuation_flood(&t).await },
        |a| {
            both(
                goaway(a, FRAME_SIZE_ERROR),
                closed_within(a, Duration::from_secs(1)),
            )
        },
    )
}

fn hpack_bomb(wire: Wire) -> Result<(), String> {
    // the decoded list passes 16 KiB on the first block: h2 answers with calm
    sustained(
        wire,
        |t| async move { h2::hpack_bomb(&t).await },
        |a| {
            both(
                goaway(a, ENHANCE_YOUR_CALM),
                closed_within(a, Duration::from_secs(1)),
            )
        },
    )
}

/// A flood whose answers the attacker never reads: once the socket refuses the
/// server's answers, h2 stops reading (its backpressure bounds memory), and the
/// reaper closes the connection after the stall timeout — no GOAWAY can reach a
/// client that reads nothing.
fn unread_flood(r: &Report<Attacked>) -> Result<(), String> {
    let closed = closed_within(&r.attack, STALL + Duration::from_secs(2));
    both(closed, r.check(32 * MIB, Duration::from_secs(2)))
}

fn settings_flood(wire: Wire) -> Result<(), String> {
    unread_flood(&attack(
        wire,
        |t| async move { h2::settings_flood(&t).await },
    ))
}

fn ping_flood(wire: Wire) -> Result<(), String> {
    unread_flood(&attack(wire, |t| async move { h2::ping_flood(&t).await }))
}

fn zero_window(wire: Wire) -> Result<(), String> {
    let r = attack(wire, |t| async move {
        h2::zero_window(&t, STALL + Duration::from_secs(3)).await
    });
    let closed = match r.attack.closed_after {
        Some(_) => Ok(()),
        None => Err(format!(
            "a connection that grants no window was kept: {:?}",
            r.attack
        )),
    };
    both(closed, r.check(32 * MIB, Duration::from_secs(2)))
}

fn window_update_abuse(wire: Wire) -> Result<(), String> {
    let overflow = sustained(
        wire,
        |t| async move { h2::window_overflow(&t).await },
        |a| goaway(a, FLOW_CONTROL_ERROR),
    );
    let zero = sustained(
        wire,
        |t| async move { h2::zero_window_update(&t).await },
        |a| goaway(a, PROTOCOL_ERROR),
    );
    both(overflow, zero)
}

fn unread_streams(wire: Wire) -> Result<(), String> {
    let r = attack(wire, |t| async move {
        h2::unread_streams(&t, STALL + Duration::from_secs(3)).await
    });
    let closed = match r.attack.closed_after {
        Some(_) => Ok(()),
        None => Err(format!(
            "a connection that reads nothing was kept: {:?}",
            r.attack
        )),
    };
    both(closed, r.check(32 * MIB, Duration::from_secs(2)))
}

fn oversized_headers(wire: Wire) -> Result<(), String> {
    // past the header list limit: h2 answers with calm
    sustained(
        wire,
        |t| async move { h2::oversized_headers(&t).await },
        |a| {
            both(
                goaway(a, ENHANCE_YOUR_CALM),
                closed_within(a, Duration::from_secs(1)),
            )
        },
    )
}

fn slowloris(wire: Wire) -> Result<(), String> {
    let r = attack(wire, |t| async move {
        http1::slowloris(&t, 100, Duration::from_secs(8)).await
    });
    let closed = match r.attack.all_closed_within() {
        Some(d) if d <= Duration::from_secs(7) => Ok(()),
        other => Err(format!("slow heads were kept open: latest close {other:?}")),
    };
    both(closed, r.check(32 * MIB, Duration::from_secs(2)))
}

fn slow_post(wire: Wire) -> Result<(), String> {
    let r = attack(wire, |t| async move {
        http1::slow_post(&t, Duration::from_secs(8)).await
    });
    let answered = match r.attack.0.first() {
        Some(a) if a.status_line.starts_with("HTTP/1.1 400") && a.closed_after.is_some() => Ok(()),
        other => Err(format!(
            "a slow body was not answered 400 and closed: {other:?}"
        )),
    };
    both(answered, r.check(32 * MIB, Duration::from_secs(2)))
}

fn endless_headers(wire: Wire) -> Result<(), String> {
    let r = attack(wire, |t| async move {
        http1::endless_headers(&t, Duration::from_secs(4)).await
    });
    let answered = match r.attack.0.first() {
        Some(a)
            if a.status_line.starts_with("HTTP/1.1 431")
                && a.closed_after.is_some_and(|c| c <= Duration::from_secs(1)) =>
        {
            Ok(())
        }
        other => Err(format!("an endless head was not cut at 431: {other:?}")),
    };
    both(answered, r.check(32 * MIB, Duration::from_secs(2)))
}

fn grpc_handshake_flood(wire: Wire) -> Result<(), String> {
    let r = attack(wire, |t| async move {
        let full = tls::full_handshakes(&t, t.grpc(), b"h2", 4, Duration::from_secs(3)).await;
        let half = tls::half_handshakes(t.grpc(), 200, Duration::from_secs(13)).await;
        (full, half)
    });
    handshakes_bounded(&r)
}

fn http_handshake_flood(wire: Wire) -> Result<(), String> {
    let r = attack(wire, |t| async move {
        let full = tls::full_handshakes(&t, t.http(), b"http/1.1", 4, Duration::from_secs(3)).await;
        let half = tls::half_handshakes(t.http(), 200, Duration::from_secs(8)).await;
        (full, half)
    });
    handshakes_bounded(&r)
}

fn handshakes_bounded(r: &Report<(tls::Flood, tls::Flood)>) -> Result<(), String> {
    let (full, half) = &r.attack;
    let per = r.cpu().as_secs_f64() * 1e3 / full.handshakes.max(1) as f64;
    println!(
        "{} handshakes, server CPU {per:.2} ms each",
        full.handshakes
    );
    let closed = match half.closed == half.handshakes {
        true => Ok(()),
        false => Err(format!(
            "{} of {} half handshakes were kept open",
            half.handshakes - half.closed,
            half.handshakes
        )),
    };
    println!(
        "{} half handshakes, all closed within {:?}",
        half.handshakes, half.closed_within
    );
    both(closed, r.check(32 * MIB, Duration::from_secs(6)))
}
