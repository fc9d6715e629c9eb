//! Declarations: specifiers (storage, execution spaces, qualifiers, the base type),
//! declarators (pointers, references, arrays, initialisers), parameters, and templates'
//! parameters and arguments.

use super::super::ast::{
    Base, Decl, Declarator, Init, Param, Spaces, Storage, TemplateArg, TemplateParam, Type,
};
use super::super::error::CudaError;
use super::super::lex::{Punct, Tok};
use super::cursor::{builtin, Cursor};

impl Cursor<'_> {
    /// Whether the next tokens start a type: a type keyword, a qualifier or a type name.
    pub(super) fn starts_type(&self) -> bool {
        match self.peek() {
            Some(Tok::Ident(w)) => {
                super::cursor::TYPE_WORDS.contains(&w.as_str()) || self.qualified_type_ahead()
            }
            Some(Tok::Punct(Punct::ColonColon)) => self.qualified_type_ahead(),
            _ => false,
        }
    }

    /// Whether a (possibly qualified) type name comes next.
    fn qualified_type_ahead(&self) -> bool {
        let mut k = usize::from(self.peek_is(Punct::ColonColon));
        let mut name = String::new();
        while let Some(Tok::Ident(w)) = self.peek_at(k) {
            if !name.is_empty() {
                name.push_str("::");
            }
            name.push_str(w);
            if self.peek_at_is(k + 1, Punct::ColonColon) {
                k += 2;
            } else {
                break;
            }
        }
        !name.is_empty() && self.is_type_name(&name)
    }

    /// Specifiers of a declaration in a function: storage and the type.
    pub(super) fn specifiers(&mut self) -> Result<(Storage, Type), CudaError> {
        let (storage, _, ty) = self.all_specifiers(None)?;
        Ok((storage, ty))
    }

    /// Specifiers of a top-level item.
    pub(super) fn item_specifiers(&mut self) -> Result<(Storage, Spaces, Type), CudaError> {
        self.all_specifiers(None)
    }

    /// Specifiers of a struct member: the struct's own name is a type (its constructor).
    pub(super) fn member_specifiers(
        &mut self,
        owner: &str,
    ) -> Result<(Storage, Spaces, Type), CudaError> {
        self.all_specifiers(Some(owner))
    }

    fn all_specifiers(
        &mut self,
        owner: Option<&str>,
    ) -> Result<(Storage, Spaces, Type), CudaError> {
        let mut storage = Storage::default();
        let mut spaces = Spaces::default();
        let (mut signed, mut unsigned, mut short, mut longs) = (false, false, false, 0u8);
        let mut base: Option<Base> = None;
        let mut is_const = false;
        // `int` or `char` written as keywords: `unsigned`, `short` and `long` adjust them.
        let mut int_keyword = false;
        let start = self.pos();
        loop {
            let Some(word) = self.peek_word() else {
                if self.peek_is(Punct::ColonColon) && base.is_none() {
                    let (name, at) = self.qualified_ident("a type")?;
                    base = Some(self.named(name, at)?);
                    continue;
                }
                break;
            };
            match word {
                "const" => is_const = true,
                "volatile" | "inline" | "__forceinline__" | "__noinline__" | "__inline__"
                | "register" | "__restrict__" | "typename" | "mutable" | "explicit" => {}
                "constexpr" => {
                    storage.constexpr = true;
                    is_const = true;
                }
                "static" => storage.is_static = true,
                "extern" => {
                    storage.is_extern = true;
                    // `extern "C"`: a linkage, nothing to read.
                    if matches!(self.peek_at(1), Some(Tok::Str(_))) {
                        self.advance();
                    }
                }
                "__grid_constant__" => {}
                "__align__" | "alignas" | "__attribute__" | "__declspec" => {
                    self.advance();
                    if self.peek_is(Punct::LParen) {
                        self.skip_parens();
                    }
                    continue;
                }
                "__shared__" => storage.shared = true,
                "__constant__" => {
                    storage.device = true;
                    storage.constant = true;
                }
                "__managed__" => storage.device = true,
                "__device__" => spaces.device = true,
                "__global__" => spaces.global = true,
                "__host__" => spaces.host = true,
                "__launch_bounds__" => {
                    self.advance();
                    if self.peek_is(Punct::LParen) {
                        self.skip_parens();
                    }
                    continue;
                }
                "virtual" => return Err(self.unsupported("a virtual function")),
                "signed" => signed = true,
                "unsigned" => unsigned = true,
                "short" => short = true,
                "long" => longs += 1,
                "int" if base.is_none() => {
                    base = Some(Base::Int { bytes: 4, signed: true });
                    int_keyword = true;
                }
                "char" if base.is_none() => {
                    base = Some(Base::Int { bytes: 1, signed: true });
                    int_keyword = true;
                }
                "bool" if base.is_none() => base = Some(Base::Bool),
                "float" if base.is_none() => base = Some(Base::Float),
                "double" if base.is_none() => base = Some(Base::Double),
                "void" if base.is_none() => base = Some(Base::Void),
                "auto" if base.is_none() => base = Some(Base::Auto),
                "struct" | "class" if base.is_none() => {
                    self.advance();
                    let (name, at) = self.qualified_ident("a struct's name")?;
                    base = Some(self.named(name, at)?);
                    continue;
                }
                w if base.is_none()
                    && !(signed || unsigned || short || longs > 0)
                    && (self.is_type_name(w)
                        || owner == Some(w)
                        || self.qualified_type_ahead()
                        || self.unknown_type_ahead()) =>
                {
                    let (name, at) = self.qualified_ident("a type")?;
                    base = Some(self.named(name, at)?);
                    continue;
                }
                _ => break,
            }
            self.advance();
        }
        // `unsigned`, `short`, `long` alone or with `int`/`char`.
        let int_like = base.is_none() || int_keyword;
        if int_like && (signed || unsigned || short || longs > 0 || int_keyword) {
            let char_ = matches!(base, Some(Base::Int { bytes: 1, .. }));
            let bytes = if char_ {
                1
            } else if short {
                2
            } else if longs > 0 {
                8
            } else {
                4
            };
            base = Some(Base::Int { bytes, signed: !unsigned });
        } else if matches!(base, Some(Base::Double)) && longs > 0 {
            return Err(self.unsupported("long double"));
        }
        // A conversion operator has no type before `operator`.
        let base = match base {
            None if self.peek_word() == Some("operator") => Some(Base::Auto),
            other => other,
        };
        let Some(base) = base else {
            return Err(super::super::error::CudaError::new(
                start,
                super::super::error::ErrorKind::Expected {
                    what: "a type",
                    found: self.peek().map_or_else(String::new, Tok::spelling),
                },
            ));
        };
        Ok((
            storage,
            spaces,
            Type {
                base,
                pointers: 0,
                reference: false,
                is_const,
            },
        ))
    }

    /// Whether the next word is a name this file does not declare but that can only be a
    /// type here: a declared name follows it (`cData v`, `cData *v`, `half2 &h`). Headers are
    /// not read, so their types are known only this way.
    pub(super) fn unknown_type_ahead(&self) -> bool {
        let Some(Tok::Ident(w)) = self.peek() else {
            return false;
        };
        if super::cursor::is_keyword(w) {
            return false;
        }
        let mut k = 1;
        while self.peek_at(k).is_some_and(|t| {
            t.is(Punct::Star)
                || t.is(Punct::Amp)
                || t.ident() == Some("const")
                || t.ident() == Some("__restrict__")
        }) {
            k += 1;
        }
        match self.peek_at(k) {
            Some(Tok::Ident(next)) if !super::cursor::is_keyword(next) || next == "operator" => {
                // A declared name is followed by what ends or continues a declarator.
                k == 1
                    || self.peek_at(k + 1).is_some_and(|t| {
                        matches!(
                            t,
                            Tok::Punct(
                                Punct::Assign
                                    | Punct::Semi
                                    | Punct::Comma
                                    | Punct::LBracket
                                    | Punct::RParen
                                    | Punct::LParen
                                    | Punct::LBrace
                            )
                        )
                    })
            }
            _ => false,
        }
    }

    /// A named type with its template arguments, or the built-in it spells.
    fn named(&mut self, name: String, at: super::super::error::Pos) -> Result<Base, CudaError> {
        let last = name.rsplit("::").next().unwrap_or(&name).to_string();
        if is_texture_type(&last) {
            return Err(CudaError::new(
                at,
                super::super::error::ErrorKind::Unsupported { construct: "textures and surfaces" },
            ));
        }
        if let Some(b) = builtin(&last) {
            return Ok(b);
        }
        let args = if self.peek_is(Punct::Lt) {
            self.template_args()?
        } else {
            Vec::new()
        };
        Ok(Base::Named { name: last, args })
    }

    /// Skips a balanced `( … )`.
    pub(super) fn skip_parens(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.advance() {
            match t.tok {
                Tok::Punct(Punct::LParen) => depth += 1,
                Tok::Punct(Punct::RParen) => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// `*`, `&` and their qualifiers after a type, with no name: return types and casts.
    pub(super) fn pointer_suffix(&mut self, mut ty: Type) -> Type {
        loop {
            if self.eat(Punct::Star) {
                ty.pointers += 1;
            } else if self.eat(Punct::Amp) || self.eat(Punct::AndAnd) {
                ty.reference = true;
            } else if !(self.eat_word("const")
                || self.eat_word("__restrict__")
                || self.eat_word("volatile"))
            {
                return ty;
            }
        }
    }

    /// A type with no name: specifiers then `*`/`&`.
    pub(super) fn type_name(&mut self) -> Result<Type, CudaError> {
        let (_, ty) = self.specifiers()?;
        Ok(self.pointer_suffix(ty))
    }

    /// One declarator after the specifiers' type: pointers, the name, array extents, and an
    /// initialiser.
    pub(super) fn declarator(&mut self, ty: Type) -> Result<Declarator, CudaError> {
        let ty = self.pointer_suffix(ty);
        let (name, pos) = self.ident("a name")?;
        let mut dims = Vec::new();
        while self.eat(Punct::LBracket) {
            if self.eat(Punct::RBracket) {
                dims.push(None);
            } else {
                let e = self.expr()?;
                self.require(Punct::RBracket, "']' after the array's extent")?;
                dims.push(Some(e));
            }
        }
        let init = if self.eat(Punct::Assign) {
            if self.eat(Punct::LBrace) {
                Some(Init::List(self.list_rest(Punct::RBrace)?))
            } else {
                Some(Init::Expr(self.assignment()?))
            }
        } else if self.eat(Punct::LBrace) {
            Some(Init::List(self.list_rest(Punct::RBrace)?))
        } else if self.peek_is(Punct::LParen) {
            self.advance();
            Some(Init::Ctor(self.list_rest(Punct::RParen)?))
        } else {
            None
        };
        Ok(Declarator { name, pos, ty, dims, init })
    }

    /// The declarators after the specifiers, to the `;`.
    pub(super) fn declaration_rest(
        &mut self,
        storage: Storage,
        ty: Type,
        start: usize,
    ) -> Result<Decl, CudaError> {
        let mut declarators = vec![self.declarator(ty.clone())?];
        while self.eat(Punct::Comma) {
            declarators.push(self.declarator(ty.clone())?);
        }
        self.require(Punct::Semi, "';' after the declaration")?;
        Ok(Decl {
            storage,
            declarators,
            pos: self.pos_at(start),
        })
    }

    /// Whether a function's name and `(` come next (after any `*` and `&`).
    pub(super) fn is_function_ahead(&self) -> bool {
        let mut k = 0;
        while self.peek_at(k).is_some_and(|t| {
            t.is(Punct::Star)
                || t.is(Punct::Amp)
                || t.ident()
                    .is_some_and(|w| w == "const" || w == "__restrict__")
        }) {
            k += 1;
        }
        if self.peek_at_is(k, Punct::ColonColon) {
            k += 1;
        }
        let mut named = false;
        while let Some(Tok::Ident(_)) = self.peek_at(k) {
            named = true;
            k += 1;
            if self.peek_at_is(k, Punct::ColonColon) {
                k += 1;
            } else {
                break;
            }
        }
        if !named {
            return false;
        }
        // `name<args>(` of a specialisation, or `name(`.
        if self.peek_at_is(k, Punct::Lt) {
            let mut depth = 0i32;
            while let Some(t) = self.peek_at(k) {
                match t {
                    Tok::Punct(Punct::Lt) => depth += 1,
                    Tok::Punct(Punct::Gt) => depth -= 1,
                    Tok::Punct(Punct::Shr) => depth -= 2,
                    Tok::Punct(Punct::Semi | Punct::LBrace) => return false,
                    _ => {}
                }
                k += 1;
                if depth <= 0 {
                    break;
                }
            }
        }
        self.peek_at_is(k, Punct::LParen)
    }

    /// A function's parameters, `(` to `)`.
    pub(super) fn params(&mut self) -> Result<Vec<Param>, CudaError> {
        self.require(Punct::LParen, "'(' and the parameters")?;
        let mut params = Vec::new();
        if self.eat(Punct::RParen) {
            return Ok(params);
        }
        if self.peek_word() == Some("void") && self.peek_at_is(1, Punct::RParen) {
            self.advance();
            self.advance();
            return Ok(params);
        }
        loop {
            let pos = self.pos();
            if self.peek_is(Punct::Ellipsis) {
                return Err(self.unsupported("a variadic function"));
            }
            let (_, ty) = self.specifiers()?;
            let mut ty = self.pointer_suffix(ty);
            let name = match self.peek() {
                Some(Tok::Ident(_)) => Some(self.ident("a parameter's name")?.0),
                _ => None,
            };
            // `T a[]` and `T a[N]` are pointers.
            while self.eat(Punct::LBracket) {
                while !self.eat(Punct::RBracket) {
                    if self.advance().is_none() {
                        return Err(self.expected("']'"));
                    }
                }
                ty.pointers += 1;
            }
            if self.eat(Punct::Assign) {
                self.assignment()?; // A default argument: the launch gives every value.
            }
            params.push(Param { name, ty, pos });
            if self.eat(Punct::RParen) {
                return Ok(params);
            }
            self.require(Punct::Comma, "',' or ')' after a parameter")?;
        }
    }

    /// `template <…>`'s parameter list; type parameters become type names for the item.
    pub(super) fn template_params(&mut self) -> Result<Vec<TemplateParam>, CudaError> {
        self.require(Punct::Lt, "'<' and the template's parameters")?;
        let mut params = Vec::new();
        if self.close_angle() {
            return Ok(params); // `template <>`: a specialisation.
        }
        loop {
            if matches!(self.peek_word(), Some("typename" | "class")) {
                self.advance();
                if self.peek_is(Punct::Ellipsis) {
                    return Err(self.unsupported("a variadic template"));
                }
                let (name, _) = self.ident("the type parameter's name")?;
                self.type_params.push(name.clone());
                let default = if self.eat(Punct::Assign) {
                    Some(self.template_type()?)
                } else {
                    None
                };
                params.push(TemplateParam::Type { name, default });
            } else {
                let (_, ty) = self.specifiers()?;
                let (name, _) = self.ident("the value parameter's name")?;
                let default = if self.eat(Punct::Assign) {
                    Some(self.template_value()?)
                } else {
                    None
                };
                params.push(TemplateParam::Value { name, ty, default });
            }
            if self.close_angle() {
                return Ok(params);
            }
            self.require(Punct::Comma, "',' or '>' in the template's parameters")?;
        }
    }

    /// `<…>` template arguments.
    pub(super) fn template_args(&mut self) -> Result<Vec<TemplateArg>, CudaError> {
        self.require(Punct::Lt, "'<'")?;
        let mut args = Vec::new();
        if self.close_angle() {
            return Ok(args);
        }
        loop {
            if self.starts_type() {
                args.push(TemplateArg::Type(self.template_type()?));
            } else {
                args.push(TemplateArg::Value(self.template_value()?));
            }
            if self.close_angle() {
                return Ok(args);
            }
            self.require(Punct::Comma, "',' or '>' in the template's arguments")?;
        }
    }

    fn template_type(&mut self) -> Result<Type, CudaError> {
        self.in_template_args += 1;
        let ty = self.type_name();
        self.in_template_args -= 1;
        ty
    }

    fn template_value(&mut self) -> Result<super::super::ast::Expr, CudaError> {
        self.in_template_args += 1;
        let e = self.conditional();
        self.in_template_args -= 1;
        e
    }

    /// A `>` closing template arguments, or half of a `>>`.
    pub(super) fn close_angle(&mut self) -> bool {
        if std::mem::take(&mut self.pending_gt) {
            return true;
        }
        if self.eat(Punct::Gt) {
            return true;
        }
        if self.peek_is(Punct::Shr) {
            self.advance();
            self.pending_gt = true;
            return true;
        }
        if self.peek_is(Punct::Ge) || self.peek_is(Punct::ShrAssign) {
            return false;
        }
        false
    }
}

/// Texture and surface types, refused by name.
fn is_texture_type(name: &str) -> bool {
    name.starts_with("cudaTexture")
        || name.starts_with("cudaSurface")
        || matches!(name, "texture" | "surface" | "CUtexObject" | "CUsurfObject")
}
