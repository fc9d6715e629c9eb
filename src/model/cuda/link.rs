//! A long source in a link: packed as raw DEFLATE (RFC 1951, miniz_oxide at level 9) and then
//! base64url without padding (RFC 4648 §5), so that a kernel of a few kilobytes fits the
//! length course platforms and chat tools keep. Both forms decode: the plain `src` and the
//! packed one. Unpacking is bounded by the source's own limit, so a hostile link cannot
//! inflate into gigabytes.

use super::lex::MAX_SOURCE_BYTES;
use std::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Why packed text does not unpack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackError {
    /// A character outside base64url, at this position (from 1).
    NotBase64 {
        /// Its position in the text.
        at: usize,
    },
    /// A length base64 cannot have (one character left over).
    Truncated,
    /// The bytes are not DEFLATE data.
    NotDeflate,
    /// The source would pass [`MAX_SOURCE_BYTES`].
    TooLong,
    /// The source is not UTF-8 text.
    NotText,
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::NotBase64 { at } => {
                write!(
                    f,
                    "character {at} is not base64url (A–Z, a–z, 0–9, - and _)"
                )
            }
            PackError::Truncated => f.write_str("the packed text is cut short"),
            PackError::NotDeflate => f.write_str("the packed text is not a packed source"),
            PackError::TooLong => write!(
                f,
                "the packed source unpacks to more than {MAX_SOURCE_BYTES} bytes"
            ),
            PackError::NotText => f.write_str("the packed source is not UTF-8 text"),
        }
    }
}

impl std::error::Error for PackError {}

/// `source` packed for a link.
///
/// ```
/// use coalescing_lab::model::cuda::link::{pack, unpack};
/// let src = "__global__ void copy(float* o, const float* i) { o[threadIdx.x] = i[threadIdx.x]; }\n".repeat(20);
/// let packed = pack(&src);
/// assert!(packed.len() * 10 < src.len());
/// assert_eq!(unpack(&packed).unwrap(), src);
/// // Degenerate input: the empty source packs and unpacks.
/// assert_eq!(unpack(&pack("")).unwrap(), "");
/// ```
pub fn pack(source: &str) -> String {
    let bytes = miniz_oxide::deflate::compress_to_vec(source.as_bytes(), 9);
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for k in 0..chars {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * k) & 63) as usize]));
        }
    }
    out
}

/// The source `pack` packed into `text`.
///
/// ```
/// use coalescing_lab::model::cuda::link::unpack;
/// assert_eq!(unpack("a*b").unwrap_err().to_string(), "character 2 is not base64url (A–Z, a–z, 0–9, - and _)");
/// assert_eq!(unpack("AAAA").unwrap_err().to_string(), "the packed text is not a packed source");
/// ```
pub fn unpack(text: &str) -> Result<String, PackError> {
    let mut bytes = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let mut acc = 0u32;
    let mut bits = 0;
    for (k, c) in text.trim().bytes().enumerate() {
        let v = ALPHABET
            .iter()
            .position(|a| *a == c)
            .ok_or(PackError::NotBase64 { at: k + 1 })? as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits & 0xff) as u8);
        }
    }
    if bits >= 6 {
        return Err(PackError::Truncated);
    }
    let out = miniz_oxide::inflate::decompress_to_vec_with_limit(&bytes, MAX_SOURCE_BYTES)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => PackError::TooLong,
            _ => PackError::NotDeflate,
        })?;
    String::from_utf8(out).map_err(|_| PackError::NotText)
}
