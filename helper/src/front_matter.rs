//! Front matter, kept at this path for the callers that name it
//! (`crate::front_matter::parse`); the reader itself is
//! [`crate::yaml::front_matter`].

pub use crate::yaml::front_matter::{Block, FrontMatterError, parse, split};
