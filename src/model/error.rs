//! The one shape of an input error: a field and a message saying what would be accepted.
//!
//! Every panel's field enum ([`Field`](super::inputs::Field), [`Knob`](super::roofline::Knob),
//! [`ProbeField`](super::probe::ProbeField), [`KernelField`](super::kernel::KernelField))
//! implements [`FieldName`]; [`FieldError`] is generic over it. `Display` adds the field's
//! parameter once, so messages are written without it and callers never add or strip it.

use std::fmt;

/// A field enum whose errors name it by its URL parameter.
pub trait FieldName: Copy + fmt::Debug + PartialEq {
    /// The parameter that starts the message: a public contract (URL and `data-field`).
    fn param(self) -> impl fmt::Display;

    /// Whether the panel words its messages as whole sentences: `Display` then ends them with a
    /// full stop, and [`FieldError::message`] stays a clause that can be put inside another
    /// sentence.
    const SENTENCES: bool = false;
}

/// A problem with one field, worded to say what is accepted.
///
/// ```
/// use coalescing_lab::model::{error::FieldError, inputs::Field};
/// let e = FieldError::new(Field::Elem, "must be 1, 2, 4, 8 or 16 bytes, found '3'");
/// assert_eq!(e.to_string(), "elem: must be 1, 2, 4, 8 or 16 bytes, found '3'");
/// assert_eq!(e.message(), "must be 1, 2, 4, 8 or 16 bytes, found '3'");
/// assert_eq!(e.field, Field::Elem);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldError<F> {
    /// The field at fault.
    pub field: F,
    message: String,
}

impl<F: FieldName> FieldError<F> {
    /// An error on `field`; `message` is lower-case, without the parameter and without a final
    /// full stop.
    /// An error on `field`. A very long word of the message (an echoed 10 000-character
    /// value) is cut to a readable length, so a notice stays a few lines high.
    pub fn new(field: F, message: impl Into<String>) -> FieldError<F> {
        FieldError {
            field,
            message: super::format::clip_long_words(&message.into()),
        }
    }

    /// The message without the parameter and without a final full stop, for sentences that
    /// name the field their own way.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<F: FieldName> fmt::Display for FieldError<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field.param(), self.message)?;
        if F::SENTENCES {
            f.write_str(".")?;
        }
        Ok(())
    }
}

impl<F: FieldName> std::error::Error for FieldError<F> {}

/// Why a text the page's Web Worker posted is not a reply: a worker from another build, or a
/// bug. Each panel's wire (`cuda_view::wire`, `kernel::wire`, `trace::wire`) reads with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError(pub String);

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the worker's answer does not read: {}", self.0)
    }
}

impl std::error::Error for WireError {}
