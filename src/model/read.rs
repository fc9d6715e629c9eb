//! What every field parser shares: a whole number as typed, and the habit of recording a
//! field's error and reading on, so that a form reports all its bad fields at once.

use super::error::{FieldError, FieldName};

/// The value of `result`, or `None` after recording its error in `errors`.
pub(super) fn keep<T, F: FieldName>(
    errors: &mut Vec<FieldError<F>>,
    result: Result<T, FieldError<F>>,
) -> Option<T> {
    result.map_err(|e| errors.push(e)).ok()
}

/// A whole number written as decimal digits only (spaces around it ignored); `None` for a
/// sign, a fraction, an empty text or a value past 2^64 − 1.
pub(super) fn whole(text: &str) -> Option<u64> {
    let text = text.trim();
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::super::error::FieldError;
    use super::super::inputs::Field;
    use super::{keep, whole};

    #[test]
    fn keep_records_the_error_and_reads_on() {
        let mut errors = Vec::new();
        assert_eq!(keep(&mut errors, Ok::<u32, FieldError<Field>>(3)), Some(3));
        assert_eq!(
            keep::<u32, Field>(&mut errors, Err(FieldError::new(Field::Warp, "bad"))),
            None
        );
        assert_eq!(errors.len(), 1);
    }

    #[test]
    fn whole_takes_decimal_digits_only() {
        assert_eq!(whole(" 32 "), Some(32));
        assert_eq!(
            (whole("+3"), whole("-1"), whole("1.5"), whole("")),
            (None, None, None, None)
        );
        assert_eq!(whole("18446744073709551616"), None);
    }
}
