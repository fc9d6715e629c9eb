//! Host code's `std::cout << …`, `std::cerr << …` and `std::clog << …`: each operand of the
//! `<<` chain in turn, a manipulator (`std::endl`, `std::fixed`, `std::setw(8)`, …) setting
//! the stream's format and any other value written as libstdc++ writes it
//! (`model::clib::iostream`), to the console in the order printed, `printf`'s included.

use super::super::super::ast::{BinaryOp, Expr, ExprKind};
use super::super::error::{RunError, RunErrorKind};
use super::super::program::Stream;
use super::super::ty::Ty;
use super::super::value::{Lanes, S};
use super::{Value, Warp, R};

/// The stream a `<<` chain writes to: its leftmost operand's, `std::cout` (standard output),
/// or `std::cerr` or `std::clog` (standard error), with or without `std::`.
pub(super) fn stream_of(e: &Expr) -> Option<Stream> {
    let mut e = e;
    while let ExprKind::Binary { op: BinaryOp::Shl, lhs, .. } = &e.kind {
        e = lhs;
    }
    match &e.kind {
        ExprKind::Name(n) => match bare(n) {
            "cout" => Some(Stream::Stdout),
            "cerr" | "clog" => Some(Stream::Stderr),
            _ => None,
        },
        _ => None,
    }
}

/// A name without `::` or `std::` before it.
fn bare(name: &str) -> &str {
    name.trim_start_matches("::").trim_start_matches("std::")
}

impl Warp<'_> {
    /// Writes the operands of the `<<` chain `e` to `stream`, in order (none where no lane
    /// runs it).
    pub(super) fn stream_out(&mut self, e: &Expr, stream: Stream, m: u64) -> R<Value> {
        let mut operands = Vec::new();
        let mut at = e;
        while let ExprKind::Binary { op: BinaryOp::Shl, lhs, rhs } = &at.kind {
            operands.push(&**rhs);
            at = lhs;
        }
        operands.reverse();
        if m != 0 {
            let k = usize::from(stream == Stream::Stderr);
            for o in operands {
                let text = self.stream_piece(o, k)?;
                self.hs()?.print(stream, &text);
            }
        }
        Ok(Value::new(Ty::Void, Lanes::Same(S::I(0))))
    }

    /// The text of one operand written to stream `k` (0 standard output, 1 standard error),
    /// or the manipulator it is applied.
    fn stream_piece(&mut self, o: &Expr, k: usize) -> R<String> {
        match &o.kind {
            ExprKind::Name(n) => {
                if let Some(text) = self.hs()?.formats[k].manipulate(bare(n)) {
                    return Ok(text);
                }
            }
            ExprKind::Call { callee, args, .. } => {
                if let (ExprKind::Name(n), [arg]) = (&callee.kind, &args[..]) {
                    let which = bare(n);
                    if matches!(which, "setw" | "setprecision" | "setfill") {
                        let v = self.int_arg(arg, which)?;
                        let f = &mut self.hs()?.formats[k];
                        match which {
                            "setw" => f.width = v.clamp(0, 1 << 20) as usize,
                            "setprecision" => f.precision = v.clamp(-1, 1 << 20) as i64,
                            _ => f.fill = v as u8,
                        }
                        return Ok(String::new());
                    }
                }
            }
            ExprKind::Str(s) => return Ok(self.hs()?.formats[k].text(s)),
            _ => {}
        }
        let v = self.eval(o, 1)?;
        let s = v.lanes.at(0);
        if let S::U(line) = s {
            return Err(self.unwritten(o.pos, "a value printed", line));
        }
        let chars = |t: &Ty| matches!(t, Ty::Int(i) if i.bytes == 1);
        let string = match (&v.ty, s) {
            (Ty::Ptr(t, _), S::P(a)) if chars(t) => Some(self.c_string(a, o.pos)?),
            (Ty::Ptr(t, _), _) if chars(t) => {
                return Err(self.host_error(
                    o.pos,
                    "<< of a null char pointer: the stream sets its badbit and prints nothing \
                     more"
                        .into(),
                ))
            }
            _ => None,
        };
        let f = &mut self.hs()?.formats[k];
        Ok(match (&v.ty, s, string) {
            (_, _, Some(bytes)) => f.text(&String::from_utf8_lossy(&bytes)),
            (Ty::Bool, S::I(x), _) => f.boolean(x != 0),
            (Ty::Int(t), S::I(x), _) if t.bytes == 1 => {
                f.text(&String::from_utf8_lossy(&[x as u8]))
            }
            (Ty::Int(t), S::I(x), _) => f.int(x, u32::from(t.bytes), t.signed),
            (Ty::Float | Ty::Double, S::F(x), _) => f.float(x),
            (Ty::Float | Ty::Double, S::I(x), _) => f.float(x as f64),
            (Ty::Ptr(..), S::P(a), _) => f.pointer(a),
            (Ty::Ptr(..), S::I(x), _) => f.pointer(x as u64),
            (ty, ..) => {
                return Err(RunError::at(
                    o.pos,
                    RunErrorKind::Unsupported(format!("<< of a {ty} to a stream")),
                ))
            }
        })
    }
}
