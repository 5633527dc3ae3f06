//! The audits (issue 13, points 1, 2, 3 and 7): `audit step`, `audit
//! checkpoint`, `audit session`, and Step 0, the sandbox pre-flight and
//! recovery in the plan and progress models. Every check runs on a real git
//! repository made in a temp dir ([`repo::Repo`]).

mod checkpoint;
mod repo;
mod session;
mod step;
mod step_zero;
