//! What a catalog means for a cluster: its installed operators and its version.
//!
//! In: cluster state (the OLM objects `kubectl get -o yaml` prints) and a
//! catalog's tables. Out: typed answers with plain-words explanations.
//!
//! | module | in → out |
//! |---|---|
//! | [`state`] | Subscription, ClusterServiceVersion and ClusterExtension objects → typed values |
//! | [`openshift`] | `olm.maxOpenShiftVersion` values → the maximum as OLM v0 and v1 read it, and what it blocks |
//! | [`explain`] | cluster state → per Subscription (OLM v0) and ClusterExtension (OLM v1): where it sits, what OLM does next, why not when stuck, the smallest fix |
//! | [`inventory`] | cluster state → the installed bundles, with the maximum each cluster object carries |
//! | [`profile`] | a catalog + a target (`olm-v1`, `console`, `ocp-4.Y`) → the lint findings that target raises |
//! | [`readiness`] | a bundle → can OLM v1 install it, with every reason by rule |
//! | [`upgrade`] | installed bundles + a target OpenShift minor → which block it, and the path out of each |

pub mod explain;
pub mod inventory;
pub mod openshift;
pub mod profile;
pub mod readiness;
pub mod state;
pub mod upgrade;
