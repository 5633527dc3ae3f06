//! RSpec.
//!
//! ```text
//!   1) Cart#total sums price times qty
//!      Failure/Error: expect(cart.total).to eq(280)
//!      # ./spec/cart_spec.rb:13:in `block (3 levels) in <top (required)>'
//! 6 examples, 3 failures
//! ```

use crate::verdict::failure::Failure;
use crate::verdict::recognizer::{Found, Recognizer};

#[derive(Debug, Default)]
pub(super) struct Rspec {
    found: Found,
    in_failures: bool,
    current: Option<usize>,
}

impl Recognizer for Rspec {
    fn runner(&self) -> &'static str {
        "rspec"
    }

    fn feed(&mut self, line: &str, number: u64) {
        let trimmed = line.trim();
        if let Some((n, rest)) = trimmed.split_once(' ')
            && n.parse::<u64>().is_ok()
            && (rest.starts_with("examples, ") || rest.starts_with("example, "))
        {
            self.found.summarise(line, number);
            self.in_failures = false;
            return;
        }
        if trimmed == "Failures:" {
            self.in_failures = true;
            return;
        }
        if !self.in_failures {
            return;
        }
        if let Some((n, name)) = trimmed.split_once(") ")
            && n.parse::<u64>().is_ok()
            && line.starts_with("  ")
            && !line.starts_with("     ")
        {
            self.current = self.found.failures.push(Failure::new(name));
            return;
        }
        self.found
            .failures
            .read_body(&mut self.current, trimmed, "# ");
    }

    fn found(&self) -> &Found {
        &self.found
    }
}
