//! The subscription variables (`getSubscriptionVariables`) and the
//! invariants (`addInvariants`) of the problem; see `variables`.

use super::*;

impl Builder<'_> {
    /// One subscription: a variable that must hold and depends on its
    /// candidates (the channel's entries by OLM's preference, or those that
    /// replace, skip or skipRange-cover the installed CSV), the installed CSV
    /// last; or, when nothing in the catalog fits, one that cannot hold.
    pub(super) fn subscription(
        &mut self,
        sub: &Subscription,
        current: Option<usize>,
        request: &Request,
    ) -> Result<(), Vec<String>> {
        let id = format!("subscription:{}", sub.name);
        let exists = format!("subscription {} exists", sub.name);
        let starting =
            (current.is_none() && !sub.starting_csv.is_empty()).then_some(&sub.starting_csv);
        let counts = self.count(sub, starting, request.catalog_index(&sub.catalog));
        if let Some(reason) = invalid_reason(sub, &counts) {
            let v = self.var(id, Kind::Subscription);
            self.add(v, Con::Mandatory, Some(exists));
            self.add(v, Con::Prohibited, Some(reason));
            return Ok(());
        }
        let candidates = self.candidates(&counts.matching, current)?;
        let mut deps: Vec<usize> = Vec::new();
        for &c in &candidates {
            if let Some(cur) = current {
                let cur_var = self.bundle_var(cur);
                self.vars[c].replaces = Some(self.entry(cur).name.clone());
                self.add(c, Con::Conflict(cur_var), None);
            }
            deps.push(c);
        }
        if let Some(cur) = current {
            deps.push(self.bundle_var(cur));
        }
        let v = self.var(id, Kind::Subscription);
        self.add(v, Con::Mandatory, Some(exists));
        let message = match deps.as_slice() {
            [] => format!(
                "no operators found matching the criteria of subscription {}",
                sub.name
            ),
            [one] => format!("subscription {} requires {}", sub.name, self.vars[*one].id),
            [init @ .., last] => format!(
                "subscription {} requires at least one of {} or {}",
                sub.name,
                init.iter()
                    .map(|&d| self.vars[d].id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                self.vars[*last].id
            ),
        };
        self.add(v, Con::Dependency(deps), Some(message));
        Ok(())
    }

    /// OLM's nested counts: catalog entries, of the package, of the channel,
    /// with the starting CSV's name; and the entries passing all four.
    fn count(&self, sub: &Subscription, starting: Option<&String>, k: Option<usize>) -> Counts {
        let mut counts = Counts::default();
        for i in 0..self.entries.catalog_len {
            let e = self.entry(i);
            if !e.in_catalog(k) {
                continue;
            }
            counts.all += 1;
            if !Pred::Package(sub.package.clone()).test(e) {
                continue;
            }
            counts.package += 1;
            if !sub.channel.is_empty() && e.channel != sub.channel {
                continue;
            }
            counts.channel += 1;
            if starting.is_some_and(|s| *s != e.name) {
                continue;
            }
            counts.csv += 1;
            counts.matching.push(i);
        }
        counts
    }

    /// The subscription's candidate variables in OLM's order: default channel
    /// first, then by channel name, each channel by `sortChannel`; with an
    /// installed CSV, only entries that replace, skip or cover it.
    fn candidates(
        &mut self,
        matching: &[usize],
        current: Option<usize>,
    ) -> Result<Vec<usize>, Vec<String>> {
        let mut sorted: Vec<usize> = matching.to_vec();
        sorted.sort_by(|&a, &b| {
            let (a, b) = (self.entry(a), self.entry(b));
            b.default_channel
                .cmp(&a.default_channel)
                .then_with(|| a.channel.cmp(&b.channel))
        });
        let mut ordered = Vec::new();
        for run in sorted.chunk_by(|&a, &b| self.entry(a).channel == self.entry(b).channel) {
            let e = self.entry(run[0]);
            ordered.extend(
                self.channel_order(run, &e.package, &e.channel)
                    .map_err(|e| vec![e])?,
            );
        }
        if let Some(cur) = current {
            let cur = self.entry(cur).clone();
            ordered.retain(|&i| {
                let e = self.entry(i);
                let covers = match (&e.skip_range, &cur.version) {
                    (Some(r), Some(v)) => r.matches(v),
                    _ => false,
                };
                covers || e.replaces == cur.name || e.skips.contains(&cur.name)
            });
        }
        let mut out = Vec::new();
        for o in ordered {
            // Every entry of the subscription's set with this name (one per
            // channel when the subscription names none), as OLM finds them.
            let name = self.entry(o).name.clone();
            let stack: Vec<usize> = matching
                .iter()
                .copied()
                .filter(|&i| self.entry(i).name == name)
                .collect();
            self.bundle_closure(stack.clone())?;
            out.extend(stack.into_iter().map(|i| self.bundle_var(i)));
        }
        Ok(out)
    }

    /// `addInvariants`: for each API provided by two or more variables' bundles,
    /// and each package two or more come from, a variable that must hold and
    /// allows at most one of them. APIs by (group, version, kind), then packages.
    pub(super) fn invariants(&mut self) {
        let mut apis: BTreeMap<(String, String, String), Vec<usize>> = BTreeMap::new();
        let mut packages: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (v, var) in self.vars.iter().enumerate() {
            let Kind::Bundle(e) = var.kind else {
                continue;
            };
            let e = self.entry(e);
            for Gvk {
                group,
                version,
                kind,
            } in &e.gvks
            {
                apis.entry((group.clone(), version.clone(), kind.clone()))
                    .or_default()
                    .push(v);
            }
            for (name, _) in &e.package_props {
                packages.entry(name.clone()).or_default().push(v);
            }
        }
        for ((group, version, kind), ids) in apis {
            let what = format!("{kind} ({group}/{version})");
            self.invariant(
                what.clone(),
                ids,
                &format!("there can be only one provider of {what}"),
                &format!("provide {what}"),
            );
        }
        for (package, ids) in packages {
            self.invariant(
                package.clone(),
                ids,
                &format!("there can be only one operator from package {package}"),
                &format!("originate from package {package}"),
            );
        }
    }

    fn invariant(&mut self, id: String, ids: Vec<usize>, mandatory: &str, verb: &str) {
        let v = self.var(id, Kind::Invariant);
        let [init @ .., last] = ids.as_slice() else {
            return;
        };
        if init.is_empty() {
            return;
        }
        let names: Vec<&str> = init.iter().map(|&i| self.vars[i].id.as_str()).collect();
        let message = format!("{} and {} {verb}", names.join(", "), self.vars[*last].id);
        self.add(v, Con::Mandatory, Some(mandatory.to_owned()));
        self.add(v, Con::AtMostOne(ids), Some(message));
    }
}

/// See [`Builder::count`].
#[derive(Default)]
struct Counts {
    all: usize,
    package: usize,
    channel: usize,
    csv: usize,
    matching: Vec<usize>,
}

/// OLM's reason a subscription has no candidates at all, if it has none.
fn invalid_reason(sub: &Subscription, c: &Counts) -> Option<String> {
    let name = &sub.name;
    if c.all == 0 {
        return Some(format!(
            "no operators found from catalog {} in namespace {} referenced by subscription {name}",
            sub.catalog.name, sub.catalog.namespace
        ));
    }
    if c.package == 0 {
        return Some(format!(
            "no operators found in package {} in the catalog referenced by subscription {name}",
            sub.package
        ));
    }
    if c.channel == 0 {
        return Some(format!(
            "no operators found in channel {} of package {} in the catalog referenced by subscription {name}",
            sub.channel, sub.package
        ));
    }
    if c.csv == 0 {
        return Some(format!(
            "no operators found with name {} in channel {} of package {} in the catalog referenced by subscription {name}",
            sub.starting_csv, sub.channel, sub.package
        ));
    }
    None
}
