//! The served catalogs, gathered for a question across them.
//!
//! In: the [`Fleet`]. Out: a function of every loaded catalog's [`Shelf`] (name,
//! priority, tables, browser cards), run on the blocking pool against one
//! snapshot per catalog: a reload during the question changes nothing in its
//! answer. Catalogs not loaded yet are left out (the answer lists what it read).

use super::{Fleet, Member};
use crate::snapshot::Snapshot;
use crate::views::across::Shelf;
use crate::views::browser::Browser;
use crate::views::catalogd::ViewError;
use std::sync::Arc;

/// One loaded catalog, held for the length of a question.
struct Stocked {
    member: Arc<Member>,
    snapshot: Arc<Snapshot>,
    cards: Arc<Browser>,
}

/// Runs `ask` over every loaded catalog of `fleet` (in name order), on the blocking pool.
pub async fn across<T: Send + 'static>(
    fleet: &Fleet,
    ask: impl FnOnce(&[Shelf<'_>]) -> T + Send + 'static,
) -> Result<T, ViewError> {
    let mut stock = Vec::new();
    for member in fleet.members().iter() {
        let Some(snapshot) = member.catalog.load() else {
            continue;
        };
        let cards = snapshot.browser().await?;
        stock.push(Stocked {
            member: member.clone(),
            snapshot,
            cards,
        });
    }
    tokio::task::spawn_blocking(move || {
        let mut shelves = Vec::with_capacity(stock.len());
        for s in &stock {
            let tables = s
                .snapshot
                .tables
                .get()
                .map_err(|e| ViewError::Failed(format!("catalog {}: {e}", s.member.name)))?;
            shelves.push(Shelf {
                name: &s.member.name,
                priority: s.member.priority,
                tables,
                cards: &s.cards.cards,
            });
        }
        Ok(ask(&shelves))
    })
    .await
    .map_err(|e| ViewError::Failed(format!("a question across catalogs failed: {e}")))?
}
