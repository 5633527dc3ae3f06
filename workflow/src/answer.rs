//! Hearing the answer of an agent call the runner makes for itself (a
//! judge, a retrospective), whichever provider ran it.

use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use super::event::Event;
use super::step::Emit;

/// Takes the events of a call the runner makes for itself (a judge, a
/// retrospective): keeps its structured answer and its words, passes its
/// cost and tokens on to `costs_to` when given, and drops the rest (its
/// reading is not the step's output).
pub(super) struct Answer<'a> {
    costs_to: Option<&'a dyn Emit>,
    structured: Mutex<Option<Value>>,
    texts: Mutex<Vec<String>>,
}

impl<'a> Answer<'a> {
    pub(super) fn new(costs_to: Option<&'a dyn Emit>) -> Self {
        Self {
            costs_to,
            structured: Mutex::new(None),
            texts: Mutex::new(Vec::new()),
        }
    }

    /// The structured answer, if one came, and the words.
    pub(super) fn into_parts(self) -> (Option<Value>, Vec<String>) {
        (
            self.structured
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner),
            self.texts
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }
}

impl Emit for Answer<'_> {
    fn emit(&self, event: Event) {
        match event {
            Event::OutputCost { .. } | Event::OutputUsage { .. } => {
                if let Some(parent) = self.costs_to {
                    parent.emit(event);
                }
            }
            Event::OutputStructured { data } => {
                *self
                    .structured
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(data);
            }
            Event::OutputText { text, .. } => self
                .texts
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(text),
            _ => {}
        }
    }
}
