//! `std::cout << x` as libstdc++ formats it: an output stream's format state (its width, fill,
//! precision and flags, which `<iomanip>`'s manipulators set) and the text of one value.
//!
//! From libstdc++ (GCC 12, `bits/locale_facets.tcc` and `bits/ostream.tcc`): an integer is
//! written by `num_put::_M_insert_int`: in decimal with its sign (and `+` under `showpos`),
//! or, under `hex` or `oct`, as the unsigned value of its own width (`-1` as an `int` is
//! `ffffffff`), with `0x` or `0` before it under `showbase` when it is not zero. A pointer
//! other than a `char` pointer is written as an unsigned long under `hex | showbase`, so a null
//! pointer is `0`. A floating value is written by `_M_insert_float` as `snprintf` writes it
//! with the format `_S_format_float` builds: `%.*g` (default), `%.*f` (`fixed`), `%.*e`
//! (`scientific`) or `%a` (both), with `+` under `showpos`, `#` under `showpoint`, upper
//! case under `uppercase`, and the precision, 6 unless set. `bool` is `1` or `0`, or `true`
//! and `false` under `boolalpha`. A character and a string are written as they are. The
//! width pads each of these once (with the fill, on the left unless `left`; `internal` pads
//! after a sign or a `0x`), then returns to 0; the other settings stay.

use super::printf::{sprintf, Arg};

/// `u`'s digits in base 8 or 16 (upper-case letters when `upper`), as `%o`, `%x` and `%X`
/// write them.
fn radix(mut u: u64, base: u32, upper: bool) -> String {
    let digits: &[u8; 16] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out = Vec::new();
    loop {
        out.push(digits[(u % u64::from(base)) as usize]);
        u /= u64::from(base);
        if u == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Where floating values go: `std::defaultfloat`, `std::fixed`, `std::scientific`, or both
/// (`std::hexfloat`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FloatField {
    /// `%g`.
    #[default]
    General,
    /// `%f`.
    Fixed,
    /// `%e`.
    Scientific,
    /// `%a`.
    Hex,
}

/// Where the padding goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Adjust {
    /// Before the value (the default).
    #[default]
    Right,
    /// After it.
    Left,
    /// After its sign or base prefix.
    Internal,
}

/// An output stream's format state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamFormat {
    /// The width of the next value only.
    pub width: usize,
    /// The fill character.
    pub fill: u8,
    /// Digits for floating values.
    pub precision: i64,
    /// The integers' base: 10, 16 or 8.
    pub base: u32,
    /// The floating values' notation.
    pub float: FloatField,
    /// Where the padding goes.
    pub adjust: Adjust,
    /// `std::boolalpha`.
    pub boolalpha: bool,
    /// `std::showbase`.
    pub showbase: bool,
    /// `std::showpos`.
    pub showpos: bool,
    /// `std::showpoint`.
    pub showpoint: bool,
    /// `std::uppercase`.
    pub uppercase: bool,
}

impl Default for StreamFormat {
    fn default() -> StreamFormat {
        StreamFormat {
            width: 0,
            fill: b' ',
            precision: 6,
            base: 10,
            float: FloatField::General,
            adjust: Adjust::Right,
            boolalpha: false,
            showbase: false,
            showpos: false,
            showpoint: false,
            uppercase: false,
        }
    }
}

impl StreamFormat {
    /// Applies the manipulator `name` (`endl`, `fixed`, `hex`, …, without `std::`): the text
    /// it writes, or `None` when `name` is none of them.
    ///
    /// ```
    /// use coalescing_lab::model::clib::iostream::StreamFormat;
    /// let mut f = StreamFormat::default();
    /// assert_eq!(f.manipulate("endl").as_deref(), Some("\n"));
    /// assert_eq!(f.manipulate("hex").as_deref(), Some(""));
    /// assert_eq!(f.int(255, 4, true), "ff");
    /// assert_eq!(f.manipulate("vector"), None);
    /// ```
    pub fn manipulate(&mut self, name: &str) -> Option<String> {
        match name {
            "endl" => return Some("\n".into()),
            "ends" => return Some("\0".into()),
            "flush" => {}
            "fixed" => self.float = FloatField::Fixed,
            "scientific" => self.float = FloatField::Scientific,
            "defaultfloat" => self.float = FloatField::General,
            "hexfloat" => self.float = FloatField::Hex,
            "hex" => self.base = 16,
            "dec" => self.base = 10,
            "oct" => self.base = 8,
            "boolalpha" => self.boolalpha = true,
            "noboolalpha" => self.boolalpha = false,
            "left" => self.adjust = Adjust::Left,
            "right" => self.adjust = Adjust::Right,
            "internal" => self.adjust = Adjust::Internal,
            "showbase" => self.showbase = true,
            "noshowbase" => self.showbase = false,
            "showpos" => self.showpos = true,
            "noshowpos" => self.showpos = false,
            "showpoint" => self.showpoint = true,
            "noshowpoint" => self.showpoint = false,
            "uppercase" => self.uppercase = true,
            "nouppercase" => self.uppercase = false,
            _ => return None,
        }
        Some(String::new())
    }

    /// Pads `text` to the width (a sign or base prefix of `prefix` bytes stays first under
    /// `internal`), and returns the width to 0.
    fn pad(&mut self, text: String, prefix: usize) -> String {
        let width = std::mem::take(&mut self.width);
        let len = text.chars().count();
        if width <= len {
            return text;
        }
        let fill = char::from(self.fill).to_string().repeat(width - len);
        match self.adjust {
            Adjust::Left => text + &fill,
            Adjust::Right => fill + &text,
            Adjust::Internal => format!("{}{fill}{}", &text[..prefix], &text[prefix..]),
        }
    }

