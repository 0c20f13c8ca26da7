//! Counts in words: "1 object", "2 objects", never "1 objects" or "1 object(s)".

/// `n` followed by `one` or `many` as English wants it.
pub fn count(n: impl TryInto<u64> + Copy + std::fmt::Display, one: &str, many: &str) -> String {
    let singular = matches!(n.try_into(), Ok(1));
    format!("{n} {}", if singular { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_everything_else_plural() {
        assert_eq!(count(1usize, "object", "objects"), "1 object");
        assert_eq!(count(0usize, "object", "objects"), "0 objects");
        assert_eq!(count(2i32, "pod", "pods"), "2 pods");
        assert_eq!(count(-1i32, "pod", "pods"), "-1 pods");
    }
}
