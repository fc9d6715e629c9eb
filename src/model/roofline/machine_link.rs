//! The machine mode in a permalink: `roofs`, `machine`, `bw.N`, `peak.N` and `pt.N`, read
//! from and written to the query's decoded pairs. `model::permalink` calls these, so the
//! parameters stay a contract in one place (docs/permalinks.md, "Permalinks").
//!
//! Decoding fills the preset's slots first, wherever `machine` stands, and explicit values
//! then override them, as `arch` does in the calculator. Any machine parameter turns the mode
//! on unless the link says `roofs=course`; off, nothing of the machine is kept, so a link
//! survives decode → encode → decode unchanged.

use super::machine::{MachineField, MachineInputs};

impl MachineInputs {
    /// Reads the machine mode from a query's decoded pairs (later values win).
    ///
    /// ```
    /// use coalescing_lab::model::roofline::MachineInputs;
    /// let pairs = [("bw.1", "L2:5000"), ("machine", "a100")].map(|(k, v)| (k.to_string(), v.to_string()));
    /// let m = MachineInputs::from_pairs(pairs);
    /// assert_eq!((m.custom, m.preset.as_str(), m.bw[0].as_str(), m.peak[0].as_str()), (true, "A100", "L2:5000", "FP64:9700"));
    /// // Degenerate input: no machine parameter, no machine mode.
    /// assert_eq!(MachineInputs::from_pairs(Vec::new()), MachineInputs::default());
    /// ```
    pub fn from_pairs(pairs: impl IntoIterator<Item = (String, String)>) -> MachineInputs {
        let mut mode: Option<String> = None;
        let mut preset: Option<String> = None;
        let mut fields = Vec::new();
        for (key, value) in pairs {
            if key == "roofs" {
                mode = Some(value);
            } else if let Some(field) = MachineField::from_param(&key) {
                match field {
                    MachineField::Preset => preset = Some(value),
                    _ => fields.push((field, value)),
                }
            }
        }
        let custom = match mode.as_deref() {
            Some(mode) => mode == "custom",
            None => preset.is_some() || !fields.is_empty(),
        };
        if !custom {
            return MachineInputs::default();
        }
        let mut m = MachineInputs { custom, ..MachineInputs::default() };
        if let Some(id) = preset {
            m.set_preset(&id);
        }
        for (field, value) in fields {
            m.set(field, value);
        }
        m
    }

    /// Writes the machine mode's parameters, when it is on: `roofs=custom`, the preset, the
    /// ceilings that differ from the preset's (an emptied preset slot as an empty value) and
    /// the points.
    pub fn to_pairs(&self, out: &mut Vec<(String, String)>) {
        if !self.custom {
            return;
        }
        out.push(("roofs".into(), "custom".into()));
        if !self.preset.is_empty() {
            out.push(("machine".into(), self.preset.clone()));
        }
        let slots = (1..=self.bw.len() as u8)
            .map(MachineField::Bw)
            .chain((1..=self.peak.len() as u8).map(MachineField::Peak));
        for field in slots {
            let value = self.get(field);
            if value != self.preset_value(field) {
                out.push((field.param(), value.to_string()));
            }
        }
        for (i, text) in self.points.iter().enumerate() {
            if !text.is_empty() {
                out.push((MachineField::Point(i as u8 + 1).param(), text.clone()));
            }
        }
    }

    /// Whether `key` is one of the machine mode's parameters.
    pub fn is_param(key: &str) -> bool {
        key == "roofs" || MachineField::from_param(key).is_some()
    }

    /// Every problem the machine mode's part of a link had, in plain words; `shown` gives a
    /// parameter's value as the link wrote it.
    pub fn link_warnings(
        pairs: &[(String, String)],
        shown: impl Fn(&str) -> Option<String>,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let roofs = pairs.iter().rev().find(|(k, _)| k == "roofs");
        if let Some((_, value)) = roofs {
            if value != "course" && value != "custom" {
                out.push(format!(
                    "`roofs={value}` is not course or custom; using the course's fixed roof."
                ));
            } else if value == "course"
                && pairs.iter().any(|(k, _)| k != "roofs" && Self::is_param(k))
            {
                out.push(
                    "`roofs=course` keeps the course's fixed roof; the machine's ceilings and points in the link were ignored."
                        .to_string(),
                );
            }
        }
        let machine = MachineInputs::from_pairs(pairs.iter().cloned());
        for error in machine.check().errors {
            let param = error.field.param();
            let value = shown(&param).unwrap_or_else(|| machine.get(error.field).to_string());
            out.push(format!("`{param}={value}` {}.", error.message()));
        }
        out
    }
}