    /// An integer `value` of a type of `bytes` bytes, signed or not.
    ///
    /// ```
    /// use coalescing_lab::model::clib::iostream::StreamFormat;
    /// let mut f = StreamFormat::default();
    /// assert_eq!(f.int(-42, 4, true), "-42");
    /// f.manipulate("hex");
    /// f.manipulate("showbase");
    /// assert_eq!((f.int(-1, 4, true), f.int(0, 4, true), f.int(-1, 8, true)), ("0xffffffff".into(), "0".into(), "0xffffffffffffffff".into()));
    /// f.width = 8;
    /// f.fill = b'0';
    /// f.manipulate("internal");
    /// assert_eq!(f.int(255, 4, false), "0x0000ff");
    /// ```
    pub fn int(&mut self, value: i128, bytes: u32, signed: bool) -> String {
        let bits = (bytes * 8).min(64);
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let (text, prefix) = if self.base == 10 {
            let sign = if value >= 0 && self.showpos && signed {
                "+"
            } else {
                ""
            };
            let text = format!("{sign}{value}");
            let prefix = usize::from(text.starts_with(['-', '+']));
            (text, prefix)
        } else {
            let u = (value as u64) & mask;
            let digits = radix(u, self.base, self.uppercase);
            let base = match (self.showbase && u != 0, self.base, self.uppercase) {
                (false, _, _) => "",
                (true, 16, false) => "0x",
                (true, 16, true) => "0X",
                (true, _, _) => "0",
            };
            (
                format!("{base}{digits}"),
                if base.len() == 2 { 2 } else { 0 },
            )
        };
        self.pad(text, prefix)
    }

    /// A `bool`.
    ///
    /// ```
    /// use coalescing_lab::model::clib::iostream::StreamFormat;
    /// let mut f = StreamFormat::default();
    /// assert_eq!(f.boolean(true), "1");
    /// f.manipulate("boolalpha");
    /// assert_eq!(f.boolean(false), "false");
    /// ```
    pub fn boolean(&mut self, value: bool) -> String {
        if self.boolalpha {
            let text = if value { "true" } else { "false" };
            self.pad(text.into(), 0)
        } else {
            self.int(i128::from(value), 1, false)
        }
    }

    /// A `float` or `double` (a `float` as the `double` it converts to).
    ///
    /// ```
    /// use coalescing_lab::model::clib::iostream::StreamFormat;
    /// let mut f = StreamFormat::default();
    /// assert_eq!((f.float(3.14159265), f.float(1e-7), f.float(100000.0), f.float(1e6)), ("3.14159".into(), "1e-07".into(), "100000".into(), "1e+06".into()));
    /// f.manipulate("fixed");
    /// f.precision = 2;
    /// assert_eq!(f.float(2.0 / 3.0), "0.67");
    /// f.manipulate("scientific");
    /// f.manipulate("uppercase");
    /// assert_eq!(f.float(12345.0), "1.23E+04");
    /// ```
    pub fn float(&mut self, value: f64) -> String {
        let mut format = String::from("%");
        if self.showpos {
            format.push('+');
        }
        if self.showpoint {
            format.push('#');
        }
        let conversion = match (self.float, self.uppercase) {
            (FloatField::General, false) => 'g',
            (FloatField::General, true) => 'G',
            (FloatField::Fixed, _) => 'f',
            (FloatField::Scientific, false) => 'e',
            (FloatField::Scientific, true) => 'E',
            (FloatField::Hex, false) => 'a',
            (FloatField::Hex, true) => 'A',
        };
        let mut args = Vec::new();
        if self.float != FloatField::Hex {
            format.push_str(".*");
            let precision = if self.precision < 0 {
                6
            } else {
                self.precision
            };
            args.push(Arg::Int(precision.min(i64::from(i32::MAX)) as u64));
        }
        format.push(conversion);
        args.push(Arg::Double(value));
        let text = sprintf(format.as_bytes(), &args)
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .unwrap_or_default();
        let prefix = usize::from(text.starts_with(['-', '+']));
        self.pad(text, prefix)
    }

    /// A character or a string, as written.
    ///
    /// ```
    /// use coalescing_lab::model::clib::iostream::StreamFormat;
    /// let mut f = StreamFormat::default();
    /// f.width = 5;
    /// assert_eq!(f.text("ab"), "   ab");
    /// assert_eq!(f.text("ab"), "ab");
    /// ```
    pub fn text(&mut self, text: &str) -> String {
        self.pad(text.to_string(), 0)
    }

    /// A pointer other than a `char` pointer: its address in hexadecimal with `0x`, or `0`.
    ///
    /// ```
    /// use coalescing_lab::model::clib::iostream::StreamFormat;
    /// let mut f = StreamFormat::default();
    /// assert_eq!((f.pointer(0x5555_0000_0010), f.pointer(0)), ("0x555500000010".into(), "0".into()));
    /// ```
    pub fn pointer(&mut self, address: u64) -> String {
        let saved = (self.base, self.showbase, self.uppercase);
        (self.base, self.showbase, self.uppercase) = (16, true, false);
        let text = self.int(i128::from(address), 8, false);
        (self.base, self.showbase, self.uppercase) = saved;
        text
    }
}
