//! Argument errors and the number syntax every numeric argument shares.

use std::fmt;

/// One line saying which argument was wrong, why, and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

pub(crate) fn err<T>(msg: String) -> Result<T, ArgError> {
    Err(ArgError(msg))
}

/// Parse an unsigned number: decimal or 0x-prefixed hex, `_` allowed between digits.
pub fn parse_u64(key: &str, value: &str) -> Result<u64, ArgError> {
    let cleaned: String = value.chars().filter(|&c| c != '_').collect();
    let parsed = if let Some(hex) = cleaned
        .strip_prefix("0x")
        .or_else(|| cleaned.strip_prefix("0X"))
    {
        if hex.is_empty() {
            None
        } else {
            u64::from_str_radix(hex, 16).ok()
        }
    } else if !cleaned.is_empty() && cleaned.bytes().all(|b| b.is_ascii_digit()) {
        cleaned.parse::<u64>().ok()
    } else {
        None
    };
    match parsed {
        Some(v) if !value.starts_with('_') && !value.ends_with('_') => Ok(v),
        _ => err(format!(
            "{key}={value}: not an unsigned number (decimal or 0x hex)"
        )),
    }
}

/// As [`parse_u64`], for a value that must fit in 32 bits.
pub fn parse_u32(key: &str, value: &str) -> Result<u32, ArgError> {
    let v = parse_u64(key, value)?;
    u32::try_from(v).or_else(|_| err(format!("{key}={value}: does not fit in 32 bits")))
}

/// Argument `key` may be given once: fill `slot` or fail.
pub(crate) fn once<T>(slot: &mut Option<T>, key: &str, v: T) -> Result<(), ArgError> {
    if slot.is_some() {
        return err(format!(
            "argument '{key}' given more than once: give it once"
        ));
    }
    *slot = Some(v);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_u64("k", "0").unwrap(), 0);
        assert_eq!(parse_u64("k", "0x4000").unwrap(), 0x4000);
        assert_eq!(parse_u64("k", "1_000").unwrap(), 1000);
        assert_eq!(parse_u64("k", "18446744073709551615").unwrap(), u64::MAX);
        assert!(parse_u64("k", "18446744073709551616").is_err());
        assert!(parse_u64("k", "").is_err());
        assert!(parse_u64("k", "1e6").is_err());
        assert!(parse_u64("k", " 1").is_err());
        assert!(parse_u64("k", "_1").is_err());
        assert_eq!(
            parse_u32("k", "0x1_0000_0000").unwrap_err().0,
            "k=0x1_0000_0000: does not fit in 32 bits"
        );
    }
}
